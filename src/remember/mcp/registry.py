"""How tools are registered: errors translated, unknown arguments refused, built on first use.

``ToolContext`` is what every tool module receives: the services and a way to
learn the calling user. Each tool is a plain function; ``add_tool`` wraps it so
that a ``RememberError`` reaches the client as an ``isError`` result with its
message, and makes its argument model refuse unknown parameters (a misspelt
``memory_ids`` is an error, not silently ignored).

``add_tool`` only declares a tool: ``LazyTools`` builds the SDK's tool (its
pydantic argument and output models) the first time the tool is called or
described, and runs the code that declares the tools only when one is first
needed. With the ``tools/list`` answer kept on disk (``listing.py``) a server
answers ``tools/list`` without importing a tool module or building a model.
So a tool's name, description and parameters must not depend on settings or
stored data: they are the same for every start of the same code.
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
from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.types import Tool as MCPTool
from mcp.types import ToolAnnotations
from pydantic import ConfigDict

from remember.errors import RememberError
from remember.mcp.listing import Listing, ListingCache
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


@dataclass(frozen=True)
class ToolSpec:
    """What is known of a tool before its models are built."""

    fn: Callable[..., Any]
    name: str
    title: str
    description: str
    annotations: ToolAnnotations


class LazyTools(ToolManager):
    """The SDK's tool manager, building each declared tool on first use.

    Declaring is all or nothing: a loader that fails declares no tool and runs again
    on the next need, so a partial set of tools is never served nor kept on disk.
    The disk cache only describes declared tools; one added through the SDK's own
    ``add_tool`` turns it off.
    """

    def __init__(self) -> None:
        super().__init__()
        self._specs: dict[str, ToolSpec] = {}
        self._loader: Callable[[], None] | None = None
        self._listing: list[MCPTool] | None = None
        self._added_elsewhere = False

    def load_with(self, loader: Callable[[], None]) -> None:
        """``loader`` declares the tools; it runs when a tool is first needed, not before."""
        self._loader = loader

    def declare(self, spec: ToolSpec) -> None:
        if spec.name in self._specs or spec.name in self._tools:
            raise ValueError(f"tool {spec.name} is registered twice")
        self._specs[spec.name] = spec
        self._listing = None

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Tool:
        self._load()
        self._added_elsewhere = True
        self._listing = None
        return super().add_tool(fn, *args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self._load()
        if name not in self._specs and name not in self._tools:
            raise ToolError(f"Unknown tool: {name}")
        self._specs.pop(name, None)
        self._tools.pop(name, None)
        self._added_elsewhere = True  # the cached description lists it still
        self._listing = None

    def get_tool(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None and name not in self._specs:
            self._load()
        spec = self._specs.get(name)
        if tool is None and spec is not None:
            tool = self._tools[name] = _build(spec)
        return tool

    def list_tools(self) -> list[Tool]:
        self._load()
        names = [*self._specs, *(name for name in self._tools if name not in self._specs)]
        return [tool for name in names if (tool := self.get_tool(name)) is not None]

    def built(self) -> list[str]:
        """The names of the tools whose models have been built so far."""
        return list(self._tools)

    def declared(self) -> list[str]:
        """The names of the tools declared so far (none before the loader runs)."""
        return list(self._specs)

    def listing(self, cache: ListingCache | None = None) -> list[MCPTool]:
        """The ``tools/list`` answer: from ``cache`` when it holds one made by this code."""
        if self._listing is None:
            if cache is not None and not self._added_elsewhere:
                self._listing = cache.get_or_build(self._describe, _parse)
            else:
                self._listing = _parse(self._describe())
        return self._listing

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
        return [_mcp_tool(tool).model_dump(mode="json", by_alias=True, exclude_none=True) for tool in self.list_tools()]


def _parse(listing: Listing) -> list[MCPTool]:
    return [MCPTool.model_validate(tool) for tool in listing]


def _mcp_tool(tool: Tool) -> MCPTool:
    """The SDK's own description of a tool (``MCPServer.list_tools``)."""
    return MCPTool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.parameters,
        output_schema=tool.output_schema,
        annotations=tool.annotations,
        icons=tool.icons,
        _meta=tool.meta,
    )


def _build(spec: ToolSpec) -> Tool:
    tool = Tool.from_function(
        spec.fn,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        annotations=spec.annotations,
        structured_output=True,
    )
    base = tool.fn_metadata.arg_model
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    strict: type[ArgModelBase] = type(base.__name__, (base,), {"model_config": config})
    tool.fn_metadata.arg_model = strict
    # The strict model's schema is the SDK's plus this one key (generating it again costs
    # about a tenth of the server's start).
    tool.parameters = {**tool.parameters, "additionalProperties": False}
    return tool


def tools_of(server: MCPServer) -> LazyTools:
    """The server's tool manager, made lazy on first use (the SDK has no public hook for it)."""
    manager = server._tool_manager
    if not isinstance(manager, LazyTools):
        if manager.list_tools():
            raise RuntimeError("tools were added before remember's registry took over")
        manager = server._tool_manager = LazyTools()
    return manager


def add_tool(server: MCPServer, fn: Callable[..., Any], *, title: str, hints: ToolAnnotations) -> None:
    description = inspect.cleandoc(fn.__doc__ or "")
    spec = ToolSpec(fn=translated(fn), name=fn.__name__, title=title, description=description, annotations=hints)
    tools_of(server).declare(spec)
