"""The MCP server: every tool, over one set of services, for the calling user.

Built on the SDK's public API only: ``MCPServer``'s own ``list_tools``,
``call_tool``, resource and prompt methods are overridden, the services reach
resolvers as the lifespan state, and each request runs as the user that
``identify`` names for it (stdio: the configured user; HTTP: its token).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    Prompt,
    Resource,
    ResourceTemplate,
    Tool,
)
from pydantic import AnyUrl

from remember import __version__
from remember.errors import NotFound, excerpt
from remember.mcp.arguments import suggestion
from remember.mcp.caller import Caller, acting_as, current_caller
from remember.mcp.listing import ListingCache
from remember.mcp.registry import ToolContext, ToolRegistry
from remember.mcp.state import AppState, Deferred

if TYPE_CHECKING:
    from remember.service import Services

T = TypeVar("T")

INSTRUCTIONS = """\
remember is the user's long-term memory. Store what the user will want recalled later
(people, meetings, books, projects, decisions, facts) with remember_create_memory. Before
answering about the user's past, people, plans or preferences, look it up with
remember_search_memory (by meaning and keywords, with filters on template fields), or
remember_query_memory for a question's memories packed with numbered sources;
remember_list_memories browses by type, tags and date. Memories are private to the user."""


@dataclass(frozen=True)
class CallLimits:
    """How long a tool call may take (seconds) and how large its result may be (bytes); None: no limit."""

    timeout: float | None = None
    max_result_bytes: int | None = None


def _discard(task: asyncio.Future[Any]) -> None:
    """Collect the outcome of a call given up on, so that its error (if any) is not reported as lost."""
    if not task.cancelled():
        task.exception()


class RememberServer(MCPServer[AppState]):
    """MCPServer whose tools are built on first use (described from ``listing_cache`` when it has
    them), whose resources and prompts also list the user's templates, and whose every request
    acts for the user ``identify`` returns."""

    def __init__(
        self,
        services: Deferred,
        identify: Callable[[], Caller | str],
        listing_cache: ListingCache | None,
        *,
        limits: CallLimits = CallLimits(),
        **sdk: Any,
    ) -> None:
        self.state = AppState(services)

        @asynccontextmanager
        async def lifespan(_: MCPServer[AppState]) -> AsyncIterator[AppState]:
            yield self.state

        super().__init__("remember", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan, **sdk)
        self._source = services
        self.identify = identify
        self.listing_cache = listing_cache
        self.tools = ToolRegistry()
        self._sdk_tools_changed = False
        self.limits = limits

    @property
    def services(self) -> Services:
        return self._source.get()

    # tools

    async def list_tools(self) -> list[Tool]:
        own = self.tools.listing(None if self._sdk_tools_changed else self.listing_cache)
        return [*own, *await super().list_tools()]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[AppState, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self.tools.get(name)
        if tool is None:
            if name in {t.name for t in await super().list_tools()}:
                return await self._within_limits(name, super().call_tool(name, arguments, context))
            raise ToolError(f"Unknown tool: {name}{suggestion(name, self.tools.names())}")
        with acting_as(self.identify()):
            result: CallToolResult | InputRequiredResult = await self._within_limits(
                name, self.tools.call(tool, arguments, context or Context(mcp_server=self))
            )
        return result

    async def _within_limits(
        self, name: str, call: Awaitable[CallToolResult | InputRequiredResult]
    ) -> CallToolResult | InputRequiredResult:
        """The call's result, unless it takes longer than the time limit or is larger than the size limit."""
        limits = self.limits
        if limits.timeout is None:
            result = await call
        else:
            # A task of its own: a tool running in a worker thread cannot be cancelled, but the
            # client need not wait for it.
            task = asyncio.ensure_future(call)
            done, _ = await asyncio.wait({task}, timeout=limits.timeout)
            if not done:
                task.add_done_callback(_discard)
                raise ToolError(
                    f"{name} took longer than {limits.timeout:g} s and was given up (REMEMBER_CALL_TIMEOUT); "
                    "a change it was making may still be stored: check with remember_get_memory or "
                    "remember_list_memories before repeating it."
                )
            result = task.result()
        if limits.max_result_bytes is not None and isinstance(result, CallToolResult):
            size = len(result.model_dump_json(by_alias=True, exclude_none=True))
            if size > limits.max_result_bytes:
                raise ToolError(
                    f"The result of {name} is {size} bytes, more than this server sends at once "
                    f"({limits.max_result_bytes}, REMEMBER_MAX_RESULT_BYTES): ask for less, e.g. a smaller "
                    "limit or token_budget."
                )
        return result

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._sdk_tools_changed = True  # the kept listing does not describe it
        super().add_tool(fn, *args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self._sdk_tools_changed = True
        if not self.tools.remove(name):
            super().remove_tool(name)

    # resources and prompts: the SDK's, and the user's templates

    async def list_resources(self) -> list[Resource]:
        from remember.mcp import catalog

        mine = await self._as_caller(lambda: catalog.resources(self.services, current_caller()))
        return [*await super().list_resources(), *mine]

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        from remember.mcp import catalog

        return [*await super().list_resource_templates(), *catalog.resource_templates()]

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[AppState, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        from remember.mcp import catalog

        try:
            found = await self._as_caller(lambda: catalog.read(self.services, current_caller(), str(uri)))
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        if found is None:
            return await super().read_resource(uri, context)
        text, mime_type = found
        return [ReadResourceContents(content=text, mime_type=mime_type)]

    async def list_prompts(self) -> list[Prompt]:
        from remember.mcp import catalog

        mine = await self._as_caller(lambda: catalog.prompts(self.services, current_caller()))
        return [*await super().list_prompts(), *mine]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[AppState, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        from remember.mcp import catalog

        found = await self._as_caller(lambda: catalog.prompt(self.services, current_caller(), name, arguments))
        if found is not None:
            return found
        if name in {p.name for p in await super().list_prompts()}:
            return await super().get_prompt(name, arguments, context)
        known = [p.name for p in await self.list_prompts()]
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown prompt {excerpt(name)}{suggestion(name, known) or '.'} Capture prompts are named "
            f"{catalog.PROMPT_PREFIX}<template>; prompts/list lists them.",
        )

    def _as_caller(self, work: Callable[[], T]) -> Awaitable[T]:
        """Run ``work`` in a worker thread, acting for the request's user."""
        user = self.identify()

        def run() -> T:
            with acting_as(user):
                return work()

        return anyio.to_thread.run_sync(run)


def build_server(
    services: Services | Callable[[], Services],
    identify: Callable[[], Caller | str],
    *,
    cache_dir: Path | None = None,
    limits: CallLimits = CallLimits(),
    **sdk: Any,
) -> RememberServer:
    """A server whose requests act for ``identify()`` (a user, or a user and a trust level) over ``services``
    (or over what ``services()`` builds on first use).

    With ``cache_dir`` the ``tools/list`` answer is kept there between starts (see ``listing.py``);
    ``sdk`` goes to ``MCPServer`` (its auth settings and token verifier, for HTTP).
    """
    source = Deferred(services)
    server = RememberServer(source, identify, ListingCache(cache_dir) if cache_dir else None, limits=limits, **sdk)
    context = ToolContext(source, caller=current_caller)
    server.tools.load_with(lambda: _register_tools(server, context))
    return server


def _register_tools(server: RememberServer, context: ToolContext) -> None:
    # Imported here: a server answering tools/list from its cache never loads them.
    from remember.mcp.tools import memories, preferences, relationships, search, suggestions, templates

    for module in (memories, search, templates, suggestions, preferences, relationships):
        module.register(server, context)
