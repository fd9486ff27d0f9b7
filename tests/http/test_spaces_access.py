"""Shared spaces over HTTP, each user with a real token, on SQLite and PostgreSQL: the access matrix.

Ann creates the space "Team" and makes Ada an admin, Wes a writer and Rey a reader; Max was a writer and
was removed; Ivy is invited and has not accepted; Nia belongs to no space; Tom has a space of his own also
named "Team". On a shared memory and
relationship, every space-aware tool is allowed exactly where the role allows it; otherwise the answer is
the one for an id or a space that does not exist (or, to a member who may read it, the role that is
missing), and the database is the same before and after. No member's personal memory reaches another.
"""

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

SHARED = "quokka"  # a word only the shared memories hold
USERS = ("ann", "ada", "wes", "rey", "max", "ivy", "nia", "tom")
ROLE = {"ann": "admin", "ada": "admin", "wes": "writer", "rey": "reader"}  # max, ivy, nia, tom: none
Team = tuple[dict[str, Client], dict[str, str]]  # each user's client, and the ids made
TABLES = ("spaces", "space_members", "space_invitations", "memories", "memory_history", "relationships",
          "relationship_members")  # fmt: skip


def fingerprint(store: Store) -> str:
    """Every row a space call could read or change (access counts included)."""
    with store.sql.reading() as s:
        return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES})


def said(result: Any) -> str:
    return text(result) + json.dumps(result.structured_content or {})


async def _clients(stack: AsyncExitStack, server: HttpServer, tokens: TokenService) -> dict[str, Client]:
    return {u: await stack.enter_async_context(connect(server, tokens.create(u).secret)) for u in USERS}


async def _setup(c: dict[str, Client]) -> dict[str, str]:
    """The space, its members, two shared memories and their relationship, and each user's personal secret."""
    space = ok(await c["ann"].call_tool("remember_manage_space", {"action": "create", "name": "Team"}))
    key = space["spaces"][0]["space"]
    for user, role in (("ada", "admin"), ("wes", "writer"), ("rey", "reader"), ("max", "writer")):
        ok(await c["ann"].call_tool("remember_manage_space",
                                    {"action": "add_member", "space": key, "user": user, "role": role}))  # fmt: skip
        ok(await c[user].call_tool("remember_manage_space", {"action": "accept", "space": key}))
    invited = {"action": "add_member", "space": key, "user": "ivy", "role": "writer"}
    ok(await c["ann"].call_tool("remember_manage_space", invited))  # never accepted: ivy is no member
    ok(await c["tom"].call_tool("remember_manage_space", {"action": "create", "name": "Team"}))
    first = ok(await c["wes"].call_tool("remember_create_memory", {"content": f"{SHARED} on Friday.", "space": "Team"}))
    second = ok(await c["ann"].call_tool("remember_create_memory", {"content": f"Zoe runs {SHARED}.", "space": key}))
    link = ok(await c["wes"].call_tool("remember_create_relationship", {
        "memory_ids": [first["id"], second["id"]], "relationship_type": "led_by", "space": key,
        "observation": f"who runs the {SHARED} launch"}))  # fmt: skip
    ok(await c["ann"].call_tool("remember_manage_space", {"action": "remove_member", "space": key, "user": "max"}))
    ids = {"space": key, "memory": first["id"], "other": second["id"], "link": link["id"]}
    for user in USERS:
        mine = ok(await c[user].call_tool("remember_create_memory", {"content": f"{user}'s private dentist note"}))
        ids[f"own:{user}"] = mine["id"]
    return ids


