"""What a newcomer or a model meets first: documented coercions, every mistake at once, truthful
prompts and instructions, and no silent change. Through a real MCP client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from remember.mcp.catalog import prompt_name
from remember.mcp.server import INSTRUCTIONS
from support import error, ok

pytestmark = pytest.mark.anyio

PERSON = {"name": "Ana", "relationship": "friend", "has_children": False, "children_names": ["Leo"]}


async def _template(client: Client, **extra: Any) -> dict[str, Any]:
    fields = [{"name": "title", "type": "string", "required": True}, {"name": "tags", "type": "array"}]
    return ok(await client.call_tool("remember_create_template", {"template_name": "Note", "fields": fields, **extra}))


async def test_a_numeric_version_is_turned_into_text_as_documented(client: Client) -> None:
    made = await _template(client)
    updated = ok(await client.call_tool("remember_update_template", {"template_id": made["id"], "version": 1.1}))
    assert updated["version"] == "1.1"
    refused = error(await client.call_tool("remember_update_template", {"template_id": made["id"], "version": 1.1}))
    assert "version 1.1 already" in refused


async def test_a_definition_with_several_mistakes_reports_all_of_them(client: Client) -> None:
    await _template(client)
    fields = [{"name": "Bad Name", "type": "strnig", "required": "yes"}, {"name": "ok", "type": "enum"}]
    message = error(await client.call_tool("remember_create_template", {"template_name": "Note", "fields": fields}))
    for expected in ("already have a template named 'Note'", "field name 'Bad Name'", "unknown type 'strnig'",
                     "required must be true or false", "an enum needs"):  # fmt: skip
        assert expected in message
    assert "5 problems" in message


async def test_capture_prompts_say_item_types_and_conditions(client: Client) -> None:
    made = await _template(client)
    prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    person = next(name for name in prompts if name.endswith("person"))
    text = (await client.get_prompt(person, {})).messages[0].content.text  # type: ignore[union-attr]
    assert "- children_names (list of texts, optional, only when has_children == true" in text
    assert "- interests (list of texts, optional)" in text
    assert "days_since_last_interaction (computed by the server" in text
    mine = prompt_name(made["id"])
    text = (await client.get_prompt(mine, {})).messages[0].content.text  # type: ignore[union-attr]
    assert "- tags (list of any values, optional)" in text and "list of objects" not in text


async def test_an_unknown_prompt_is_a_clear_error(client: Client) -> None:
    with pytest.raises(Exception, match="remember_capture_no_such"):
        await client.get_prompt("remember_capture_no_such", {})


def test_the_instructions_point_to_search_and_query() -> None:
    assert "remember_search_memory" in INSTRUCTIONS and "remember_query_memory" in INSTRUCTIONS
    assert "look things up before answering questions about the user's past with\nremember_list_memories" not in (
        INSTRUCTIONS
    )


async def test_values_not_kept_are_reported_not_dropped_silently(client: Client) -> None:
    given = {**PERSON, "days_since_last_interaction": 99}
    made = ok(await client.call_tool("remember_create_memory", {"template_id": "builtin:person", "content": given}))
    ignored = {f["field"]: f for f in made["ignored_fields"]}
    assert set(ignored) == {"children_names", "days_since_last_interaction"}
    assert (
        ignored["children_names"]["code"] == "hidden" and "has_children == true" in ignored["children_names"]["message"]
    )
    assert ignored["days_since_last_interaction"]["code"] == "computed"
    assert "children_names" not in made["structured_content"]  # the behaviour stays: left out

    changed = ok(
        await client.call_tool(
            "remember_update_memory", {"memory_id": made["id"], "structured_content": {"children_names": ["Mia"]}}
        )
    )
    assert [f["field"] for f in changed["ignored_fields"]] == ["children_names"]
    plain = ok(await client.call_tool("remember_create_memory", {"content": "nothing templated"}))
    assert "ignored_fields" not in plain  # none: an empty list is left out

    checked = ok(
        await client.call_tool("remember_validate_memory", {"template_id": "builtin:person", "content": given})
    )
    assert {f["field"] for f in checked["ignored_fields"]} == {"children_names", "days_since_last_interaction"}


def _compact_size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def test_the_tool_list_is_lean_and_keeps_structured_output(client: Client) -> None:
    tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in (await client.list_tools()).tools]
    assert _compact_size({"tools": tools}) < 40_000
    for tool in tools:
        own = len(tool["description"].encode()) + _compact_size(tool["inputSchema"])
        assert own <= 3_000, f"{tool['name']}: {own} bytes of description and input schema"
        assert tool["outputSchema"]["type"] == "object", tool["name"]
    create = next(t for t in tools if t["name"] == "remember_create_memory")
    assert {"content", "template_id", "context", "skip_template_suggestion"} <= set(create["inputSchema"]["properties"])
    assert "template_suggestions" in create["outputSchema"]["properties"]


async def test_annotations_state_only_what_differs_from_the_defaults(client: Client) -> None:
    tools = {t.name: t.annotations for t in (await client.list_tools()).tools}
    search, create, delete = (tools[f"remember_{n}"] for n in ("search_memory", "create_memory", "delete_memory"))
    assert search is not None and search.read_only_hint is True and search.open_world_hint is False
    assert create is not None and create.read_only_hint is None and create.destructive_hint is False
    assert delete is not None and delete.destructive_hint is None and delete.idempotent_hint is True
