"""Search as a client does: ``remember_search_memory`` through an MCP client session, in this process.

The retrieval benchmarks score the search a client gets: its arguments parsed and checked by the
tool, the service's search, and the tool's structured answer. The server runs in this process over
the benchmark's services (so the cached vectors serve it), one session for the whole run, acting for
whichever user a call names. ``bench/stdio.py`` is the same over a real subprocess.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp import Client

from remember.mcp.server import build_server


class ToolSearch:
    """``remember_search_memory`` for any user, from synchronous code."""

    def __init__(self, call: Any, acting: dict[str, str]) -> None:
        self._call = call
        self._acting = acting

    def search(self, user: str, query: str, **arguments: Any) -> list[str]:
        """The ids the tool answers for ``user``'s ``query`` (best first); ``arguments``: the tool's others."""
        self._acting["user"] = user
        result = self._call("remember_search_memory", {"query": query, **arguments})
        if result.is_error or result.structured_content is None:
            raise RuntimeError(f"remember_search_memory failed: {result.content}")
        return [r["memory"]["id"] for r in result.structured_content["results"]]


@contextmanager
def tool_search(services: Any) -> Iterator[ToolSearch]:
    """An MCP client session with a server over ``services``, open while the block runs."""
    from anyio.from_thread import start_blocking_portal

    acting = {"user": ""}
    server = build_server(services, lambda: acting["user"])
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server)) as client:

        def call(name: str, arguments: dict[str, Any]) -> Any:
            return portal.call(client.call_tool, name, arguments)

        yield ToolSearch(call, acting)