def _reads(ids: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    memory = ids["memory"]
    return [
        ("remember_get_memory", {"memory_id": memory, "include_history": True}),
        ("remember_get_related", {"memory_id": memory}),
        ("remember_find_similar", {"memory_id": memory, "min_similarity": -1}),
        ("remember_search_relationships", {"memory_id": memory}),
    ]


def _writes(ids: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    memory, key, link = ids["memory"], ids["space"], ids["link"]
    return [
        ("remember_update_memory", {"memory_id": memory, "title": "changed"}),
        ("remember_delete_memory", {"memory_id": memory}),
        ("remember_restore_memory", {"memory_id": memory}),
        ("remember_update_relationship", {"relationship_id": link, "strength": 0.9}),
        ("remember_create_memory", {"content": "another launch note", "space": key}),
        ("remember_create_relationship",
         {"memory_ids": [memory, ids["other"]], "relationship_type": "again", "space": key}),
    ]  # fmt: skip


def _unknown(tool: str, args: dict[str, Any], ids: dict[str, str]) -> str:
    """What a caller with no rights in the space must be told: exactly what a missing id or space gets."""
    if "space" in args:
        return "Unknown space"
    if "relationship_id" in args:
        return f"No relationship with id {ids['link']!r}"
    return f"No memory with id {ids['memory']!r}"


@pytest.fixture
async def team(
    http_server: HttpServer, tokens: TokenService
) -> AsyncIterator[tuple[dict[str, Client], dict[str, str]]]:
    async with AsyncExitStack() as stack:
        clients = await _clients(stack, http_server, tokens)
        yield clients, await _setup(clients)


async def test_each_role_is_allowed_exactly_what_it_may_do(team: Team, store: Store) -> None:
    clients, ids = team
    problems: list[str] = []
    for user in USERS:
        role, client = ROLE.get(user), clients[user]
        for tool, args in _reads(ids):
            before = fingerprint(store)
            result = await client.call_tool(tool, args)
            if role is not None and result.is_error:
                problems.append(f"{user} ({role}) {tool}: {said(result)[:200]}")
            if role is None and tool == "remember_search_relationships":
                if ids["link"] in said(result) or result.is_error:
                    problems.append(f"{user} {tool} showed the space's relationship: {said(result)[:200]}")
            elif role is None and not (result.is_error and _unknown(tool, args, ids) in said(result)):
                problems.append(f"{user} {tool} not unknown: {said(result)[:200]}")
            if role is None and fingerprint(store) != before:
                problems.append(f"{user} {tool} changed the database")
        for tool, args in _writes(ids):
            before = fingerprint(store)
            result = await client.call_tool(tool, args)
            if role in ("admin", "writer"):
                if result.is_error:
                    problems.append(f"{user} ({role}) {tool}: {said(result)[:200]}")
                continue
            expected = "You are a reader in space Team" if role == "reader" else _unknown(tool, args, ids)
            if not (result.is_error and expected in said(result)):
                problems.append(f"{user} ({role}) {tool} not refused with {expected!r}: {said(result)[:200]}")
            if fingerprint(store) != before:
                problems.append(f"{user} ({role}) {tool} changed the database")
    assert problems == []


async def test_only_admins_manage_and_others_do_not_learn_the_space_exists(team: Team, store: Store) -> None:
    clients, ids = team
    key = ids["space"]
    before = fingerprint(store)
    for user in ("wes", "rey"):
        result = await clients[user].call_tool(
            "remember_manage_space", {"action": "add_member", "space": key, "user": "nia", "role": "admin"}
        )
        assert result.is_error and f"you are a {ROLE[user]} there" in text(result)
    answers = set()
    for user in ("max", "nia"):
        for action, extra in (("add_member", {"user": user, "role": "admin"}), ("delete", {}), ("leave", {})):
            result = await clients[user].call_tool("remember_manage_space", {"action": action, "space": key, **extra})
            assert result.is_error
            answers.add(text(result))
    assert len(answers) == 1 and "Unknown space" in answers.pop()
    bad_role = await clients["ann"].call_tool(
        "remember_manage_space", {"action": "add_member", "space": key, "user": "nia", "role": "owner"}
    )
    assert bad_role.is_error and "role" in text(bad_role)
    last = await clients["tom"].call_tool("remember_manage_space", {"action": "leave", "space": "Team"})
    assert last.is_error and "last admin" in text(last)
    assert fingerprint(store) == before
    # Tom's "Team" is his own: the name reaches his space, never Ann's
    toms = ok(await clients["tom"].call_tool("remember_create_memory", {"content": "Tom's team note", "space": "Team"}))
    assert toms["space"] != key
    listed = ok(await clients["ann"].call_tool("remember_list_memories", {"spaces": [key]}))
    assert toms["id"] not in {m["id"] for m in listed["memories"]}


async def test_who_did_what_is_in_the_history(team: Team) -> None:
    clients, ids = team
    ok(await clients["ada"].call_tool("remember_update_memory", {"memory_id": ids["memory"], "title": "Launch"}))
    got = ok(
        await clients["rey"].call_tool("remember_get_memory", {"memory_id": ids["memory"], "include_history": True})
    )
    assert got["space"] == ids["space"] and got["created_by"] == "wes"
    assert [h.get("by") for h in got["history"]] == ["ada"]


async def test_a_members_personal_memories_never_reach_another(
    team: Team,
) -> None:
    clients, ids = team
    problems = []
    for user in USERS:
        client = clients[user]
        seen = said(await client.call_tool("remember_search_memory", {"query": "private dentist note", "limit": 50}))
        seen += said(await client.call_tool("remember_list_memories", {"limit": 100, "include_deleted": "include"}))
        seen += said(await client.call_tool("remember_find_similar", {"text": "private dentist note", "limit": 50}))
        asked = {"question": f"the private dentist note and the {SHARED} launch", "answer": False, "token_budget": 8000}
        seen += said(await client.call_tool("remember_query_memory", asked))
        for other in USERS:
            own = ids[f"own:{other}"]
            if other == user:
                if own not in seen:
                    problems.append(f"{user} does not see their own note")
                continue
            if own in seen or f"{other}'s private" in seen:
                problems.append(f"{user} saw {other}'s personal note")
            for tool in ("remember_get_memory", "remember_get_related", "remember_find_similar"):
                result = await client.call_tool(tool, {"memory_id": own})
                if not (result.is_error and f"No memory with id {own!r}" in text(result)):
                    problems.append(f"{user} {tool} on {other}'s note: {said(result)[:200]}")
        shared = ids["memory"] in seen
        if shared != (user in ROLE):
            problems.append(f"{user} {'sees' if shared else 'does not see'} the shared memory")
    assert problems == []


async def test_removing_a_member_and_deleting_the_space_take_effect_at_once(team: Team, store: Store) -> None:
    clients, ids = team
    wes = clients["wes"]
    ok(await wes.call_tool("remember_get_memory", {"memory_id": ids["memory"]}))
    ok(await clients["ann"].call_tool("remember_manage_space",
                                      {"action": "remove_member", "space": ids["space"], "user": "wes"}))  # fmt: skip
    gone = await wes.call_tool("remember_get_memory", {"memory_id": ids["memory"]})
    assert gone.is_error and "No memory with id" in text(gone)
    ok(await clients["ann"].call_tool("remember_manage_space", {"action": "delete", "space": ids["space"]}))
    for user in ("ann", "rey"):
        result = await clients[user].call_tool("remember_get_memory", {"memory_id": ids["memory"]})
        assert result.is_error and "No memory with id" in text(result)
    assert store.memories.get(ids["space"], ids["memory"]) is None


async def test_a_tokens_trust_level_applies_inside_a_space(
    team: Team, http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    clients, ids = team
    secret = ok(await clients["wes"].call_tool(
        "remember_create_memory", {"content": f"{SHARED} payroll figures", "trust": 0.9, "space": ids["space"]}
    ))  # fmt: skip
    before = fingerprint(store)
    async with connect(http_server, tokens.create("ann", trust_level=0.5).secret) as low:
        for tool, extra in (("remember_get_memory", {}), ("remember_update_memory", {"title": "x"}),
                            ("remember_delete_memory", {})):  # fmt: skip
            result = await low.call_tool(tool, {"memory_id": secret["id"], **extra})
            assert result.is_error and f"No memory with id {secret['id']!r}" in text(result), tool
        assert fingerprint(store) == before
        found = said(await low.call_tool("remember_search_memory", {"query": f"{SHARED} payroll"}))
        assert secret["id"] not in found and ids["memory"] in found


async def test_only_writers_delete_a_shared_relationship(team: Team, store: Store) -> None:
    clients, ids = team
    before = fingerprint(store)
    for user in ("rey", "max", "nia", "tom"):
        result = await clients[user].call_tool("remember_delete_relationship", {"relationship_id": ids["link"]})
        expected = "You are a reader in space Team" if user == "rey" else f"No relationship with id {ids['link']!r}"
        assert result.is_error and expected in text(result), user
    assert fingerprint(store) == before
    ok(await clients["wes"].call_tool("remember_delete_relationship", {"relationship_id": ids["link"]}))
    changed = {"relationship_id": ids["link"], "strength": 1}
    gone = await clients["ann"].call_tool("remember_update_relationship", changed)
    assert gone.is_error and "No relationship with id" in text(gone)


async def test_an_invitation_is_answered_over_http_by_the_invited_user_alone(team: Team, store: Store) -> None:
    clients, ids = team
    key = ids["space"]
    listed = ok(await clients["ivy"].call_tool("remember_manage_space", {"action": "list"}))
    assert listed.get("spaces", []) == [] and listed["invitations"] == [
        {"space": key, "name": "Team", "role": "writer", "invited_by": "ann"}
    ]
    admins = ok(await clients["ann"].call_tool("remember_manage_space", {"action": "list"}))
    [team_view] = [s for s in admins["spaces"] if s["space"] == key]
    assert team_view["invited"] == [{"user": "ivy", "role": "writer"}]
    before = fingerprint(store)
    for user in ("nia", "rey", "ann"):
        result = await clients[user].call_tool("remember_manage_space", {"action": "accept", "space": key})
        assert result.is_error and "No invitation to a space" in text(result), user
    assert fingerprint(store) == before
    joined = ok(await clients["ivy"].call_tool("remember_manage_space", {"action": "accept", "space": "Team"}))
    assert joined["spaces"][0]["role"] == "writer" and joined["message"] == "Joined."
    made = ok(await clients["ivy"].call_tool("remember_create_memory", {"content": "Ivy's note", "space": "Team"}))
    assert made["space"] == key and made["created_by"] == "ivy"
