"""Who a request acts for: bound when a request starts, read by the tools it runs.

The server decides the caller from the request (stdio: the configured user;
HTTP: the token) and binds it for the duration of the call; tools, resolvers
and resources read it with ``current_user``. A context variable carries it into
the worker thread a plain tool runs in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[str | None] = ContextVar("remember_caller", default=None)


@contextmanager
def acting_as(user_id: str) -> Iterator[None]:
    token = _current.set(user_id)
    try:
        yield
    finally:
        _current.reset(token)


def current_user() -> str:
    """The user the current request acts for; outside of a request, an error (never a default user)."""
    user = _current.get()
    if user is None:
        raise RuntimeError("no request is being served: the calling user is unknown")
    return user
