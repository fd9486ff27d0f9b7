"""The command line's grammar: every command, its arguments and help."""

from __future__ import annotations

import argparse

from remember import __version__
from remember.cli.db_parser import add_db_commands
from remember.cli.grammar import Commands
from remember.cli.relationship_parser import add_relationship_commands
from remember.cli.search_parser import add_search_commands
from remember.cli.template_parser import add_suggest_command, add_template_commands
from remember.cli.token_parser import add_token_commands

EPILOG = """\
environment:
  REMEMBER_HOME          data folder (default: the platform's user data dir)
  REMEMBER_DATABASE_URL  database (default: sqlite:///$REMEMBER_HOME/remember.db)
  REMEMBER_USER          whose memories to use (default: local)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="remember",
        description="Long-term, structured memory for AI assistants, served over MCP.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"remember {__version__}")
    for flag, metavar, summary in GLOBAL_OPTIONS:
        parser.add_argument(flag, metavar=metavar, help=summary)
    commands = Commands(parser.add_subparsers(dest="command", metavar="COMMAND", required=True, help="what to do"))
    _serve(commands)
    _ui(commands)
    _add(commands)
    _get(commands)
    _list(commands)
    _update(commands)
    _rm(commands)
    _restore(commands)
    _prefs(commands)
    add_template_commands(commands)
    add_suggest_command(commands)
    add_search_commands(commands)
    add_relationship_commands(commands)
    add_db_commands(commands)
    add_token_commands(commands)
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


def _command(commands: Commands, name: str, summary: str) -> argparse.ArgumentParser:
    sub = commands.add_parser(name, help=summary, description=summary)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    return sub


def _serve(commands: Commands) -> None:
    sub = commands.add_parser("serve", help="run the MCP server", description="Run the MCP server.")
    sub.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="how clients connect (default: stdio)"
    )
    sub.add_argument("--http", action="store_true", help="serve streamable HTTP on /mcp (same as --transport http)")
    sub.add_argument("--host", help="address to listen on with --http (default: $REMEMBER_HTTP_HOST or 127.0.0.1)")
    sub.add_argument("--port", type=int, help="port to listen on with --http (default: $REMEMBER_HTTP_PORT or 8765)")
    sub.add_argument(
        "--no-auth",
        action="store_true",
        help="with --http on loopback only: no tokens, every request acts for --user",
    )


def _ui(commands: Commands) -> None:
    sub = commands.add_parser(
        "ui",
        help="open the dashboard in the browser",
        description="Serve the dashboard on 127.0.0.1 for --user and open the browser, logged in.",
    )
    sub.add_argument("--port", type=int, help="port to listen on (default: a free one)")
    sub.add_argument("--no-browser", action="store_true", help="only print the login link")


def _memory_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--title", help="a short title")
    sub.add_argument("--type", help="kind of memory: note, person, book, ... (default: note)")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="a tag (repeat for more)")
    sub.add_argument("--weight", type=float, help="significance from 0 to 1")
    sub.add_argument("--trust", type=float, help="access level from 0 to 1")
    sub.add_argument("--ref", action="append", dest="references", metavar="URL", help="a related http(s) URL")
    sub.add_argument("--when", metavar="DATE", help="when it happened (ISO 8601; default now)")


def _add(commands: Commands) -> None:
    sub = _command(commands, "add", "store a new memory")
    sub.add_argument(
        "content", nargs="?", help="the text to remember ('-' reads standard input); optional with --template"
    )
    _memory_options(sub)
    sub.add_argument("--template", metavar="ID_OR_NAME", help="make it from this template")
    sub.add_argument("--field", action="append", metavar="NAME=VALUE", help="a template field (repeatable)")
    sub.add_argument(
        "--accept-suggestion",
        action="store_true",
        help="apply the best suggested template with the fields read from the text",
    )
    sub.add_argument("--no-suggestion", action="store_true", help="do not suggest a template")


def _get(commands: Commands) -> None:
    sub = _command(commands, "get", "show one memory")
    sub.add_argument("memory_id", help="the memory's id")
    sub.add_argument("--history", action="store_true", help="also show its past changes")


def _list(commands: Commands) -> None:
    sub = _command(commands, "list", "list memories, newest first")
    sub.add_argument("--type", help="only this type")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="only with this tag (repeatable)")
    sub.add_argument("--all-tags", action="store_true", help="require every --tag, not any")
    sub.add_argument("--since", metavar="DATE", help="created on or after (ISO 8601)")
    sub.add_argument("--until", metavar="DATE", help="created before (ISO 8601)")
    sub.add_argument("--filter", metavar="JSON", help='advanced filter, e.g. \'{"weight": {"gte": 0.8}}\'')
    sub.add_argument(
        "--sort", default="created_at", choices=["created_at", "updated_at", "weight", "occurred_at"], help="order"
    )
    sub.add_argument("--asc", action="store_true", help="oldest (or lowest) first")
    sub.add_argument("--limit", type=int, default=20, help="page size, 1-100 (default 20)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")
    sub.add_argument("--deleted", choices=["exclude", "include", "only"], default="exclude", help="deleted ones")


def _update(commands: Commands) -> None:
    sub = _command(commands, "update", "change fields of a memory (others stay)")
    sub.add_argument("memory_id", help="the memory's id")
    sub.add_argument("--content", help="new text ('-' reads standard input)")
    _memory_options(sub)
    sub.add_argument("--clear-tags", action="store_true", help="remove all tags")
    sub.add_argument("--reason", help="why; kept in the memory's history")


def _rm(commands: Commands) -> None:
    sub = _command(commands, "rm", "delete a memory (restorable unless --permanent)")
    sub.add_argument("memory_id", help="the memory's id")
    sub.add_argument("--permanent", action="store_true", help="erase it and its history for good")
    sub.add_argument("--reason", help="why; kept in the memory's history")


def _restore(commands: Commands) -> None:
    sub = _command(commands, "restore", "bring back a deleted memory")
    sub.add_argument("memory_id", help="the memory's id")
    sub.add_argument("--reason", help="why; kept in the memory's history")


def _prefs(commands: Commands) -> None:
    actions = commands.add_group(
        "prefs", help="read or change preferences", description="Read or change preferences", actions="get or set"
    )
    get = _command(actions, "get", "show preferences (all, or one category)")
    get.add_argument("category", nargs="?", help="e.g. search or templates")
    put = _command(actions, "set", "change one preference")
    put.add_argument("path", help="dot path, e.g. search.default_limit")
    put.add_argument("value", help='the value; JSON (20, true, ["a"]) or plain text')
    put.add_argument("--reason", help="why; kept in the preference history")
