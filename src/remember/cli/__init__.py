"""The ``remember`` command: a thin layer over the services.

Errors print one message to stderr, ``remember COMMAND: error: ...``, and exit 1 (2 for a malformed
command line); bad input is said under the command's usage, in its flags' names (``cli/mistakes.py``).
Results go to stdout, as JSON with ``--json``.

This module stays light: an assistant's hook event (``remember hook claude-code``) is handed to a warm
worker when one answers (``hook_warm.py``), before the grammar and the services are imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["main", "one_blas_thread"]


def main(argv: Sequence[str] | None = None) -> int:
    one_blas_thread()
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from remember.cli import hook_warm

        answered = hook_warm.answer(args)
        if answered is not None:
            return answered
    from remember.cli.program import run

    return run(args)


def one_blas_thread() -> None:
    """NumPy's matrix products run on one thread unless ``OPENBLAS_NUM_THREADS`` says otherwise (set before NumPy
    loads). The products the commands and the server compute are small (a user's vectors by one query, the
    template library's rows): past about a thousand rows OpenBLAS splits them over threads that spin while they
    wait, which costs more CPU than the product and slows the embedding model running beside it, more so the more
    memories a user has. One thread also gives the same scores on any number of cores."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
