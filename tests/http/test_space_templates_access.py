"""A shared space's templates over HTTP, each user with a real token, on SQLite and PostgreSQL: the access matrix.

Ann creates the space "Team" and makes Ada an admin, Wes a writer and Rey a reader; Max was a writer and was
removed; Nia belongs to no space; Tom has a space of his own also named "Team". Ann makes the template "Wine
Tasting" in Team. Every member reads it, lists it (naming its space), reads it as a resource and prompt; the
writers and admins make memories with it, which go to Team; only the admins change, copy into and delete. Any
other call is answered as for a template or a space that does not exist (or, to a member, with the role that
is missing), and the database is the same before and after.
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

USERS = ("ann", "ada", "wes", "rey", "max", "nia", "tom")
ROLE = {"ann": "admin", "ada": "admin", "wes": "writer", "rey": "reader"}  # max, nia, tom: none
TABLES = ("spaces", "space_members", "memories", "memory_history", "templates", "template_versions",
          "suggestion_events", "suggestion_totals")  # fmt: skip
FIELDS = [{"name": "wine", "type": "string", "required": True}, {"name": "score", "type": "number"}]
Team = tuple[dict[str, Client], dict[str, str]]


def fingerprint(store: Store) -> str:
    with store.sql.reading() as s:
        return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES})


def said(result: Any) -> str:
    return text(result) + json.dumps(result.structured_content or {})


async def _setup(c: dict[str, Client]) -> dict[str, str]:
    space = ok(await c["ann"].call_tool("remember_manage_space", {"action": "create", "name": "Team"}))
    key = space["spaces"][0]["space"]
    for user, role in (("ada", "admin"), ("wes", "writer"), ("rey", "reader"), ("max", "writer")):
        ok(await c["ann"].call_tool("remember_manage_space",
                                    {"action": "add_member", "space": key, "user": user, "role": role}))  # fmt: skip
        ok(await c[user].call_tool("remember_manage_space", {"action": "accept", "space": key}))
    ok(await c["tom"].call_tool("remember_manage_space", {"action": "create", "name": "Team"}))
    made = ok(await c["ann"].call_tool(
        "remember_create_template", {"template_name": "Wine Tasting", "fields": FIELDS, "space": "Team"}
    ))  # fmt: skip
    own = ok(await c["ann"].call_tool("remember_create_template", {"template_name": "Ann's Wine", "fields": FIELDS}))
    ok(await c["ann"].call_tool("remember_manage_space", {"action": "remove_member", "space": key, "user": "max"}))
    return {"space": key, "template": made["id"], "own": own["id"]}


@pytest.fixture
async def team(http_server: HttpServer, tokens: TokenService) -> AsyncIterator[Team]:
    async with AsyncExitStack() as stack:
        clients = {u: await stack.enter_async_context(connect(http_server, tokens.create(u).secret)) for u in USERS}
        yield clients, await _setup(clients)


def _reads(ids: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    template = ids["template"]
    return [
        ("remember_get_template", {"template_id": template}),
        ("remember_validate_memory", {"template_id": template, "content": {"wine": "Rioja"}}),
        ("remember_template_analytics", {"template_id": template}),
    ]


def _admin_writes(ids: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    template, key = ids["template"], ids["space"]
    return [
        ("remember_update_template", {"template_id": template, "description": "Team wines"}),
        ("remember_create_template", {"template_name": "Cellar", "fields": FIELDS, "space": key}),
        ("remember_copy_template", {"template_id": "builtin:book_review", "space": key}),
    ]


def _unknown(args: dict[str, Any], ids: dict[str, str]) -> str:
    return "Unknown space" if "space" in args else f"No template with id {ids['template']!r}"


async def _listed_and_read(client: Client, user: str, role: str | None, ids: dict[str, str]) -> list[str]:
    """What is wrong in what ``user`` lists and reads of the template: its listing, resources and prompts."""
    problems: list[str] = []
    uri = f"remember://templates/{ids['template']}"
    listed = ok(await client.call_tool("remember_list_templates", {"include_default": False}))
    mine = {t["id"]: t.get("space") for t in listed["templates"]}
    listed_resources = {str(r.uri) for r in (await client.list_resources()).resources}
    prompts = {p.name for p in (await client.list_prompts()).prompts}
    seen = (ids["template"] in mine, uri in listed_resources, f"capture_{ids['template']}" in prompts)
    if seen != ((True,) * 3 if role else (False,) * 3):
        problems.append(f"{user} ({role}) list, resources, prompts: {seen}")
    if role and mine[ids["template"]] != ids["space"]:
        problems.append(f"{user} sees the template without its space: {mine}")
    if role:
        read = json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
        if read["name"] != "Wine Tasting" or read.get("space") != ids["space"]:
            problems.append(f"{user} read the resource as {read}")
        prompt = await client.get_prompt(f"capture_{ids['template']}", {})
        if "wine (text, required)" not in prompt.messages[0].content.text:  # type: ignore[union-attr]
            problems.append(f"{user} got the prompt {prompt}")
    else:
        try:
            await client.read_resource(uri)
            problems.append(f"{user} read the resource")
        except Exception as exc:  # the SDK raises the server's error
            if "No template with id" not in str(exc):
                problems.append(f"{user} resource: {exc}")
    return problems


async def test_members_read_a_spaces_template_and_others_are_told_it_does_not_exist(team: Team, store: Store) -> None:
    clients, ids = team
    problems: list[str] = []
    for user in USERS:
        role, client = ROLE.get(user), clients[user]
        for tool, args in _reads(ids):
            before = fingerprint(store)
            result = await client.call_tool(tool, args)
            if role is not None and result.is_error:
                problems.append(f"{user} ({role}) {tool}: {said(result)[:200]}")
            if role is None and not (result.is_error and _unknown(args, ids) in said(result)):
                problems.append(f"{user} {tool} not unknown: {said(result)[:200]}")
            if role is None and fingerprint(store) != before:
                problems.append(f"{user} {tool} changed the database")
        problems += await _listed_and_read(client, user, role, ids)
    assert problems == []


async def test_only_admins_change_a_spaces_templates(team: Team, store: Store) -> None:
    clients, ids = team
    problems: list[str] = []
    for user in USERS:
        role, client = ROLE.get(user), clients[user]
        if role == "admin":
            continue
        for tool, args in [*_admin_writes(ids), ("remember_delete_template", {"template_id": ids["template"]})]:
            before = fingerprint(store)
            result = await client.call_tool(tool, args)
            expected = f"You are a {role} in space Team: only its admins" if role else _unknown(args, ids)
            if not (result.is_error and expected in said(result)):
                problems.append(f"{user} ({role}) {tool} not refused with {expected!r}: {said(result)[:200]}")
            if fingerprint(store) != before:
                problems.append(f"{user} ({role}) {tool} changed the database")
    for user in ("ann", "ada"):
        for tool, given in _admin_writes(ids):
            named = {} if tool == "remember_update_template" else {"template_name": f"{tool} by {user}"}
            result = await clients[user].call_tool(tool, {**given, **named})
            if result.is_error:
                problems.append(f"{user} (admin) {tool}: {said(result)[:200]}")
            elif tool != "remember_update_template" and result.structured_content.get("space") != ids["space"]:  # type: ignore[union-attr]
                problems.append(f"{user} {tool} not in the space: {said(result)[:200]}")
    assert problems == []
    ok(await clients["ada"].call_tool("remember_delete_template", {"template_id": ids["template"]}))
    assert store.templates.get(ids["space"], ids["template"]) is None


async def test_a_memory_made_with_a_spaces_template_goes_to_the_space(team: Team, store: Store) -> None:
    clients, ids = team
    problems: list[str] = []
    made = {"template_id": ids["template"], "content": {"wine": "Rioja", "score": 91}}
    for user in USERS:
        role, client = ROLE.get(user), clients[user]
        before = fingerprint(store)
        result = await client.call_tool("remember_create_memory", {**made, "content": {"wine": f"Rioja for {user}"}})
        if role in ("admin", "writer"):
            if result.is_error or (result.structured_content or {}).get("space") != ids["space"]:
                problems.append(f"{user} ({role}) create: {said(result)[:200]}")
            continue
        expected = "You are a reader in space Team" if role else _unknown({}, ids)
        if not (result.is_error and expected in said(result)):
            problems.append(f"{user} ({role}) create not refused with {expected!r}: {said(result)[:200]}")
        if fingerprint(store) != before:
            problems.append(f"{user} ({role}) create changed the database")
    assert problems == []
    before = fingerprint(store)
    elsewhere = await clients["wes"].call_tool("remember_create_memory", {**made, "space": "personal"})
    assert elsewhere.is_error and "belongs to space Team" in text(elsewhere)
    personal = await clients["ann"].call_tool(
        "remember_create_memory", {"template_id": ids["own"], "content": {"wine": "x"}, "space": "Team"}
    )
    assert personal.is_error and "one of your personal templates" in text(personal)
    assert fingerprint(store) == before
    figures = ok(await clients["rey"].call_tool("remember_template_analytics", {"template_id": ids["template"]}))
    assert figures["memory_count"] == 3  # Ann's, Ada's and Wes's, all in Team


async def test_a_token_below_full_trust_counts_only_what_it_reaches(
    team: Team, http_server: HttpServer, tokens: TokenService
) -> None:
    clients, ids = team
    for trust in (0.2, 0.9):
        ok(await clients["wes"].call_tool("remember_create_memory", {
            "template_id": ids["template"], "content": {"wine": f"trust {trust}"}, "trust": trust}))  # fmt: skip
    async with connect(http_server, tokens.create("rey", trust_level=0.5).secret) as low:
        figures = ok(await low.call_tool("remember_template_analytics", {"template_id": ids["template"]}))
        assert figures["memory_count"] == 1
        listed = ok(await low.call_tool("remember_list_templates", {"include_default": False}))
        assert {t["id"]: t.get("usage_count") for t in listed["templates"]}.get(ids["template"]) in (1, None)


async def test_a_spaces_template_is_applied_to_the_spaces_memories_by_its_writers(team: Team, store: Store) -> None:
    clients, ids = team
    note = ok(await clients["wes"].call_tool("remember_create_memory", {"content": "Tasted a Rioja", "space": "Team"}))
    apply = {"memory_id": note["id"], "template_id": ids["template"], "structured_content": {"wine": "Rioja"}}
    before = fingerprint(store)
    for user in ("rey", "max", "nia", "tom"):
        result = await clients[user].call_tool("remember_apply_template", apply)
        expected = "You are a reader in space Team" if user == "rey" else f"No memory with id {note['id']!r}"
        assert result.is_error and expected in said(result), user
    personal = await clients["ann"].call_tool("remember_apply_template", {**apply, "template_id": ids["own"]})
    assert personal.is_error and "one of your personal templates" in text(personal)
    assert fingerprint(store) == before
    applied = ok(await clients["ada"].call_tool("remember_apply_template", apply))
    assert applied["template_id"] == ids["template"]
    got = ok(await clients["rey"].call_tool("remember_get_memory", {"memory_id": note["id"]}))
    assert (got["space"], got["structured_content"]) == (ids["space"], {"wine": "Rioja"})
