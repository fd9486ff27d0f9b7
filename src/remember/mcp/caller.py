"""Who a request acts for: bound when a request starts, read by the tools it runs.

The server decides the caller from the request (stdio: the configured user;
HTTP: the token) and binds it, with the caller's trust level (``access.py``),
for the duration of the call; tools, resolvers and resources read it with
``current_user``. A context variable carries it into the worker thread a plain
tool runs in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from remember.access import FULL, trusted_up_to

_current: ContextVar[str | None] = ContextVar("remember_caller", default=None)


@dataclass(frozen=True)
class Caller:
    """Who a request acts for, the highest memory trust it reaches, and when its credential ends.

    ``expires_at`` (Unix seconds) is the end of the token the request carries, None when it has no end.
    """

    user: str
    trust: float = FULL
    expires_at: int | None = None


@contextmanager
def acting_as(caller: Caller | str) -> Iterator[None]:
    who = caller if isinstance(caller, Caller) else Caller(caller)
    token = _current.set(who.user)
    try:
        with trusted_up_to(who.trust):
            yield
    finally:
        _current.reset(token)


def current_user() -> str:
    """The user the current request acts for; outside of a request, an error (never a default user)."""
    user = _current.get()
    if user is None:
        raise RuntimeError("no request is being served: the calling user is unknown")
    return user
