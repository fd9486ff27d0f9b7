"""The MCP tools: plain functions, one module per group, each module listing its own in ``TOOLS``.

A tool takes the request's ``Context`` (the SDK injects it and leaves it out of the
tool's parameters) and reads from it the services and the caller it passes first to
every service call (``state.services_of``, ``state.caller_of``). Its docstring is what
a model reads about it, its parameters are described once where several tools share
them (``params.py``), and its annotations say only what differs from MCP's defaults
(``hints.py``). A tool's name, description and parameters must not depend on settings
or stored data: the server keeps the ``tools/list`` answer between starts (``listing.py``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable


def add_all(add_tool: Callable[..., None]) -> None:
    """Register every tool through ``add_tool`` (the SDK's ``MCPServer.add_tool``). The modules are
    imported first: one that fails to import registers nothing."""
    from remember.mcp.tools import memories, preferences, relationships, search, suggestions, templates

    for module in (memories, search, templates, suggestions, preferences, relationships):
        for fn, hints in module.TOOLS:
            # No display title: clients show the name, and every byte of the list is in the model's context.
            add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints, structured_output=True)
