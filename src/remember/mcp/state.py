"""What the server hands every request through the SDK's lifespan state: the services, and who
the request acts for.

Tools, resolvers and resources take the SDK's ``Context`` and read both from it:
``services_of(ctx)`` and ``caller_of(ctx)``. The caller is the server's ``identify``
asked during the request: over stdio the configured user at its trust level; over
HTTP the user and trust level of the request's verified token, which the SDK keeps
for the request being served (``get_access_token``, also in the worker thread a
plain tool runs in). There is no default caller: outside of a request there is none.

The stdio server builds its services on first use (``Deferred``): a client's
``initialize`` and ``tools/list`` are answered before the service layer and the
template engine are imported, and the first call that needs them builds them once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context

from remember.caller import Caller
from remember.errors import AccessDenied

if TYPE_CHECKING:
    from remember.service import Services


class Deferred:
    """The services, given or built by ``make`` the first time they are asked for (once, thread-safe)."""

    def __init__(self, services: Services | Callable[[], Services]) -> None:
        self._make = services if callable(services) else None
        self._services = None if callable(services) else services
        self._lock = threading.Lock()

    def get(self) -> Services:
        if self._services is None:
            with self._lock:
                if self._services is None:
                    assert self._make is not None
                    self._services = self._make()
        return self._services


class AppState:
    """The services, and ``identify``: who the request being served acts for (a user, or a user and a trust level)."""

    def __init__(self, source: Deferred, identify: Callable[[], Caller | str]) -> None:
        self._source = source
        self._identify = identify

    @property
    def services(self) -> Services:
        return self._source.get()

    def caller(self) -> Caller:
        found = self._identify()
        return found if isinstance(found, Caller) else Caller(found)


def state_of(ctx: Context[Any, Any]) -> AppState:
    """The server's state, from a request's context."""
    state = ctx.request_context.lifespan_context
    if not isinstance(state, AppState):
        raise RuntimeError("this request was not served by remember's server")
    return state


def services_of(ctx: Context[Any, Any]) -> Services:
    return state_of(ctx).services


def caller_of(ctx: Context[Any, Any]) -> Caller:
    """Who the request of ``ctx`` acts for, in their personal space: the first argument of every service call it
    makes there. A token limited to other spaces is refused here, so a tool reads no personal row by default."""
    caller = state_of(ctx).caller()
    if not caller.home:
        raise AccessDenied(
            "This token reaches only some shared spaces, and this reads or writes your personal space "
            "(templates, suggestions, preferences and the rest not yet shared: docs/spaces.md). "
            "Use a token that reaches your personal space."
        )
    return caller


def member_of(ctx: Context[Any, Any]) -> Caller:
    """Who the request of ``ctx`` acts for, before its spaces are resolved: only for ``services.spaces``, which
    answers the caller acting in each space the request names, as far as its token reaches."""
    return state_of(ctx).caller()
