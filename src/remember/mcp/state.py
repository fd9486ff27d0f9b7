"""What the server hands every request through the SDK's lifespan state: the services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context

from remember.service import Services


@dataclass(frozen=True)
class AppState:
    services: Services


def state_of(ctx: Context[Any, Any]) -> AppState:
    """The server's state, from a request's context (resolvers run before the tool body and get only it)."""
    state = ctx.request_context.lifespan_context
    if not isinstance(state, AppState):
        raise RuntimeError("this request was not served by remember's server")
    return state
