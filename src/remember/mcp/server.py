"""The MCP server: every tool, over one set of services, for the calling user."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver import MCPServer

from remember import __version__
from remember.mcp.registry import ToolContext
from remember.mcp.tools import memories, preferences
from remember.service import Services

INSTRUCTIONS = """\
remember is the user's long-term memory. Store what the user will want recalled later
(people, meetings, books, projects, decisions, facts) with remember_create_memory, and
look things up before answering questions about the user's past with
remember_list_memories. Memories are private to the user."""


def build_server(services: Services, user: Callable[[], str]) -> MCPServer:
    """A server whose tools act for ``user()`` over ``services``."""
    server: MCPServer = MCPServer("remember", version=__version__, instructions=INSTRUCTIONS)
    context = ToolContext(services=services, user=user)
    for module in (memories, preferences):
        module.register(server, context)
    return server
