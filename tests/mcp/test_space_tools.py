"""MCP tools in shared spaces through a real in-memory client, on both backends: how a space that is not the
caller's is answered, and the reads that take ``spaces``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.service import Services
from support import error

pytestmark = pytest.mark.anyio


def rows(services: Services) -> str:
    with services.store.sql.reading() as s:
        tables = ("spaces", "space_members", "memories", "relationships", "relationship_history")
        return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in tables})


def team(services: Services) -> str:
    """Bob's space Team, where Alice writes."""
    key = services.spaces.create(Caller("bob"), "Team").space.key
    services.spaces.add_member(Caller("bob"), key, "alice", "writer")
    return key


async def test_an_unknown_space_says_how_to_list_yours_in_the_tools_words(client: Client, services: Services) -> None:
    key = team(services)
    services.spaces.remove_member(Caller("bob"), key, "alice")
    before = rows(services)
    for tool, args in (("remember_create_memory", {"content": "x", "space": key}),
                       ("remember_search_memory", {"query": "x", "spaces": ["Team"]}),
                       ("remember_list_memories", {"spaces": ["~0123456789abcdef"]})):  # fmt: skip
        said = error(await client.call_tool(tool, args))
        assert "Unknown space" in said and "List yours with remember_manage_space, action list." in said, said
        assert "remember space list" not in said
    assert rows(services) == before


def _ids(found: dict[str, Any]) -> set[str]:
    return {r["id"] for r in found["results"]}
