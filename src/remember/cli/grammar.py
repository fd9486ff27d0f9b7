"""What the modules that declare the command line share: the type of a group of subcommands."""

from __future__ import annotations

import argparse
from typing import Any, TypeAlias

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def command(commands: Commands, name: str, **options: Any) -> argparse.ArgumentParser:
    """A subcommand (``options`` as for ``add_parser``) that prints JSON for scripts with ``--json``."""
    parser = commands.add_parser(name, **options)
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    return parser
