"""--as-of and --include-superseded: which memories a read answers with (by default what is true now)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remember.service.validity import When


def when_options(sub: argparse.ArgumentParser, *, everything: bool = True) -> None:
    """--as-of (and --include-superseded): which memories a read answers with, by default the current ones."""
    sub.add_argument("--as-of", metavar="DATE", help="what was true then (default: what is true now)")
    if everything:
        sub.add_argument("--include-superseded", action="store_true", help="also what was superseded or ended")


def when_of(args: argparse.Namespace) -> When:
    from remember.service.validity import when

    return when(args.as_of, getattr(args, "include_superseded", False))
