"""The command line's grammar: the program, its global options, and every command module's commands.

Each module declares its commands, their arguments and help, and the handler of each (``grammar.py``);
the order here is the order of ``remember --help``.
"""

from __future__ import annotations

import argparse

from remember import __version__
from remember.cli import (
    db_commands,
    hook_commands,
    memory_commands,
    move_commands,
    preference_commands,
    relationship_commands,
    search_commands,
    serve_command,
    space_commands,
    template_commands,
    template_use_commands,
    token_commands,
    ui_command,
)
from remember.cli.grammar import Commands
from remember.cli.mistakes import Parser

EPILOG = """\
environment:
  REMEMBER_HOME          data folder (default: the platform's user data dir)
  REMEMBER_DATABASE_URL  database (default: sqlite:///$REMEMBER_HOME/remember.db)
  REMEMBER_USER          whose memories to use (default: local)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="remember",
        description="Long-term, structured memory for AI assistants, served over MCP.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"remember {__version__}")
    for flag, metavar, summary in GLOBAL_OPTIONS:
        parser.add_argument(flag, metavar=metavar, help=summary)
    commands = Commands(parser.add_subparsers(dest="command", metavar="COMMAND", required=True, help="what to do"))
    serve_command.register(commands)
    ui_command.register(commands)
    memory_commands.register(commands)
    move_commands.register(commands)
    preference_commands.register(commands)
    templates = template_commands.register(commands)
    template_use_commands.register(commands, templates)
    search_commands.register(commands)
    relationship_commands.register(commands)
    space_commands.register(commands)
    db_commands.register(commands)
    token_commands.register(commands)
    hook_commands.register(commands)
    _accept_everywhere(commands, GLOBAL_OPTIONS)
    return parser


GLOBAL_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("--user", "USER", "act for this user id (default: $REMEMBER_USER or 'local')"),
    ("--db", "URL", "database URL or file (default: $REMEMBER_DATABASE_URL)"),
)


def _accept_everywhere(commands: Commands, options: tuple[tuple[str, str, str], ...]) -> None:
    """Let ``remember serve --user X`` mean ``remember --user X serve``: each command takes the global
    options too, after its own; given after the command, they replace the value given before it."""
    for sub in commands.every_parser():
        for flag, metavar, summary in options:
            sub.add_argument(flag, metavar=metavar, default=argparse.SUPPRESS, help=summary)
