"""How long the call being served may still run, for work that can stop part-way.

An edge that gives up on slow calls (``REMEMBER_CALL_TIMEOUT`` in the MCP server) sets the moment with
``limit``; long read-only loops (a walk of related memories, template inference) call ``check`` between
steps and stop with ``GivenUp`` once it has passed, so a call the client stopped waiting for does not
keep a worker thread busy. Without a limit (the command line, tests), ``check`` never stops anything.
The moment is a context variable: it follows the call into the worker thread that runs it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from remember.errors import RememberError

_ends: ContextVar[float | None] = ContextVar("remember_call_ends", default=None)


class GivenUp(RememberError):
    """The call ran past its time limit and stopped, changing nothing."""


@contextmanager
def limit(seconds: float | None) -> Iterator[None]:
    """Calls started within this block (tasks and threads made here) end by ``seconds`` from now."""
    token = _ends.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _ends.reset(token)


def check() -> None:
    """Stop (GivenUp) if the call being served has run past its time limit."""
    ends = _ends.get()
    if ends is not None and time.monotonic() > ends:
        raise GivenUp("This call ran past its time limit (REMEMBER_CALL_TIMEOUT) and stopped; nothing was changed.")
