"""The ``remember`` command: a thin layer over the services.

Errors print one message to stderr, ``remember COMMAND: error: ...``, and exit 1 (2 for a malformed
command line); bad input is said under the command's usage, in its flags' names (``cli/mistakes.py``).
Results go to stdout, as JSON with ``--json``.

This module stays light: an assistant's hook event (``remember hook claude-code``) is handed to a warm
worker when one answers (``hook_warm.py``), before the grammar and the services are imported.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from remember.cli import hook_warm

        answered = hook_warm.answer(args)
        if answered is not None:
            return answered
    from remember.cli.program import run

    return run(args)
