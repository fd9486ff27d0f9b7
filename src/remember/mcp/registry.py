"""How tools are registered: errors translated, unknown arguments refused.

``ToolContext`` is what every tool module receives: the services and a way to
learn the calling user. Each tool is a plain function; ``add_tool`` wraps it so
that a ``RememberError`` reaches the client as an ``isError`` result with its
message, and makes its argument model refuse unknown parameters (a misspelt
``memory_ids`` is an error, not silently ignored).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.types import ToolAnnotations
from pydantic import ConfigDict

from remember.errors import RememberError
from remember.service import Services

# Validation messages go to models and people; pydantic's documentation links
# in every message are noise there. Read by pydantic when it formats an error.
os.environ.setdefault("PYDANTIC_ERRORS_INCLUDE_URL", "0")

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class ToolContext:
    services: Services
    user: Callable[[], str]


def hints(*, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def translated(fn: Callable[P, R]) -> Callable[P, R]:
    """Re-raise the project's errors as ToolError, so the client sees the message."""
    if inspect.iscoroutinefunction(fn):
        return _translated_async(fn)  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except RememberError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def _translated_async(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except RememberError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def add_tool(server: MCPServer, fn: Callable[..., Any], *, title: str, hints: ToolAnnotations) -> None:
    name = fn.__name__
    description = inspect.cleandoc(fn.__doc__ or "")
    server.add_tool(
        translated(fn), name=name, title=title, description=description, annotations=hints, structured_output=True
    )
    tool = server._tool_manager.get_tool(name)  # the SDK has no public hook for this
    if tool is None:  # pragma: no cover - add_tool just registered it
        raise RuntimeError(f"tool {name} was not registered")
    base = tool.fn_metadata.arg_model
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    strict: type[ArgModelBase] = type(base.__name__, (base,), {"model_config": config})
    tool.fn_metadata.arg_model = strict
    # The strict model's schema is the SDK's plus this one key (generating it again costs
    # about a tenth of the server's start).
    tool.parameters = {**tool.parameters, "additionalProperties": False}
