"""The MCP server: every tool, over one set of services, for the calling user."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp_types import GetPromptResult, InputRequiredResult, Prompt, Resource, ResourceTemplate
from pydantic import AnyUrl

from remember import __version__
from remember.errors import NotFound
from remember.mcp import catalog
from remember.mcp.registry import ToolContext
from remember.mcp.tools import memories, preferences, search, suggestions, templates
from remember.service import Services

INSTRUCTIONS = """\
remember is the user's long-term memory. Store what the user will want recalled later
(people, meetings, books, projects, decisions, facts) with remember_create_memory, and
look things up before answering questions about the user's past with
remember_list_memories. Memories are private to the user."""


class RememberServer(MCPServer):
    """MCPServer whose resources and prompts also list the user's templates, as they change."""

    def __init__(self, services: Services, user: Callable[[], str]) -> None:
        super().__init__("remember", version=__version__, instructions=INSTRUCTIONS)
        self.services = services
        self.user = user

    async def list_resources(self) -> list[Resource]:
        mine = await anyio.to_thread.run_sync(catalog.resources, self.services, self.user())
        return [*await super().list_resources(), *mine]

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        return [*await super().list_resource_templates(), *catalog.resource_templates()]

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        try:
            found = await anyio.to_thread.run_sync(catalog.read, self.services, self.user(), str(uri))
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        if found is None:
            return await super().read_resource(uri, context)
        text, mime_type = found
        return [ReadResourceContents(content=text, mime_type=mime_type)]

    async def list_prompts(self) -> list[Prompt]:
        mine = await anyio.to_thread.run_sync(catalog.prompts, self.services, self.user())
        return [*await super().list_prompts(), *mine]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        found = await anyio.to_thread.run_sync(catalog.prompt, self.services, self.user(), name, arguments)
        if found is None:
            return await super().get_prompt(name, arguments, context)
        return found


def build_server(services: Services, user: Callable[[], str]) -> MCPServer:
    """A server whose tools act for ``user()`` over ``services``."""
    server = RememberServer(services, user)
    context = ToolContext(services=services, user=user)
    for module in (memories, search, templates, suggestions, preferences):
        module.register(server, context)
    return server
