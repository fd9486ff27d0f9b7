"""The whole command line: its grammar parsed, the command's handler called, its errors said.

Errors print one message to stderr, ``remember COMMAND: error: ...``, and exit 1 (2 for a malformed
command line); bad input is said under the command's usage, in its flags' names (``cli/mistakes.py``).
Results go to stdout, as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from remember.cli.grammar import Handler, StandaloneHandler
from remember.cli.mistakes import in_cli_words
from remember.cli.parser import build_parser
from remember.config import Settings
from remember.errors import RememberError, UnknownSpace, ValidationFailed

__all__ = ["run"]


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env(user=args.user, database_url=args.db)
        _configure_logging(settings)
        return _handle(settings, args)
    except ValidationFailed as exc:
        parser: argparse.ArgumentParser = args.command_parser
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {in_cli_words(exc, parser)}", file=sys.stderr)
        return 1
    except UnknownSpace as exc:
        print(f"{args.command_parser.prog}: error: {exc.listed_by('`remember space list`')}", file=sys.stderr)
        return 1
    except RememberError as exc:
        print(f"{args.command_parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``remember list | head``): not an error of ours.
        sys.stderr.close()
        return 0


def _handle(settings: Settings, args: argparse.Namespace) -> int:
    """Call the command's handler (set beside its grammar): with the settings alone, or with the services
    opened for it and the caller."""
    if args.standalone:  # serve, ui and db upgrade|check|copy open what they need themselves, or nothing
        standalone: StandaloneHandler = args.handler
        return standalone(settings, args) or 0
    from remember.app import open_services
    from remember.caller import Caller

    handler: Handler = args.handler
    services = open_services(settings)
    try:
        return handler(services, Caller(settings.user), args) or 0
    finally:
        services.close()


def _configure_logging(settings: Settings) -> None:
    """remember's own log lines from ``REMEMBER_LOG_LEVEL`` (INFO: e.g. where the HTTP server listens),
    other libraries' from WARNING; on stderr only, since on stdio stdout belongs to the MCP protocol."""
    logging.basicConfig(
        level=settings.library_log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("remember").setLevel(settings.log_level)
