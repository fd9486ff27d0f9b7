"""MCP tools in shared spaces through a real in-memory client, on both backends: how a space that is not the
caller's is answered, and the reads that take ``spaces``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.service import Services
from support import error, ok

pytestmark = pytest.mark.anyio


def rows(services: Services) -> str:
    with services.store.sql.reading() as s:
        tables = ("spaces", "space_members", "memories", "relationships", "relationship_history")
        return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in tables})


def team(services: Services) -> str:
    """Bob's space Team, where Alice writes."""
    key = services.spaces.create(Caller("bob"), "Team").space.key
    services.spaces.add_member(Caller("bob"), key, "alice", "writer")
    services.spaces.accept(Caller("alice"), key)
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


async def test_relationships_are_made_where_their_memories_are_and_searched_in_every_space(
    client: Client, bob: Client, services: Services
) -> None:
    key = team(services)
    first = ok(await client.call_tool("remember_create_memory", {"content": "Atlas ships Friday", "space": key}))
    second = ok(await bob.call_tool("remember_create_memory", {"content": "Zoe leads Atlas", "space": "Team"}))
    pair = {"memory_ids": [first["id"], second["id"]], "relationship_type": "led_by", "observation": "Atlas lead"}
    link = ok(await client.call_tool("remember_create_relationship", pair))
    mine = [ok(await client.call_tool("remember_create_memory", {"content": t}))["id"] for t in ("Atlas book", "Shelf")]
    own = ok(await client.call_tool("remember_create_relationship", {
        "memory_ids": mine, "relationship_type": "kept_on", "observation": "Atlas book on a shelf"}))  # fmt: skip
    found = ok(await client.call_tool("remember_search_relationships", {"query": "Atlas"}))
    assert {r["id"]: r.get("space") for r in found["results"]} == {link["id"]: key, own["id"]: None}
    only = ok(await client.call_tool("remember_search_relationships", {"query": "Atlas", "spaces": ["personal"]}))
    assert _ids(only) == {own["id"]}
    assert _ids(ok(await bob.call_tool("remember_search_relationships", {}))) == {link["id"]}
    before = rows(services)
    for args, said in (
        ({"memory_ids": [first["id"], mine[0]], "relationship_type": "x"}, "in 2 spaces (Team, personal)"),
        ({"memory_ids": [first["id"], second["id"]], "relationship_type": "x", "space": "personal"}, "No memory"),
        ({"memory_ids": [first["id"]] * 21, "relationship_type": "x"}, "2 to 20 memory ids"),
    ):
        assert said in error(await client.call_tool("remember_create_relationship", args))
    relinked = {"relationship_id": link["id"], "memory_ids": mine}
    said = error(await client.call_tool("remember_update_relationship", relinked))
    assert "These memories are in your personal space, and the relationship in space Team" in said
    assert "Unknown space" in error(
        await bob.call_tool("remember_search_relationships", {"spaces": ["personal", "~0123456789abcdef"]})
    )
    assert rows(services) == before
    services.spaces.set_role(Caller("bob"), key, "alice", "reader")
    before = rows(services)
    assert "You are a reader in space Team" in error(await client.call_tool("remember_create_relationship", {
        "memory_ids": [first["id"], second["id"]], "relationship_type": "again"}))  # fmt: skip
    assert rows(services) == before
