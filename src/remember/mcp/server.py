"""The MCP server: every tool, over one set of services, for the calling user."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp_types import GetPromptResult, InputRequiredResult, Prompt, Resource, ResourceTemplate, Tool
from pydantic import AnyUrl

from remember import __version__
from remember.errors import NotFound
from remember.mcp.listing import ListingCache
from remember.mcp.registry import ToolContext, tools_of
from remember.service import Services

INSTRUCTIONS = """\
remember is the user's long-term memory. Store what the user will want recalled later
(people, meetings, books, projects, decisions, facts) with remember_create_memory, and
look things up before answering questions about the user's past with
remember_list_memories. Memories are private to the user."""


class RememberServer(MCPServer):
    """MCPServer whose resources and prompts also list the user's templates, as they change,
    and whose tools are built on first use (described from ``listing_cache`` when it has them)."""

    def __init__(self, services: Services, user: Callable[[], str], listing_cache: ListingCache | None) -> None:
        super().__init__("remember", version=__version__, instructions=INSTRUCTIONS)
        self.services = services
        self.user = user
        self.listing_cache = listing_cache
        tools_of(self)

    async def list_tools(self) -> list[Tool]:
        return tools_of(self).listing(self.listing_cache)

    async def list_resources(self) -> list[Resource]:
        from remember.mcp import catalog

        mine = await anyio.to_thread.run_sync(catalog.resources, self.services, self.user())
        return [*await super().list_resources(), *mine]

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        from remember.mcp import catalog

        return [*await super().list_resource_templates(), *catalog.resource_templates()]

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        from remember.mcp import catalog

        try:
            found = await anyio.to_thread.run_sync(catalog.read, self.services, self.user(), str(uri))
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        if found is None:
            return await super().read_resource(uri, context)
        text, mime_type = found
        return [ReadResourceContents(content=text, mime_type=mime_type)]

    async def list_prompts(self) -> list[Prompt]:
        from remember.mcp import catalog

        mine = await anyio.to_thread.run_sync(catalog.prompts, self.services, self.user())
        return [*await super().list_prompts(), *mine]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        from remember.mcp import catalog

        found = await anyio.to_thread.run_sync(catalog.prompt, self.services, self.user(), name, arguments)
        if found is None:
            return await super().get_prompt(name, arguments, context)
        return found


def build_server(services: Services, user: Callable[[], str], *, cache_dir: Path | None = None) -> MCPServer:
    """A server whose tools act for ``user()`` over ``services``.

    With ``cache_dir`` the ``tools/list`` answer is kept there between starts (see ``listing.py``).
    """
    server = RememberServer(services, user, ListingCache(cache_dir) if cache_dir else None)
    context = ToolContext(services=services, user=user)
    tools_of(server).load_with(lambda: _register_tools(server, context))
    return server


def _register_tools(server: MCPServer, context: ToolContext) -> None:
    # Imported here: a server answering tools/list from its cache never loads them.
    from remember.mcp.tools import memories, preferences, search, suggestions, templates

    for module in (memories, search, templates, suggestions, preferences):
        module.register(server, context)
