"""Every tool through the SDK's in-memory client, on a real SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio


async def create(client: Client, **args: Any) -> dict[str, Any]:
    args.setdefault("content", "Sarah is a product manager at Google.")
    return ok(await client.call_tool("remember_create_memory", args))


async def test_create_get_update_history(client: Client) -> None:
    made = await create(
        client, title="Sarah", type="person", tags=["People"], context={"timestamp": "2026-02-10", "source": "chat"}
    )
    assert made["tags"] == ["people"]
    assert made["context"] == {"source": "chat", "timestamp": "2026-02-10T00:00:00.000000Z"}
    updated = ok(
        await client.call_tool(
            "remember_update_memory", {"memory_id": made["id"], "title": "Sarah (Director)", "reason": "promoted"}
        )
    )
    assert updated["version"] == 2
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"], "include_history": True}))
    assert got["title"] == "Sarah (Director)"
    assert got["access_count"] == 1
    assert got["history"] == [
        {
            "version": 1,
            "action": "update",
            "previous": {"title": "Sarah"},
            "reason": "promoted",
            "at": got["updated_at"],
        }
    ]
    plain = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))
    assert "history" not in plain  # not asked for


async def test_clear_fields(client: Client) -> None:
    made = await create(client, title="T", location={"address": "Berlin"})
    cleared = ok(
        await client.call_tool(
            "remember_update_memory", {"memory_id": made["id"], "clear_fields": ["title", "location"]}
        )
    )
    assert "title" not in cleared and "location" not in cleared
    both = await client.call_tool(
        "remember_update_memory", {"memory_id": made["id"], "title": "x", "clear_fields": ["title"]}
    )
    assert "both given and in clear_fields" in error(both)


async def test_delete_restore_and_permanent(client: Client) -> None:
    made = await create(client)
    gone = ok(await client.call_tool("remember_delete_memory", {"memory_id": made["id"]}))
    assert gone["permanent"] is False and gone["deleted_at"]
    listed = ok(await client.call_tool("remember_list_memories", {}))
    assert listed["total"] == 0
    trash = ok(await client.call_tool("remember_list_memories", {"include_deleted": "only"}))
    assert [m["id"] for m in trash["memories"]] == [made["id"]]
    back = ok(await client.call_tool("remember_restore_memory", {"memory_id": made["id"]}))
    assert (back["memory_id"], back["version"]) == (made["id"], made["version"] + 2)
    restored = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))
    assert "deleted_at" not in restored
    erased = ok(await client.call_tool("remember_delete_memory", {"memory_id": made["id"], "permanent": True}))
    assert erased == {"memory_id": made["id"], "permanent": True, "message": "Erased for good."}
    assert "No memory with id" in error(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))


async def test_list_filters_and_pages(client: Client) -> None:
    for i in range(5):
        await create(client, content=f"book {i}", type="book", weight=i / 5, tags=["fiction" if i % 2 else "work"])
    page = ok(await client.call_tool("remember_list_memories", {"type": "book", "limit": 2}))
    assert (page["total"], page["has_more"], page["next_offset"]) == (5, True, 2)
    last = ok(await client.call_tool("remember_list_memories", {"limit": 2, "offset": 4}))
    assert (len(last["memories"]), last["has_more"], "next_offset" in last) == (1, False, False)
    heavy = ok(
        await client.call_tool(
            "remember_list_memories", {"tags": ["fiction"], "filters": {"weight": {"gte": 0.5}}, "sort_by": "weight"}
        )
    )
    assert [m["content"] for m in heavy["memories"]] == ["book 3"]


async def test_preferences(client: Client) -> None:
    prefs = ok(await client.call_tool("remember_get_preferences", {"category": "search"}))
    assert prefs == {
        "preferences": {
            "search": {
                "default_limit": 10,
                "default_alpha": "auto",
                "min_score": 0.2,
                "weight_boost": 0.1,
                "recency_boost": 0.0,
                "recency_half_life_days": 30.0,
            }
        }
    }
    change = ok(
        await client.call_tool(
            "remember_update_preferences", {"preference_path": "search.default_limit", "value": 25, "reason": "more"}
        )
    )
    assert (change["old_value"], change["new_value"]) == (10, 25)


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("remember_create_memory", {}, "content is required"),
    ("remember_create_memory", {"content": ""}, "content must not be empty"),
    ("remember_create_memory", {"content": 42}, "content"),
    ("remember_create_memory", {"content": "x", "weight": 2}, "weight must be a number from 0 to 1"),
    ("remember_create_memory", {"content": "x", "trust": -1}, "trust must be a number from 0 to 1"),
    ("remember_create_memory", {"content": "x", "weight": "heavy"}, "weight"),
    ("remember_create_memory", {"content": "x", "references": ["file:///etc/passwd"]}, "http:// or https:// URL"),
    ("remember_create_memory", {"content": "x", "tags": "solo"}, "tags"),
    ("remember_create_memory", {"content": "x" * 100_001}, "the limit is 100000"),
    ("remember_create_memory", {"content": "x", "context": {"timestamp": "2026-13-01"}}, "not an ISO 8601"),
    ("remember_create_memory", {"content": "x", "context": {"mood": "ok"}}, "mood"),
    ("remember_create_memory", {"content": "x", "location": {"lat": 100, "lon": 0}}, "lat must be a number"),
    ("remember_create_memory", {"content": "x", "colour": "red"}, "colour"),
    ("remember_create_memory", {"content": {"title": "x"}, "structured_content": {"a": 1}}, "either as content"),
    ("remember_get_memory", {}, "memory_id"),
    ("remember_get_memory", {"memory_id": "nope"}, "No memory with id 'nope'"),
    ("remember_get_memory", {"memory_id": ["a"]}, "memory_id"),
    ("remember_get_memory", {"memory_id": "x" * 5000}, "memory_id must be an id"),
    ("remember_update_memory", {"memory_id": "nope", "title": "x"}, "No memory with id"),
    ("remember_update_memory", {"memory_id": "{id}"}, "Nothing to update"),
    ("remember_update_memory", {"memory_id": "{id}", "weight": 9}, "weight must be a number from 0 to 1"),
    ("remember_update_memory", {"memory_id": "{id}", "version": 9}, "version"),
    ("remember_update_memory", {"memory_id": "{id}", "clear_fields": ["content"]}, "clear_fields"),
    ("remember_update_memory", {"memory_id": "{id}", "title": "t", "reason": "r" * 1001}, "reason"),
    ("remember_delete_memory", {"memory_id": "nope"}, "No memory with id"),
    ("remember_delete_memory", {"memory_id": "{id}", "permanent": "maybe"}, "permanent"),
    ("remember_restore_memory", {"memory_id": "nope"}, "No memory with id"),
    ("remember_list_memories", {"limit": 0}, "limit must be a whole number from 1 to 100"),
    ("remember_list_memories", {"limit": 1000}, "limit must be a whole number from 1 to 100"),
    ("remember_list_memories", {"offset": -5}, "offset"),
    ("remember_list_memories", {"sort_by": "colour"}, "sort_by"),
    ("remember_list_memories", {"created_after": "last tuesday"}, "not an ISO 8601"),
    ("remember_list_memories", {"filters": {"colour": "red"}}, "Unknown filter field 'colour'"),
    ("remember_list_memories", {"filters": {"weight": {"like": 1}}}, "Operator 'like' does not apply"),
    ("remember_list_memories", {"filters": "type = 'book'"}, "filters"),
    ("remember_get_preferences", {"category": "colours"}, "Unknown preference category"),
    ("remember_update_preferences", {"preference_path": "search.nope", "value": 1}, "Unknown preference"),
    ("remember_update_preferences", {"preference_path": "search.default_limit", "value": "x"}, "whole number"),
    ("remember_update_preferences", {"preference_path": "search.default_limit"}, "value"),
]


@pytest.mark.parametrize(
    ("tool", "args", "message"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_CALLS)]
)
async def test_bad_input_is_an_error_and_changes_nothing(
    client: Client, db: Path, tool: str, args: dict[str, Any], message: str
) -> None:
    made = await create(client)
    args = {k: (made["id"] if v == "{id}" else v) for k, v in args.items()}
    before = fingerprint(db)
    result = await client.call_tool(tool, args)
    assert message in error(result)
    assert fingerprint(db) == before


async def test_oversized_requests_are_refused_quickly(client: Client, db: Path) -> None:
    before = fingerprint(db)
    huge_tags = [f"t{i}" for i in range(10_000)]
    assert "tags" in error(await client.call_tool("remember_create_memory", {"content": "x", "tags": huge_tags}))
    assert fingerprint(db) == before


async def test_create_names_the_duplicate_it_found(client: Client) -> None:
    first = await create(client, tags=["work"])
    again = await create(client, tags=["work"])
    assert again["id"] == first["id"]
    assert again["duplicate"] == {"memory_id": first["id"], "match": "repeat", "similarity": 1.0, "action": "skipped"}
    similar = await create(client, content="Sarah works at Google as a product manager.")
    assert similar["id"] != first["id"]
    assert (similar["duplicate"]["memory_id"], similar["duplicate"]["action"]) == (first["id"], "stored")
