"""A caller's trust level: the highest memory ``trust`` it may see or change.

Every memory has a ``trust`` from 0 to 1, the level a caller needs to reach it.
An edge binds the level of the request it serves (an HTTP token's, the stdio
server's setting) with ``trusted_up_to``; the services read it with
``trust_level`` on every path that reads or changes memories, and a memory
above it answers as unknown. Outside of any binding the level is 1: everything
(the command line, the owner's own tool).

A context variable carries it, as ``mcp/caller.py`` carries the user, so that
it reaches the worker thread a tool runs in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

FULL = 1.0

_level: ContextVar[float] = ContextVar("remember_trust_level", default=FULL)


@contextmanager
def trusted_up_to(level: float) -> Iterator[None]:
    if not 0.0 <= level <= FULL:
        raise ValueError(f"a trust level is from 0 to 1, not {level}")
    token = _level.set(level)
    try:
        yield
    finally:
        _level.reset(token)


def trust_level() -> float:
    """The trust level of the request being served (1 outside of one)."""
    return _level.get()


def visible(trust: float) -> bool:
    """Whether a memory of this ``trust`` is within the current caller's reach."""
    return trust <= _level.get()


def restricted() -> bool:
    """Whether the current caller is below full trust (so reads need the trust filter)."""
    return _level.get() < FULL
