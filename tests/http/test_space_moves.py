"""Moving a memory into a space over HTTP (`space` on remember_update_memory), with real tokens, on SQLite and
PostgreSQL: who may, what the history says, and that every refusal leaves the database as it was."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from mcp import Client

from http_support import HttpServer, connect
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

Clients = dict[str, Client]
TABLES = ("spaces", "space_members", "memories", "memory_history", "memory_tags", "relationships")


def fingerprint(store: Store) -> str:
    with store.sql.reading() as s:
        return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES})


def said(result: Any) -> str:
    return text(result) + json.dumps(result.structured_content or {})


@pytest.fixture
async def clients(http_server: HttpServer, tokens: TokenService) -> AsyncIterator[Clients]:
    async with AsyncExitStack() as stack:
        made = {
            u: await stack.enter_async_context(connect(http_server, tokens.create(u).secret)) for u in ("ann", "rey")
        }
        space = {"action": "create", "name": "Team"}
        key = ok(await made["ann"].call_tool("remember_manage_space", space))["spaces"][0]["space"]
        add = {"action": "add_member", "space": key, "user": "rey", "role": "reader"}
        ok(await made["ann"].call_tool("remember_manage_space", add))
        ok(await made["rey"].call_tool("remember_manage_space", {"action": "accept", "space": key}))
        yield made


async def test_a_move_over_http_keeps_the_id_and_records_who_moved_it(clients: Clients) -> None:
    ann, rey = clients["ann"], clients["rey"]
    own = ok(await ann.call_tool("remember_create_memory", {"content": "The narwhal plan"}))
    moved = ok(await ann.call_tool("remember_update_memory", {"memory_id": own["id"], "space": "Team"}))
    assert moved["id"] == own["id"] and moved["space"].startswith("~")
    got = ok(await rey.call_tool("remember_get_memory", {"memory_id": own["id"], "include_history": True}))
    assert got["history"][0]["action"] == "move" and got["history"][0]["by"] == "ann"
    assert got["history"][0]["previous"] == {"space": "personal"}


async def test_refused_moves_change_nothing(clients: Clients, store: Store) -> None:
    ann, rey = clients["ann"], clients["rey"]
    own = ok(await ann.call_tool("remember_create_memory", {"content": "Ann's narwhal note"}))
    shared = ok(await ann.call_tool("remember_create_memory", {"content": "Team narwhal note", "space": "Team"}))
    rey_own = ok(await rey.call_tool("remember_create_memory", {"content": "Rey's narwhal note"}))
    cases = [
        (rey, {"memory_id": shared["id"], "space": "personal"}, "You are a reader in space Team"),
        (ann, {"memory_id": rey_own["id"], "space": "Team"}, "No memory with id"),
        (rey, {"memory_id": own["id"], "space": "personal"}, "No memory with id"),
        (rey, {"memory_id": rey_own["id"], "space": "Team"}, "You are a reader in space Team"),
        (ann, {"memory_id": own["id"], "space": "Nowhere"}, "Unknown space"),
        (ann, {"memory_id": own["id"], "space": "~0123456789abcdef"}, "Unknown space"),
        (ann, {"memory_id": own["id"], "space": "Team", "title": "x"}, "Give space alone"),
        (ann, {"memory_id": own["id"], "space": "personal"}, "in space personal already"),
        (ann, {"memory_id": own["id"], "space": "T" * 50_000}, "Unknown space"),
        (ann, {"memory_id": own["id"], "space": "Team", "reason": "r" * 50_000}, "reason"),
    ]
    problems = []
    for client, args, expected in cases:
        before = fingerprint(store)
        result = await client.call_tool("remember_update_memory", args)
        if not (result.is_error and expected in text(result)):
            problems.append(f"{args}: not refused with {expected!r}: {said(result)[:200]}")
        if fingerprint(store) != before:
            problems.append(f"{args} changed the database")
    assert problems == []
