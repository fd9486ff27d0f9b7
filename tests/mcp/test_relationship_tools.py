"""The relationship tools through a real MCP client (the SDK's), on both backends: the round trip,
memories answering with their links, other users' ids, trust, and bad input leaving nothing changed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.mcp.server import build_server
from remember.service import Services
from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio


async def _memories(client: Client, *texts: str, **extra: Any) -> list[str]:
    return [ok(await client.call_tool("remember_create_memory", {"content": t, **extra}))["id"] for t in texts]


async def _relate(client: Client, ids: list[str], kind: str, observation: str, **more: Any) -> dict[str, Any]:
    args = {"memory_ids": ids, "relationship_type": kind, "observation": observation, **more}
    return ok(await client.call_tool("remember_create_relationship", args))


async def test_the_round_trip(client: Client) -> None:
    sarah, tom, priya = await _memories(
        client, "Sarah leads the platform team at Google.", "Tom is a new engineer.", "Priya is a staff engineer."
    )
    made = await _relate(client, [sarah, tom], "manages", "Sarah manages Tom since March", strength=0.9)
    assert (made["memory_ids"], made["strength"], made["confidence"], made["version"]) == ([sarah, tom], 0.9, 0.8, 1)
    await _relate(client, [tom, priya], "mentored_by", "Priya mentors Tom on distributed systems")

    got = ok(await client.call_tool("remember_get_memory", {"memory_id": sarah}))
    assert got["relationships"] == [
        {"id": made["id"], "type": "manages", "observation": "Sarah manages Tom since March", "others": [tom],
         "strength": 0.9}
    ]  # fmt: skip
    bare = ok(await client.call_tool("remember_get_memory", {"memory_id": sarah, "include_relationships": False}))
    assert "relationships" not in bare
    hits = ok(await client.call_tool("remember_search_memory", {"query": "who leads the platform team"}))
    assert hits["results"][0]["memory"]["id"] == sarah and hits["results"][0]["relationships"][0]["others"] == [tom]
    similar = ok(await client.call_tool("remember_find_similar", {"memory_id": tom}))
    assert all(r["relationships"] for r in similar["results"])

    found = ok(await client.call_tool("remember_search_relationships", {"query": "mentoring", "alpha": 0}))
    assert found["results"][0]["relationship_type"] == "mentored_by" and found["results"][0]["score"] > 0
    listed = ok(await client.call_tool("remember_search_relationships", {"memory_id": sarah}))
    assert [r["id"] for r in listed["results"]] == [made["id"]] and listed["total"] == 1
    off_topic = {"query": "tracer bullets", "alpha": 1}
    assert ok(await client.call_tool("remember_search_relationships", off_topic))["results"] == []
    every = ok(await client.call_tool("remember_search_relationships", off_topic | {"min_score": -1}))
    assert len(every["results"]) == 2

    walk = ok(await client.call_tool("remember_get_related", {"memory_id": sarah, "depth": 2}))
    assert [(r["memory_id"], r["depth"]) for r in walk["related"]] == [(tom, 1), (priya, 2)]
    assert [s["type"] for s in walk["related"][1]["path"]] == ["manages", "mentored_by"]

    plain = ok(await client.call_tool("remember_query_memory", {"question": "Who leads the platform team?"}))
    pulled = ok(
        await client.call_tool(
            "remember_query_memory", {"question": "Who leads the platform team?", "include_related": True}
        )
    )
    assert pulled["sources"][0]["memory_id"] == sarah
    assert len(pulled["sources"]) >= len(plain["sources"])
    linked = [s for s in pulled["sources"] if "related_to" in s]
    assert linked and all(s["related_to"] == 1 for s in linked) and tom in [s["memory_id"] for s in linked]
    assert pulled["sources"][0]["relationships"][0]["id"] == made["id"]

    changed = ok(
        await client.call_tool(
            "remember_update_relationship", {"relationship_id": made["id"], "strength": 0.4, "reason": "less so"}
        )
    )
    assert changed["version"] == 2
    gone = ok(await client.call_tool("remember_delete_relationship", {"relationship_id": made["id"]}))
    assert gone["relationship_id"] == made["id"]
    again = error(await client.call_tool("remember_delete_relationship", {"relationship_id": made["id"]}))
    assert "No relationship with id" in again
    assert "relationships" not in ok(await client.call_tool("remember_get_memory", {"memory_id": sarah}))


async def test_the_lifecycle_through_the_tools(client: Client) -> None:
    a, b, c = await _memories(client, "alpha note", "beta note", "gamma note")
    trio = await _relate(client, [a, b, c], "group", "three notes together")
    ok(await client.call_tool("remember_delete_memory", {"memory_id": c}))
    hidden = ok(await client.call_tool("remember_search_relationships", {"query": "three notes"}))
    assert hidden["results"] == []
    ok(await client.call_tool("remember_restore_memory", {"memory_id": c}))
    assert ok(await client.call_tool("remember_search_relationships", {}))["total"] == 1
    ok(await client.call_tool("remember_delete_memory", {"memory_id": c, "permanent": True}))
    kept = ok(await client.call_tool("remember_search_relationships", {}))["results"]
    assert [(r["id"], r["memory_ids"]) for r in kept] == [(trio["id"], [a, b])]
    ok(await client.call_tool("remember_delete_memory", {"memory_id": b, "permanent": True}))
    assert ok(await client.call_tool("remember_search_relationships", {}))["total"] == 0


async def test_another_users_ids_are_unknown_and_nothing_changes(client: Client, bob: Client, db: Path) -> None:
    a, b = await _memories(client, "Alice's falcon plan", "Alice's falcon budget")
    rel = await _relate(client, [a, b], "about", "falcon plan and budget")
    (bobs,) = await _memories(bob, "Bob's note")
    before = fingerprint(db)
    unknown_link = f"No relationship with id {rel['id']!r}"
    for tool, args, says in [
        (
            "remember_create_relationship",
            {"memory_ids": [bobs, a], "relationship_type": "x"},
            f"No memory with id {a!r}",
        ),
        ("remember_update_relationship", {"relationship_id": rel["id"], "observation": "mine"}, unknown_link),
        ("remember_delete_relationship", {"relationship_id": rel["id"]}, unknown_link),
        ("remember_get_related", {"memory_id": a}, f"No memory with id {a!r}"),
    ]:
        assert says in error(await bob.call_tool(tool, args)), tool
    for args in ({"query": "falcon"}, {"memory_id": a}, {}):
        assert ok(await bob.call_tool("remember_search_relationships", args))["results"] == []
    assert fingerprint(db) == before


@pytest.fixture
async def guest(services: Services) -> AsyncIterator[Client]:
    async with Client(build_server(services, lambda: Caller("alice", 0.5))) as c:
        yield c


async def test_trust_hides_links_to_memories_above_the_level(client: Client, guest: Client) -> None:
    (high,) = await _memories(client, "falcon, confidential", trust=0.9)
    low, other = await _memories(client, "falcon, public", "falcon, also public", trust=0.2)
    secret = await _relate(client, [low, high], "about", "falcon secrets")
    public = await _relate(client, [low, other], "about", "falcon in public")
    assert f"No memory with id {high!r}" in error(
        await guest.call_tool("remember_create_relationship", {"memory_ids": [low, high], "relationship_type": "x"})
    )
    got = ok(await guest.call_tool("remember_get_memory", {"memory_id": low}))
    assert [r["id"] for r in got["relationships"]] == [public["id"]]
    found = ok(await guest.call_tool("remember_search_relationships", {"query": "falcon"}))
    assert [r["id"] for r in found["results"]] == [public["id"]]
    walk = ok(await guest.call_tool("remember_get_related", {"memory_id": low, "depth": 3}))
    assert [r["memory_id"] for r in walk["related"]] == [other]
    for tool in ("remember_update_relationship", "remember_delete_relationship"):
        said = error(await guest.call_tool(tool, {"relationship_id": secret["id"]}))
        assert f"No relationship with id {secret['id']!r}" in said
    assert json.dumps(walk).count(high) == 0


async def test_relationship_count_counts_only_the_links_a_caller_sees(client: Client, guest: Client) -> None:
    (high,) = await _memories(client, "falcon, confidential", trust=0.9)
    lone, linked, other = await _memories(client, "falcon, public", "falcon, linked", "falcon, other", trust=0.2)
    await _relate(client, [lone, high], "about", "falcon secrets")  # lone's only link is to a hidden memory
    await _relate(client, [linked, other], "about", "falcon in public")

    async def counted(caller: Client, condition: dict[str, Any]) -> set[str]:
        listed = ok(await caller.call_tool("remember_list_memories", {"filters": {"relationship_count": condition}}))
        return {m["id"] for m in listed["memories"]}

    assert await counted(client, {"gte": 1}) == {lone, high, linked, other}
    assert await counted(guest, {"gte": 1}) == {linked, other}
    assert lone in await counted(guest, {"eq": 0})
    assert await counted(guest, {"in": [1]}) == {linked, other}
    unlinked = {"query": "falcon", "filters": {"relationship_count": {"eq": 0}}}
    found = ok(await guest.call_tool("remember_search_memory", unlinked))
    assert lone in {h["memory"]["id"] for h in found["results"]}


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("remember_create_relationship", {"memory_ids": ["{a}"], "relationship_type": "x"}, "2 to 20"),
    ("remember_create_relationship", {"memory_ids": ["{a}", "{a}"], "relationship_type": "x"}, "only once"),
    ("remember_create_relationship", {"memory_ids": ["{a}", "{b}"]}, "relationship_type"),
    ("remember_create_relationship", {"memory_ids": ["{a}", "{b}"], "relationship_type": " "}, "must not be empty"),
    ("remember_create_relationship", {"memory_ids": ["{a}", "{b}"], "relationship_type": "x" * 101}, "limit is 100"),
    (
        "remember_create_relationship",
        {"memory_ids": ["{a}", "{b}"], "relationship_type": "x", "observation": "y" * 1_000_000},
        "limit is 10000",
    ),
    (
        "remember_create_relationship",
        {"memory_ids": ["{a}", "{b}"], "relationship_type": "x", "strength": 1.5},
        "strength must be a number from 0 to 1",
    ),
    (
        "remember_create_relationship",
        {"memory_ids": ["{a}", "{b}"], "relationship_type": "x", "confidence": "high"},
        "confidence",
    ),
    ("remember_create_relationship", {"memory_ids": ["{a}", "x\x00y"], "relationship_type": "x"}, "memory_ids[1]"),
    (
        "remember_create_relationship",
        {"memory_ids": ["{a}", "'; DROP TABLE memories; --"], "relationship_type": "x"},
        "No memory with id",
    ),
    ("remember_create_relationship", {"memory_ids": ["{a}"] * 21, "relationship_type": "x"}, "2 to 20"),
    ("remember_create_relationship", {"memory_ids": "{a}", "relationship_type": "x"}, "memory_ids"),
    ("remember_update_relationship", {"relationship_id": "nope", "strength": 0.2}, "No relationship with id"),
    ("remember_update_relationship", {"relationship_id": "{rel}", "memory_ids": ["{a}"]}, "2 to 20"),
    ("remember_update_relationship", {"relationship_id": "{rel}", "reason": "r" * 5_000}, "reason"),
    ("remember_update_relationship", {"strength": 0.2}, "relationship_id"),
    ("remember_delete_relationship", {"relationship_id": ""}, "relationship_id must be an id"),
    ("remember_search_relationships", {"query": "x", "alpha": 2}, "alpha must be a number from 0 to 1"),
    ("remember_search_relationships", {"limit": 0}, "limit must be a whole number from 1 to 100"),
    ("remember_search_relationships", {"query": "x", "min_score": -2}, "min_score must be a number from -1 to 1"),
    ("remember_search_relationships", {"created_after": "last tuesday"}, "created_after"),
    ("remember_search_relationships", {"types": ["t"] * 50}, "types must be a list of 1 to 20"),
    ("remember_search_relationships", {"query": "q" * 10_000}, "limit is 2000"),
    ("remember_get_related", {"memory_id": "{a}", "depth": 4}, "depth must be a whole number from 1 to 3"),
    ("remember_get_related", {"memory_id": "{a}", "min_strength": -1}, "min_strength"),
    ("remember_get_related", {"memory_id": "nope"}, "No memory with id"),
    ("remember_list_memories", {"filters": {"relationship_count": {"gte": -2}}}, "whole number of relationships"),
]


@pytest.mark.parametrize(("tool", "args", "says"), BAD_CALLS)
async def test_bad_input_is_explained_and_changes_nothing(
    client: Client, db: Path, tool: str, args: dict[str, Any], says: str
) -> None:
    a, b = await _memories(client, "first", "second")
    rel = await _relate(client, [a, b], "pair", "a pair")
    given = json.loads(json.dumps(args).replace("{a}", a).replace("{b}", b).replace("{rel}", rel["id"]))
    before = fingerprint(db)
    message = error(await client.call_tool(tool, given))
    assert says in message, message
    assert len(message) < 3_000
    assert fingerprint(db) == before
