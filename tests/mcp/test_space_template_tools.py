"""A shared space's template through a real MCP client: missing fields asked for, and a text's suggestions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitRequestParams, ElicitResult

from remember.caller import Caller
from remember.service import Services
from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio

FIELDS = [{"name": "wine", "type": "string", "required": True}, {"name": "score", "type": "number", "required": True}]


async def _space_template(client: Client) -> tuple[str, str]:
    key = ok(await client.call_tool("remember_manage_space", {"action": "create", "name": "Cellar"}))["spaces"][0]
    made = ok(await client.call_tool("remember_create_template", {
        "template_name": "Cellar Note", "fields": FIELDS, "space": "Cellar", "auto_apply": True,
        "trigger_keywords": ["cellar note"]}))  # fmt: skip
    assert made["space"] == key["space"]
    return key["space"], made["id"]


async def test_a_spaces_template_asks_for_its_missing_fields(server_for: Callable[[str], MCPServer]) -> None:
    asked: list[ElicitRequestParams] = []

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"score": 93})

    async with Client(server_for("alice"), elicitation_callback=answer) as client:
        key, template = await _space_template(client)
        made = ok(
            await client.call_tool("remember_create_memory", {"template_id": template, "content": {"wine": "Rioja"}})
        )
    assert set(asked[0].requested_schema["properties"]) == {"score"}  # type: ignore[union-attr]
    assert (made["space"], made["structured_content"]) == (key, {"wine": "Rioja", "score": 93})


async def test_a_memory_created_in_a_space_is_offered_its_templates(client: Client) -> None:
    _, template = await _space_template(client)
    said: dict[str, Any] = {"content": "cellar note: opened the 2012 Barolo tonight"}
    in_space = ok(await client.call_tool("remember_create_memory", {**said, "space": "Cellar"}))
    assert template in {s["template_id"] for s in in_space.get("template_suggestions", [])}
    own = ok(await client.call_tool("remember_create_memory", {**said, "content": said["content"] + " at home"}))
    assert template not in {s["template_id"] for s in own.get("template_suggestions", [])}


async def test_a_spaces_memory_refuses_a_personal_template_on_update(client: Client, db: Path) -> None:
    _, template = await _space_template(client)
    own = ok(await client.call_tool("remember_create_template", {"template_name": "Own Note", "fields": FIELDS}))
    note = ok(await client.call_tool("remember_create_memory", {"content": "Rioja 2015", "space": "Cellar"}))
    fields = {"wine": "Rioja", "score": 90}
    before = fingerprint(db)
    personal = {"memory_id": note["id"], "template_id": own["id"], "structured_content": fields}
    message = error(await client.call_tool("remember_update_memory", personal))
    assert "one of your personal templates" in message and fingerprint(db) == before
    changed = ok(await client.call_tool("remember_update_memory", {**personal, "template_id": template}))
    assert changed["template_id"] == template


async def test_a_reader_is_not_asked_for_fields_of_a_memory_they_may_not_store(
    server_for: Callable[[str], MCPServer],
) -> None:
    asked: list[ElicitRequestParams] = []

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"score": 93})

    async with Client(server_for("alice"), elicitation_callback=answer) as alice:
        key, template = await _space_template(alice)
        ok(await alice.call_tool("remember_manage_space", {"action": "add_member", "space": key, "user": "rey",
                                                           "role": "reader"}))  # fmt: skip
    async with Client(server_for("rey"), elicitation_callback=answer) as rey:
        ok(await rey.call_tool("remember_manage_space", {"action": "accept", "space": key}))
        said = {"template_id": template, "content": {"wine": "Rioja"}}
        assert "You are a reader in space Cellar" in error(await rey.call_tool("remember_create_memory", said))
    assert asked == []


async def test_suggestions_for_a_space_come_from_its_templates(client: Client, db: Path) -> None:
    key, template = await _space_template(client)
    said = {"content": "cellar note: opened the 2012 Barolo tonight"}
    for space in ("Cellar", key):
        found = ok(await client.call_tool("remember_suggest_templates", {**said, "space": space}))
        assert template in {s["template_id"] for s in found["suggestions"]}
    own = ok(await client.call_tool("remember_suggest_templates", said))
    assert template not in {s["template_id"] for s in own["suggestions"]}
    before = fingerprint(db)
    for space in ("Nowhere", "~0123456789abcdef", "x" * 5000):
        assert "Unknown space" in error(await client.call_tool("remember_suggest_templates", {**said, "space": space}))
    assert fingerprint(db) == before


async def test_a_spaces_admin_learns_templates_from_its_memories(
    server_for: Callable[[str], MCPServer], services: Services
) -> None:
    from bench.infer import mix

    key = services.spaces.create(Caller("alice"), "Gym").space.key
    services.spaces.add_member(Caller("alice"), key, "wes", "writer")
    services.spaces.accept(Caller("wes"), key)
    in_gym = services.spaces.writing(Caller("wes"), key)
    services.memories.create_many(in_gym, [{"content": content} for content, _ in mix(per_kind=8)])
    async with Client(server_for("alice")) as alice:
        assert ok(await alice.call_tool("remember_infer_templates", {})).get("proposals", []) == []  # her own: none
        found = ok(await alice.call_tool("remember_infer_templates", {"space": "Gym"}))["proposals"]
        assert found
        made = ok(await alice.call_tool("remember_infer_templates", {"space": key, "accept": found[0]["id"]}))
    assert services.templates.get(services.spaces.on_template(Caller("wes"), made["created_template_id"]),
                                  made["created_template_id"]).space == key  # fmt: skip
    async with Client(server_for("wes")) as wes:
        said = error(await wes.call_tool("remember_infer_templates", {"space": "Gym"}))
        assert "You are a writer in space Gym: only its admins" in said
        assert "Unknown space" in error(await wes.call_tool("remember_infer_templates", {"space": "Nowhere"}))
