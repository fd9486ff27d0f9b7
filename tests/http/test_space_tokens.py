"""Tokens limited to spaces, over HTTP with real tokens, on SQLite and PostgreSQL.

Ann has her personal space and two shared spaces, "Team" (Wes a writer there) and "Side". A token of hers
limited to Team reads and writes Team only: every other space is answered as one that does not exist, an id
of another space as an id that does not exist, the personal space's own tools are refused, and the database
is the same before and after each refusal. The limit reaches OAuth access granted through such a token and
tokens made with it; removing a member or deleting a space takes effect on the next request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx2
import pytest
from mcp import Client

from http_support import HttpServer, connect
from oauth_support import Callback, Flow
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TABLES = (
    "spaces", "space_members", "memories", "memory_history", "relationships", "relationship_members",
    "templates", "preferences", "api_tokens",
)  # fmt: skip
World = tuple[Client, dict[str, str]]  # Ann's unlimited client, and the keys and ids made


def fingerprint(store: Store) -> str:
    """Every row a call of a limited token could read or change (access counts included)."""
    with store.sql.reading() as s:
        rows = {t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES if t != "api_tokens"}
        rows["api_tokens"] = sorted(map(repr, s.all("SELECT id, user_id, spaces, revoked_at FROM api_tokens")))
    return json.dumps(rows)


def said(result: Any) -> str:
    return text(result) + json.dumps(result.structured_content or {})


async def _made(ann: Client, wes: Client) -> dict[str, str]:
    ids: dict[str, str] = {}
    for name in ("Team", "Side"):
        made = ok(await ann.call_tool("remember_manage_space", {"action": "create", "name": name}))
        ids[name] = made["spaces"][0]["space"]
    add = {"action": "add_member", "space": "Team", "user": "wes", "role": "writer"}
    ok(await ann.call_tool("remember_manage_space", add))
    if wes is not ann:  # Wes says yes (with Ann's client alone, Wes is only invited)
        ok(await wes.call_tool("remember_manage_space", {"action": "accept", "space": ids["Team"]}))
    for where, content in (("Team", "team walrus plan"), ("Side", "side walrus hobby"), (None, "own walrus diary")):
        args = {"content": content, **({"space": where} if where else {})}
        ids[f"memory:{where or 'personal'}"] = ok(await ann.call_tool("remember_create_memory", args))["id"]
    ok(await ann.call_tool("remember_create_template", _template()))
    ok(await ann.call_tool("remember_update_preferences", {"preference_path": "search.default_limit", "value": 12}))
    ids["wes:own"] = ok(await wes.call_tool("remember_create_memory", {"content": "wes walrus notes"}))["id"]
    return ids


def _template() -> dict[str, Any]:
    return {"template_name": "Walrus sighting", "category": "nature", "fields": [{"name": "place", "type": "string"}]}


@pytest.fixture
async def world(http_server: HttpServer, tokens: TokenService) -> AsyncIterator[World]:
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(connect(http_server, tokens.create("ann").secret))
        wes = await stack.enter_async_context(connect(http_server, tokens.create("wes").secret))
        yield ann, await _made(ann, wes)


def _refused(ids: dict[str, str]) -> list[tuple[str, dict[str, Any], str]]:
    """Every call a token limited to Team must refuse, and what it must say."""
    side, own = ids["memory:Side"], ids["memory:personal"]
    calls: list[tuple[str, dict[str, Any], str]] = []
    for space in ("Side", ids["Side"], "personal", "ann", "Nowhere", "~0123456789abcdef"):
        calls += [
            ("remember_search_memory", {"query": "walrus", "spaces": [space]}, "Unknown space"),
            ("remember_list_memories", {"spaces": ["Team", space]}, "Unknown space"),
            ("remember_create_memory", {"content": "sneaked in", "space": space}, "Unknown space"),
        ]
    for memory in (side, own, ids["wes:own"]):
        calls += [
            ("remember_get_memory", {"memory_id": memory}, f"No memory with id {memory!r}"),
            ("remember_update_memory", {"memory_id": memory, "title": "x"}, f"No memory with id {memory!r}"),
            ("remember_delete_memory", {"memory_id": memory}, f"No memory with id {memory!r}"),
            ("remember_restore_memory", {"memory_id": memory}, f"No memory with id {memory!r}"),
            ("remember_get_related", {"memory_id": memory}, f"No memory with id {memory!r}"),
            ("remember_find_similar", {"memory_id": memory}, f"No memory with id {memory!r}"),
        ]
    calls += [
        ("remember_manage_space", {"action": "add_member", "space": "Side", "user": "nia", "role": "reader"},
         "Unknown space"),
        ("remember_manage_space", {"action": "delete", "space": ids["Side"]}, "Unknown space"),
        ("remember_manage_space", {"action": "create", "name": "Third"}, "cannot create space Third"),
        ("remember_list_templates", {}, "reaches only some shared spaces"),
        ("remember_create_template", _template(), "reaches only some shared spaces"),
        ("remember_get_preferences", {}, "reaches only some shared spaces"),
        ("remember_update_preferences", {"preference_path": "search.default_limit", "value": 3},
         "reaches only some shared spaces"),
        ("remember_suggest_templates", {"content": "a walrus on the beach"}, "reaches only some shared spaces"),
    ]  # fmt: skip
    return calls


async def test_a_token_limited_to_a_space_reaches_nothing_else(
    world: World, http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    _, ids = world
    limited = tokens.create("ann", spaces=frozenset({ids["Team"]}))
    problems: list[str] = []
    async with connect(http_server, limited.secret) as team:
        for tool, args, expected in _refused(ids):
            before = fingerprint(store)
            result = await team.call_tool(tool, args)
            if not (result.is_error and expected in text(result)):
                problems.append(f"{tool} {args}: not refused with {expected!r}: {said(result)[:300]}")
            if fingerprint(store) != before:
                problems.append(f"{tool} {args} changed the database")
        seen = ""
        for tool, args in (
            ("remember_search_memory", {"query": "walrus", "limit": 50}),
            ("remember_list_memories", {"limit": 100, "include_deleted": "include"}),
            ("remember_find_similar", {"text": "walrus", "limit": 50, "min_similarity": -1}),
            ("remember_query_memory", {"question": "walrus?", "answer": False, "token_budget": 8000}),
            ("remember_manage_space", {"action": "list"}),
            ("remember_search_relationships", {"query": "walrus", "limit": 100}),  # the spaces it reaches
        ):
            seen += said(ok_call := await team.call_tool(tool, args))
            assert not ok_call.is_error, tool
        assert ids["memory:Team"] in seen and ids["Team"] in seen
        for hidden in ("memory:Side", "memory:personal", "wes:own", "Side"):
            assert ids[hidden] not in seen, hidden
        assert "Walrus sighting" not in seen
        # Without a space, a token that reaches one space writes there (not to the personal default)
        made = ok(await team.call_tool("remember_create_memory", {"content": "walrus count: 4"}))
        assert made["space"] == ids["Team"]
        changed = ok(await team.call_tool("remember_update_memory", {"memory_id": made["id"], "title": "Count"}))
        assert changed["title"] == "Count"
    assert problems == []


async def test_a_token_for_personal_and_one_space_defaults_to_personal_and_sees_both(
    world: World, http_server: HttpServer, tokens: TokenService
) -> None:
    _, ids = world
    limited = tokens.create("ann", spaces=frozenset({"ann", ids["Team"]}))
    async with connect(http_server, limited.secret) as both:
        made = ok(await both.call_tool("remember_create_memory", {"content": "walrus at home"}))
        assert made.get("space") is None
        seen = said(await both.call_tool("remember_search_memory", {"query": "walrus", "limit": 50}))
        assert ids["memory:Team"] in seen and ids["memory:personal"] in seen and ids["memory:Side"] not in seen
        assert ok(await both.call_tool("remember_list_templates", {"include_default": False}))["templates"]
        refused = await both.call_tool("remember_get_memory", {"memory_id": ids["memory:Side"]})
        assert refused.is_error and "No memory with id" in text(refused)


async def test_removal_and_deletion_reach_a_limited_token_at_once(
    world: World, http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    ann, ids = world
    wes_team = tokens.create("wes", spaces=frozenset({ids["Team"]}))
    ann_side = tokens.create("ann", spaces=frozenset({ids["Side"], ids["Team"]}))
    async with connect(http_server, wes_team.secret) as wes, connect(http_server, ann_side.secret) as side:
        ok(await wes.call_tool("remember_get_memory", {"memory_id": ids["memory:Team"]}))
        remove = {"action": "remove_member", "space": "Team", "user": "wes"}
        ok(await ann.call_tool("remember_manage_space", remove))
        gone = await wes.call_tool("remember_get_memory", {"memory_id": ids["memory:Team"]})
        assert gone.is_error and "No memory with id" in text(gone)
        before = fingerprint(store)
        for tool, args in (
            ("remember_search_memory", {"query": "walrus"}),
            ("remember_create_memory", {"content": "x"}),
        ):
            nothing = await wes.call_tool(tool, args)
            assert nothing.is_error and "reaches none of your spaces" in text(nothing), said(nothing)
        assert fingerprint(store) == before
        ok(await ann.call_tool("remember_manage_space", {"action": "delete", "space": "Side"}))
        seen = said(await side.call_tool("remember_search_memory", {"query": "walrus", "limit": 50}))
        assert ids["memory:Team"] in seen and ids["memory:Side"] not in seen
        unknown = await side.call_tool("remember_list_memories", {"spaces": [ids["Side"]]})
        assert unknown.is_error and "Unknown space" in text(unknown)


async def test_oauth_access_granted_through_a_limited_token_is_limited(
    store: Store, tmp_path: Any, callback: Callback, tokens: TokenService
) -> None:
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_OAUTH_SERVER": "1"}).start()
    flow = Flow(server, callback)
    try:
        async with connect(server, tokens.create("ann").secret) as ann:
            ids = await _made(ann, ann)
        granted = flow.authorize(tokens.create("ann", spaces=frozenset({ids["Team"]})).secret)
        async with connect(server, granted["access_token"]) as team:
            seen = said(await team.call_tool("remember_search_memory", {"query": "walrus", "limit": 50}))
            assert ids["memory:Team"] in seen and ids["memory:personal"] not in seen
            refused = await team.call_tool("remember_get_memory", {"memory_id": ids["memory:personal"]})
            assert refused.is_error and "No memory with id" in text(refused)
        before = fingerprint(store)
        made = _post_token(server, granted["access_token"], {"name": "child"})
        assert made.status_code == 403 and "dashboard shows your personal space" in made.text
        assert fingerprint(store) == before
    finally:
        flow.close()
        server.stop()


def _post_token(server: HttpServer, bearer: str, body: dict[str, Any]) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {bearer}", "X-Remember-Request": "1"}
    return httpx2.post(f"{server.url}/api/tokens", json=body, headers=headers)


async def test_the_dashboard_takes_a_limited_token_only_with_the_personal_space(
    world: World, http_server: HttpServer, tokens: TokenService
) -> None:
    _, ids = world
    team_only = tokens.create("ann", spaces=frozenset({ids["Team"]}))
    for request in (
        lambda: httpx2.get(f"{http_server.url}/api/memories", headers={"Authorization": f"Bearer {team_only.secret}"}),
        lambda: httpx2.post(f"{http_server.url}/api/session", json={"token": team_only.secret},
                            headers={"X-Remember-Request": "1"}),
    ):  # fmt: skip
        refused = request()
        assert refused.status_code == 403 and "dashboard shows your personal space" in refused.text, refused.text
    with_home = tokens.create("ann", spaces=frozenset({"ann", ids["Team"]}))
    listed = httpx2.get(f"{http_server.url}/api/memories", headers={"Authorization": f"Bearer {with_home.secret}"})
    assert listed.status_code == 200 and ids["memory:personal"] in listed.text
    child = _post_token(http_server, with_home.secret, {"name": "made from a limited one"})
    assert child.status_code == 200 and sorted(child.json()["spaces"]) == sorted(["ann", ids["Team"]])


async def test_a_token_made_over_http_is_limited_to_spaces_its_maker_reaches(
    world: World, http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    _, ids = world
    anns = tokens.create("ann").secret
    made = _post_token(http_server, anns, {"name": "team bot", "spaces": ["Team"]})
    assert made.status_code == 200 and made.json()["spaces"] == [ids["Team"]], made.text
    with_home = tokens.create("ann", spaces=frozenset({"ann", ids["Team"]})).secret
    before = fingerprint(store)
    for body, says in (
        ({"spaces": ["Side"]}, "Unknown space 'Side'"),
        ({"spaces": [ids["Side"]]}, "Unknown space"),
        ({"spaces": "Team"}, "a list of names"),
        ({"spaces": [1, 2]}, "a list of names"),
        ({"spaces": []}, "Name the spaces"),
        ({"spaces": ["s"] * 10_000}, "at most 20 spaces"),
    ):
        refused = _post_token(http_server, with_home, body)
        assert refused.status_code in (404, 422) and says in refused.text, (body, refused.text)
    assert fingerprint(store) == before
