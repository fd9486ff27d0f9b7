"""The ``remember`` command: a thin layer over the services.

Errors print one message to stderr and exit 1 (2 for a malformed command line);
results go to stdout, as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from remember.cli.parser import build_parser
from remember.config import Settings
from remember.errors import RememberError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env(user=args.user, database_url=args.db)
        _configure_logging(settings.log_level)
        return _run(settings, args)
    except RememberError as exc:
        print(f"remember: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``remember list | head``): not an error of ours.
        sys.stderr.close()
        return 0


def _run(settings: Settings, args: argparse.Namespace) -> int:
    command = getattr(args, "command", None)
    if command == "serve":  # before the commands are imported: the stdio server starts without them
        from remember.cli.serve_command import serve

        serve(settings, args)
        return 0
    if command == "ui":
        from remember.cli.ui_command import ui

        ui(settings, args)
        return 0
    from remember.app import open_services
    from remember.caller import Caller
    from remember.cli import commands

    if command == "db":
        from remember.cli import db_commands

        actions = {"upgrade": db_commands.upgrade, "copy": db_commands.copy, "check": db_commands.check}
        actions[args.action](settings, args)
        return 0
    services = open_services(settings)
    try:
        return commands.HANDLERS[str(command)](services, Caller(settings.user), args) or 0
    finally:
        services.close()


def _configure_logging(level: str) -> None:
    # stderr only: on stdio, stdout belongs to the MCP protocol.
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
