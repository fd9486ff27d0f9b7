"""How tools are registered: errors translated, arguments checked, built on first use.

``ToolContext`` is what every tool module receives: the services and the
calling user of the request being served (``caller.py``). Each tool is a plain
function; ``add_tool`` wraps it so that a ``RememberError`` reaches the client
as an ``isError`` result with its message.

``add_tool`` only declares a tool: ``ToolRegistry`` builds the SDK's ``Tool``
(its pydantic argument and output models) the first time the tool is called or
described, and runs the code that declares the tools only when one is first
needed. With the ``tools/list`` answer kept on disk (``listing.py``) a server
answers ``tools/list`` without importing a tool module or building a model.
So a tool's name, description and parameters must not depend on settings or
stored data: they are the same for every start of the same code.

Only the SDK's public API is used: ``Tool.from_function`` and ``Tool.run``,
called from the server's own ``list_tools``/``call_tool`` (``server.py``).
Before a call runs, its argument names are checked against the tool's schema
(an unknown name is refused, not ignored) and argument errors are explained
(``arguments.py``).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import Tool as MCPTool
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from remember.caller import Caller
from remember.errors import RememberError
from remember.mcp import arguments
from remember.mcp.compact import compact_input, compact_output
from remember.mcp.listing import Listing, ListingCache
from remember.mcp.state import Deferred

if TYPE_CHECKING:
    from remember.service import Services

# Validation messages go to models and people; pydantic's documentation links
# in every message are noise there. Read by pydantic when it formats an error.
os.environ.setdefault("PYDANTIC_ERRORS_INCLUDE_URL", "0")

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class ToolContext:
    source: Deferred
    caller: Callable[[], Caller]  # whom the request being served acts for

    @property
    def services(self) -> Services:
        return self.source.get()


def hints(*, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """A tool's annotations, stating only what differs from MCP's defaults (a tool writes, destructively,
    not idempotently, to an open world); whether a write is destructive or idempotent only means
    something for a tool that writes."""
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(
        destructive_hint=None if destructive else False,
        idempotent_hint=True if idempotent else None,
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


@dataclass(frozen=True)
class ToolSpec:
    """What is known of a tool before its models are built."""

    fn: Callable[..., Any]
    name: str
    description: str
    annotations: ToolAnnotations


class ToolRegistry:
    """The server's tools: declared cheaply, built on first use, described from a cache.

    Declaring is all or nothing: a loader that fails declares no tool and runs again
    on the next need, so a partial set of tools is never served nor kept on disk.
    """

    def __init__(self) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._tools: dict[str, Tool] = {}
        self._loader: Callable[[], None] | None = None
        self._listing: list[MCPTool] | None = None

    def load_with(self, loader: Callable[[], None]) -> None:
        """``loader`` declares the tools; it runs when a tool is first needed, not before."""
        self._loader = loader

    def declare(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name} is registered twice")
        self._specs[spec.name] = spec
        self._listing = None

    def remove(self, name: str) -> bool:
        """Forget a declared tool; False when there is none of that name."""
        self._load()
        self._tools.pop(name, None)
        self._listing = None
        return self._specs.pop(name, None) is not None

    def get(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None:
            if name not in self._specs:
                self._load()
            spec = self._specs.get(name)
            if spec is not None:
                tool = self._tools[name] = _build(spec)
        return tool

    def names(self) -> list[str]:
        self._load()
        return list(self._specs)

    def built(self) -> list[str]:
        """The names of the tools whose models have been built so far."""
        return list(self._tools)

    def declared(self) -> list[str]:
        """The names of the tools declared so far (none before the loader runs)."""
        return list(self._specs)

    def listing(self, cache: ListingCache | None = None) -> list[MCPTool]:
        """The ``tools/list`` answer: from ``cache`` when it holds one made by this code."""
        if self._listing is None:
            self._listing = cache.get_or_build(self._describe, _parse) if cache else _parse(self._describe())
        return self._listing

    async def call(self, tool: Tool, given: dict[str, Any], context: Context[Any, Any]) -> Any:
        """Run ``tool`` on ``given``: unknown names refused, argument errors explained."""
        refused = arguments.unknown_parameters(tool.name, tool.parameters, given)
        if refused:
            raise ToolError(refused)
        try:
            return await tool.run(given, context, convert_result=True)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(arguments.explained(tool.name, tool.parameters, exc.__cause__)) from exc.__cause__
            raise

    def _load(self) -> None:
        loader, self._loader = self._loader, None
        if loader is None:
            return
        before = set(self._specs)
        try:
            loader()
        except BaseException:
            for name in set(self._specs) - before:
                del self._specs[name]
            self._loader = loader
            raise

    def _describe(self) -> Listing:
        return [_mcp_tool(tool).model_dump(mode="json", by_alias=True, exclude_none=True) for tool in self._all()]

    def _all(self) -> list[Tool]:
        return [tool for name in self.names() if (tool := self.get(name)) is not None]


def _parse(listing: Listing) -> list[MCPTool]:
    return [MCPTool.model_validate(tool) for tool in listing]


def _mcp_tool(tool: Tool) -> MCPTool:
    """The description of a tool the SDK gives for one it holds itself (``MCPServer.list_tools``)."""
    return MCPTool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.parameters,
        output_schema=compact_output(tool.output_schema) if tool.output_schema is not None else None,
        annotations=tool.annotations,
        icons=tool.icons,
        _meta=tool.meta,
    )


def _build(spec: ToolSpec) -> Tool:
    tool = Tool.from_function(
        spec.fn,
        name=spec.name,
        description=spec.description,
        annotations=spec.annotations,
        structured_output=True,
    )
    # Unknown names are refused before a call runs (ToolRegistry.call); the schema says so.
    tool.parameters = compact_input({**tool.parameters, "additionalProperties": False})
    return tool


class HasTools(Protocol):
    """A server that keeps its tools in a ToolRegistry (``RememberServer``)."""

    @property
    def tools(self) -> ToolRegistry: ...


def add_tool(server: HasTools, fn: Callable[..., Any], *, hints: ToolAnnotations) -> None:
    """Declare ``fn`` as a tool. No display title: clients show the name, and every byte of the
    tool list is in the model's context on every conversation (docs/architecture.md)."""
    description = inspect.cleandoc(fn.__doc__ or "")
    spec = ToolSpec(fn=translated(fn), name=fn.__name__, description=description, annotations=hints)
    server.tools.declare(spec)
