"""The MCP server: every tool, over one set of services, for the calling user.

The tools (``tools/``), the template resources and the elicitation and sampling
resolvers are registered on the SDK's ``MCPServer`` with its own API and read the
services and the caller from the lifespan state (``state.py``). What the SDK lacks
is added by overriding its public methods, and only those:

- ``list_tools``: the answer is compact (``compact.py``) and kept between starts
  (``listing.py``); a tool is registered the first time it is called, so a start whose
  listing is kept imports no tool module and builds no pydantic model, and a first call
  builds only its own tool's.
- ``call_tool``: an unknown argument name is refused and an argument error explained
  by parameter (``arguments.py``); a ``RememberError`` answers ``isError`` with its
  message; a result leaves out what is empty and its text is the same object as compact
  JSON (``results.py``); a call is held to the time and size limits of ``CallLimits``.
- ``list_resources``, ``list_prompts``, ``get_prompt``: the SDK lists what was
  registered, the same for everyone; these add the user's own templates (``catalog.py``).

With ``warm_up`` (the stdio server), what a first call waits for is made ready on a thread of
its own (``warmup.py``) once ``tools/list`` is answered, or from the first call if it comes first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, GetPromptResult, InputRequiredResult, Prompt, Resource, Tool
from pydantic import ValidationError

from remember import __version__, deadline
from remember.caller import Caller
from remember.errors import RememberError, UnknownSpace, excerpt
from remember.mcp import catalog, tools
from remember.mcp.arguments import explained, suggestion, unknown_parameters
from remember.mcp.compact import compact_output, compact_tool
from remember.mcp.listing import ListingCache
from remember.mcp.results import in_brief
from remember.mcp.state import AppState, Deferred
from remember.mcp.warmup import WarmUp

if TYPE_CHECKING:
    from remember.service import Services

INSTRUCTIONS = """\
remember is the user's long-term memory. Store what the user will want recalled later
(people, meetings, books, projects, decisions, facts) with remember_create_memory. Before
answering about the user's past, people, plans or preferences, look it up with
remember_search_memory (by meaning and keywords, with filters on template fields), or
remember_query_memory for a question's memories packed with numbered sources;
remember_list_memories browses by type, tags and date. Memories are private to the user."""

Answer = CallToolResult | InputRequiredResult
T = TypeVar("T")
#: How long after answering ``tools/list`` the warm-up begins: the answer is on its way to the client first.
WARM_UP_AFTER_LISTING = 0.05


@dataclass(frozen=True)
class CallLimits:
    """How long a tool call may take (seconds) and how large its result may be (bytes); None: no limit."""

    timeout: float | None = None
    max_result_bytes: int | None = None


class RememberServer(MCPServer[AppState]):
    """MCPServer whose tools are each registered on first use (listed from ``listing_cache`` until then),
    whose resources and prompts also list the user's templates, and whose every request acts for
    the user ``identify`` returns."""

    def __init__(
        self,
        services: Deferred,
        identify: Callable[[], Caller | str],
        listing_cache: ListingCache | None,
        *,
        limits: CallLimits = CallLimits(),
        warm_up: bool = False,
        **sdk: Any,
    ) -> None:
        self.state = AppState(services, identify)
        self.warm_up = WarmUp(self._first_call_needs() if warm_up else ())

        @asynccontextmanager
        async def lifespan(_: MCPServer[AppState]) -> AsyncIterator[AppState]:
            try:
                yield self.state
            finally:
                self.warm_up.stop()

        super().__init__("remember", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan, **sdk)
        self.limits = limits
        self.listing_cache = listing_cache
        self._registered: set[str] = set()  # those of remember's own tools on the SDK
        self._listing: list[Tool] | None = None
        self._whole: dict[str, dict[str, Any] | None] = {}  # by tool name: its whole result schema, compact
        self._kept = listing_cache is not None  # False once tools are added or removed from outside
        catalog.add_template_resources(self)

    @property
    def services(self) -> Services:
        return self.state.services

    @property
    def registered(self) -> frozenset[str]:
        """The names of remember's tools registered on the SDK so far."""
        return frozenset(self._registered)

    @property
    def tools_registered(self) -> bool:
        """Whether every one of remember's tools is registered on the SDK."""
        return self._registered.issuperset(tools.NAMES)

    # tools

    async def list_tools(self) -> list[Tool]:
        if self._listing is None:
            kept = self.listing_cache.load() if self.listing_cache is not None and self._kept else None
            self._listing = kept if kept is not None else await self._described()
        if self.warm_up.pending:
            asyncio.get_running_loop().call_later(WARM_UP_AFTER_LISTING, self.warm_up.start)
        return self._listing

    def _first_call_needs(self) -> list[Callable[[], object]]:
        """What the first ``remember_create_memory`` waits for. Importing the suggestion engine comes before loading
        the model, which runs mostly outside the GIL: when a call is already loading it, the two overlap."""

        def engine() -> None:  # the services built, and the suggestion engine imported
            self.services.suggestions.prototypes()

        def model() -> None:
            self.services.indexer.load_model()

        def builtins() -> None:
            self.services.suggestions.ready_builtins()

        return [partial(tools.import_modules, ["remember_create_memory"]), engine, model, builtins]

    async def _described(self) -> list[Tool]:
        self._register(tools.NAMES)
        order = {name: index for index, name in enumerate(tools.NAMES)}  # the SDK lists them as they were registered
        described = sorted(await super().list_tools(), key=lambda tool: order.get(tool.name, len(order)))
        listing = [compact_tool(tool) for tool in described]
        if self.listing_cache is not None and self._kept:
            self.listing_cache.save(listing)
        return listing

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[AppState, Any] | None = None
    ) -> Answer:
        listed = {tool.name: tool for tool in await self.list_tools()}
        tool = listed.get(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name}{suggestion(name, list(listed))}")
        refused = unknown_parameters(name, tool.input_schema, arguments)
        if refused:
            raise ToolError(refused)
        self.warm_up.start()
        await anyio.to_thread.run_sync(self.warm_up.wait)
        self._register((name,))
        return await _within(self.limits, name, self._run(tool, arguments, context))

    async def _run(self, tool: Tool, given: dict[str, Any], context: Context[AppState, Any] | None) -> Answer:
        """The SDK's call, its result in brief (``results.py``), argument errors explained and the project's
        errors given by their message."""
        try:
            answer = await super().call_tool(tool.name, given, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(explained(tool.name, tool.input_schema, cause)) from cause
            if isinstance(cause, UnknownSpace):
                said = cause.listed_by("remember_manage_space, action list")
                raise ToolError(f"Error executing tool {tool.name}: {said}") from cause
            if isinstance(cause, RememberError):  # the SDK would hide its message as an unexpected error's
                raise ToolError(f"Error executing tool {tool.name}: {cause}") from cause
            raise
        return in_brief(answer, await self._whole_output(tool)) if isinstance(answer, CallToolResult) else answer

    async def _whole_output(self, tool: Tool) -> dict[str, Any] | None:
        """The schema a result is pruned by: the listed one without leaving out detail properties (a
        result leaves out a detail property that is empty just as it does a main one)."""
        if tool.name not in self._whole:
            registered = {t.name: t for t in await super().list_tools()}
            found = registered.get(tool.name)
            schema = found.output_schema if found is not None else None
            self._whole[tool.name] = compact_output(schema, lean=False) if schema is not None else None
        return self._whole[tool.name]

    def _register(self, names: Collection[str]) -> None:
        """Register those of ``names`` that are remember's tools and not registered yet."""
        missing = [name for name in names if name in tools.NAMES and name not in self._registered]
        if missing:
            tools.add(super().add_tool, missing)
            self._registered.update(missing)

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._changed()
        super().add_tool(fn, *args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self._changed()
        super().remove_tool(name)

    def _changed(self) -> None:
        """Tools added or removed from outside: the kept listing no longer describes this server."""
        self._register(tools.NAMES)  # remember's own come first
        self._kept = False
        self._listing = None
        self._whole.clear()

    # resources and prompts: the SDK's, and the user's templates

    async def list_resources(self) -> list[Resource]:
        return [*await super().list_resources(), *await self._mine(catalog.resources)]

    async def list_prompts(self) -> list[Prompt]:
        return [*await super().list_prompts(), *await self._mine(catalog.prompts)]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[AppState, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        found = await self._mine(lambda services, caller: catalog.prompt(services, caller, name, arguments))
        if found is not None:
            return found
        if name in {p.name for p in await super().list_prompts()}:
            return await super().get_prompt(name, arguments, context)
        known = [p.name for p in await self.list_prompts()]
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown prompt {excerpt(name)}{suggestion(name, known) or '.'} Capture prompts are "
            f"named {catalog.PROMPT_PREFIX}<template>; prompts/list lists them.",
        )

    async def _mine(self, read: Callable[[Services, Caller], T]) -> T:
        """What ``read`` finds for the request's caller, in a worker thread (it reads the database, and
        may first build the services)."""
        caller = self.state.caller()
        return await anyio.to_thread.run_sync(lambda: read(self.services, caller))


async def _within(limits: CallLimits, name: str, call: Awaitable[Answer]) -> Answer:
    """The call's result, unless it takes longer than the time limit or is larger than the size limit."""
    if limits.timeout is None:
        result = await call
    else:
        # A task of its own: a tool running in a worker thread cannot be cancelled, but the
        # client need not wait for it.
        with deadline.limit(limits.timeout):  # the task, and the threads it starts, stop once it has passed
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


def _discard(task: asyncio.Future[Any]) -> None:
    """Collect the outcome of a call given up on, so that its error (if any) is not reported as lost."""
    if not task.cancelled():
        task.exception()


def build_server(
    services: Services | Callable[[], Services],
    identify: Callable[[], Caller | str],
    *,
    cache_dir: Path | None = None,
    limits: CallLimits = CallLimits(),
    warm_up: bool = False,
    **sdk: Any,
) -> RememberServer:
    """A server whose requests act for ``identify()`` (a user, or a user and a trust level) over ``services``
    (or over what ``services()`` builds on first use).

    With ``cache_dir`` the ``tools/list`` answer is kept there between starts (see ``listing.py``); with
    ``warm_up`` what a first call waits for is made ready in the background (``warmup.py``); ``sdk`` goes to
    ``MCPServer`` (its auth settings and token verifier, for HTTP).
    """
    cache = ListingCache(cache_dir) if cache_dir else None
    return RememberServer(Deferred(services), identify, cache, limits=limits, warm_up=warm_up, **sdk)
