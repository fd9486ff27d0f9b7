"""Who a request acts for: bound when a request starts, read by the tools it runs.

The server decides the caller from the request (stdio: the configured user at
full trust; HTTP: the user and trust level of its token) and binds it for the
duration of the call; tools, resolvers and resources read it with
``current_caller`` and pass it to every service call. A context variable
carries it into the worker thread a plain tool runs in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from remember.caller import Caller

__all__ = ["Caller", "acting_as", "current_caller"]

_current: ContextVar[Caller | None] = ContextVar("remember_caller", default=None)


@contextmanager
def acting_as(caller: Caller | str) -> Iterator[None]:
    token = _current.set(caller if isinstance(caller, Caller) else Caller(caller))
    try:
        yield
    finally:
        _current.reset(token)


def current_caller() -> Caller:
    """The caller of the current request; outside of a request, an error (never a default caller)."""
    caller = _current.get()
    if caller is None:
        raise RuntimeError("no request is being served: the caller is unknown")
    return caller
