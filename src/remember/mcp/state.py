"""What the server hands every request through the SDK's lifespan state: the services.

The stdio server builds its services on first use (``Deferred``): a client's
``initialize`` and ``tools/list`` are answered before the service layer and the
template engine are imported, and the first call that needs them builds them once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context

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
    def __init__(self, source: Deferred) -> None:
        self._source = source

    @property
    def services(self) -> Services:
        return self._source.get()


def state_of(ctx: Context[Any, Any]) -> AppState:
    """The server's state, from a request's context (resolvers run before the tool body and get only it)."""
    state = ctx.request_context.lifespan_context
    if not isinstance(state, AppState):
        raise RuntimeError("this request was not served by remember's server")
    return state
