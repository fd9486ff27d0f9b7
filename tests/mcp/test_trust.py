"""Trust enforced, tool by tool: to a caller at trust level 0.5 a memory of trust 0.9 does not exist
(reads leave it out or answer its id as unknown, writes cannot reach it), and it cannot make one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.mcp.server import build_server
from remember.service import RelationshipDraft, Services
from remember.service.import_export.jsonl import export_records
from support import error, ok

pytestmark = pytest.mark.anyio

HIGH, LOW = 0.9, 0.2
FIELDS = [{"name": "title", "type": "string", "required": True}, {"name": "mood", "type": "string"}]


@pytest.fixture
async def owner(services: Services) -> AsyncIterator[Client]:
    async with Client(build_server(services, lambda: Caller("alice", 1.0))) as c:
        yield c


@pytest.fixture
async def guest(services: Services) -> AsyncIterator[Client]:
    async with Client(build_server(services, lambda: Caller("alice", 0.5))) as c:
        yield c


@pytest.fixture
async def seeded(owner: Client) -> dict[str, Any]:
    high = ok(await owner.call_tool("remember_create_memory", {"content": "falcon plan, confidential", "trust": HIGH}))
    low = ok(await owner.call_tool("remember_create_memory", {"content": "falcon plan, public", "trust": LOW}))
    template = ok(await owner.call_tool("remember_create_template", {"template_name": "Diary", "fields": FIELDS}))
    made = []
    for mood, trust in (("secretive", HIGH), ("cheerful", LOW)):
        args = {"template_id": template["id"], "structured_content": {"title": "day", "mood": mood}, "trust": trust}
        made.append(ok(await owner.call_tool("remember_create_memory", args)))
    return {"high": high["id"], "low": low["id"], "template": template["id"], "high_diary": made[0]["id"]}


def _unknown(message: str, memory_id: str) -> None:
    assert f"No memory with id {memory_id!r}" in message, message


@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("remember_get_memory", {"include_history": True}),
        ("remember_update_memory", {"title": "seen"}),
        ("remember_delete_memory", {}),
        ("remember_delete_memory", {"permanent": True}),
        ("remember_restore_memory", {}),
        ("remember_find_similar", {}),
        ("remember_apply_template", {"template_id": "book"}),
    ],
)
async def test_an_id_above_the_level_is_unknown(
    guest: Client, seeded: dict[str, Any], services: Services, tool: str, extra: dict[str, Any]
) -> None:
    before = services.memories.get(Caller("alice"), seeded["high"], record_access=False)
    _unknown(error(await guest.call_tool(tool, {"memory_id": seeded["high"], **extra})), seeded["high"])
    assert services.memories.get(Caller("alice"), seeded["high"], record_access=False) == before


async def test_an_id_within_the_level_is_reachable(guest: Client, seeded: dict[str, Any]) -> None:
    assert ok(await guest.call_tool("remember_get_memory", {"memory_id": seeded["low"]}))["trust"] == LOW
    ok(await guest.call_tool("remember_update_memory", {"memory_id": seeded["low"], "title": "fine"}))


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("remember_list_memories", {"include_deleted": "include"}),
        ("remember_list_memories", {"filters": {"trust": {"gte": 0.8}}}),
        ("remember_search_memory", {"query": "falcon plan confidential", "deleted": "include"}),
        ("remember_search_memory", {"query": "falcon", "alpha": 1.0}),
        ("remember_search_memory", {"query": "falcon", "alpha": 0.0}),
        ("remember_find_similar", {"text": "falcon plan, confidential"}),
        ("remember_query_memory", {"question": "What is the falcon plan?"}),
    ],
)
async def test_reads_leave_out_what_is_above_the_level(
    guest: Client, owner: Client, seeded: dict[str, Any], tool: str, args: dict[str, Any]
) -> None:
    seen = json.dumps(ok(await guest.call_tool(tool, args)))
    assert seeded["high"] not in seen and "confidential" not in seen and "secretive" not in seen
    # The owner, at full trust, sees it through the same call.
    assert "confidential" in json.dumps(ok(await owner.call_tool(tool, args))) or tool == "remember_list_memories"


async def test_analytics_common_values_count_only_what_is_within_the_level(
    guest: Client, owner: Client, seeded: dict[str, Any]
) -> None:
    mine = ok(await guest.call_tool("remember_template_analytics", {"template_id": seeded["template"]}))
    assert "secretive" not in json.dumps(mine) and "cheerful" in json.dumps(mine)
    everything = ok(await owner.call_tool("remember_template_analytics", {"template_id": seeded["template"]}))
    assert "secretive" in json.dumps(everything)


async def test_deleting_a_template_with_its_memories_keeps_those_above_the_level(
    guest: Client, seeded: dict[str, Any], services: Services
) -> None:
    args = {"template_id": seeded["template"], "delete_derived_memories": True}
    ok(await guest.call_tool("remember_delete_template", args))
    assert not services.memories.get(Caller("alice"), seeded["high_diary"], record_access=False).is_deleted


async def test_a_caller_cannot_make_a_memory_above_its_level(guest: Client, seeded: dict[str, Any]) -> None:
    said = error(await guest.call_tool("remember_create_memory", {"content": "x", "trust": 0.6}))
    assert "above this connection's trust level (0.5)" in said
    said = error(await guest.call_tool("remember_update_memory", {"memory_id": seeded["low"], "trust": 0.6}))
    assert "above this connection's trust level" in said
    made = ok(await guest.call_tool("remember_create_memory", {"content": "default trust"}))
    assert made["trust"] <= 0.5


async def test_templates_resources_and_prompts_still_work(guest: Client, seeded: dict[str, Any]) -> None:
    uris = [str(r.uri) for r in (await guest.list_resources()).resources]
    assert any(seeded["template"] in u for u in uris)


async def test_export_leaves_out_what_is_above_the_level(services: Services, seeded: dict[str, Any]) -> None:
    for pair in ([seeded["low"], seeded["high"]], [seeded["low"], seeded["high_diary"]]):
        services.relationships.create(Caller("alice"), RelationshipDraft(pair, "pair", "a falcon link"))
    exported = json.dumps(list(export_records(services.store, [Caller("alice", 0.5)])))
    assert seeded["low"] in exported and seeded["high"] not in exported
    assert '"kind": "relationship"' not in exported  # both link a memory above the level
    assert seeded["high"] in json.dumps(list(export_records(services.store, [Caller("alice")])))
