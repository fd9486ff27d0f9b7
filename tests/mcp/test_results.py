"""What every tool answers: one object, twice (structured and as compact JSON text), with nothing empty spelled out."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from remember.mcp import tools as remember_tools
from remember.mcp.compact import compact_output
from remember.mcp.results import ANSWER_LISTS, pruned
from support import ok, text

pytestmark = pytest.mark.anyio


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def empties_declared(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Where ``value`` spells out a null or empty value for a key ``schema`` declares (free-form objects,
    whose schema declares no keys, are not looked into)."""
    found: list[str] = []
    if isinstance(value, dict) and "properties" in schema:
        for key, item in value.items():
            if key not in schema["properties"]:
                continue
            if item is None or item in ([], {}):
                if not (path == "" and key in ANSWER_LISTS and item == []):
                    found.append(f"{path}.{key}")
            else:
                found += empties_declared(item, schema["properties"][key], f"{path}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += empties_declared(item, schema["items"], f"{path}[{i}]")
    return found


async def every_tool(client: Client) -> dict[str, CallToolResult]:
    """One successful call of every tool, on memories, a template and a relationship made for it."""
    answers: dict[str, CallToolResult] = {}

    async def call(tool: str, **args: Any) -> dict[str, Any]:
        answers[tool] = result = await client.call_tool(tool, args)
        return ok(result)

    made = await call("remember_create_memory", content="Lunch with Ana at Nobu, great sushi", tags=["food"])
    other = ok(await client.call_tool("remember_create_memory", {"content": "Ana started at Acme in May"}))
    await call("remember_get_memory", memory_id=made["id"], include_history=True)
    await call("remember_update_memory", memory_id=made["id"], title="Lunch", reason="named")
    await call("remember_list_memories", limit=5)
    await call("remember_search_memory", query="sushi with Ana", explain=True)
    await call("remember_find_similar", memory_id=made["id"])
    await call("remember_query_memory", question="Where did I eat sushi?")
    await call("remember_delete_memory", memory_id=other["id"])
    await call("remember_restore_memory", memory_id=other["id"])
    fields = [{"name": "place", "type": "string", "required": True}, {"name": "stars", "type": "integer"}]
    template = await call("remember_create_template", template_name="Meal", fields=fields, description="")
    await call("remember_list_templates", include_default=False)
    await call("remember_get_template", template_id=template["id"])
    await call("remember_update_template", template_id=template["id"], trigger_keywords=["lunch"])
    await call("remember_validate_memory", template_id=template["id"], content={"stars": "many"})
    await call("remember_apply_template", memory_id=made["id"], template_id=template["id"],
               structured_content={"place": "Nobu"})  # fmt: skip
    await call("remember_template_analytics", template_id=template["id"])
    copy = await call("remember_copy_template", template_id="builtin:person", template_name="Friend")
    await call("remember_delete_template", template_id=copy["id"])
    await call("remember_suggest_templates", content="Dinner at Nobu yesterday, 5 stars")
    await call("remember_infer_templates")
    link = await call("remember_create_relationship", memory_ids=[made["id"], other["id"]], relationship_type="about")
    await call("remember_update_relationship", relationship_id=link["id"], strength=0.8)
    await call("remember_search_relationships", query="about Ana")
    await call("remember_get_related", memory_id=made["id"])
    await call("remember_delete_relationship", relationship_id=link["id"])
    await call("remember_manage_space", action="create", name="Team")
    await call("remember_get_preferences", category="search")
    await call("remember_update_preferences", preference_path="templates.suppressed_templates", value=["builtin:x"])
    return answers


async def test_every_tool_answers_one_object_as_compact_text_with_nothing_empty(client: Client) -> None:
    answers = await every_tool(client)
    tools = {t.name: t for t in (await client.list_tools()).tools}
    sdk = MCPServer("sdk")
    remember_tools.add_all(sdk.add_tool)
    # the whole result schema (the listed one leaves out the details, test_lean_listing.py)
    whole = {t.name: compact_output(t.output_schema or {}, lean=False) for t in await sdk.list_tools()}
    assert set(answers) == set(tools)  # a new tool is added to every_tool
    for name, result in answers.items():
        structured = result.structured_content
        schema = tools[name].output_schema
        assert structured is not None and schema is not None, name
        assert len(result.content) == 1 and text(result) == compact_json(structured), name
        assert json.loads(text(result)) == structured, name
        jsonschema.validate(structured, schema)  # what the client also checked
        jsonschema.validate(structured, whole[name])
        assert empties_declared(structured, whole[name]) == [], name  # a detail left empty is left out too


async def test_free_form_values_are_kept_as_stored_and_false_zero_and_empty_text_are_values(client: Client) -> None:
    made = ok(await client.call_tool("remember_create_memory", {"content": "Café in 東京"}))
    assert "Café in 東京" in text(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))
    ok(await client.call_tool("remember_update_memory", {"memory_id": made["id"], "title": "Café"}))
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"], "include_history": True}))
    assert got["history"][0]["previous"] == {"title": None}  # a free-form object, as stored: there was no title
    assert "reason" not in got["history"][0]
    assert (made["access_count"], made["version"]) == (0, 1)
    page = ok(await client.call_tool("remember_list_memories", {"limit": 1}))
    assert (page["has_more"], page["offset"]) == (False, 0) and "next_offset" not in page
    template = ok(
        await client.call_tool(
            "remember_create_template", {"template_name": "Bare", "fields": [{"name": "x", "type": "string"}]}
        )
    )
    got_template = ok(await client.call_tool("remember_get_template", {"template_id": template["id"]}))
    assert got_template["description"] == "" and got_template["auto_apply"] is False


async def test_a_search_that_finds_nothing_says_so_with_an_empty_list(client: Client) -> None:
    found = ok(await client.call_tool("remember_search_memory", {"query": "anything"}))
    assert found == {"results": [], "offset": 0, "limit": 10, "has_more": False, "alpha": found["alpha"]}
    related = ok(await client.call_tool("remember_query_memory", {"question": "anything", "answer": False}))
    assert related["sources"] == [] and "answer" not in related


def test_only_declared_keys_are_pruned_through_refs_and_choices() -> None:
    shared = {"type": "object", "properties": {"note": {"type": "string"}, "free": {"type": "object"}}}
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Shared"},
            "b": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Shared"}}]},
            "results": {"type": "array", "items": {"type": "string"}},
            "n": {"type": "integer"},
        },
        "$defs": {"Shared": shared},
    }
    value = {
        "a": {"note": None, "free": {"x": None, "y": []}},
        "b": [{"note": "", "free": {}}],
        "results": [],
        "n": 0,
        "undeclared": None,
    }
    assert pruned(value, schema, schema["$defs"], ANSWER_LISTS) == {
        "a": {"free": {"x": None, "y": []}},
        "b": [{"note": ""}],
        "results": [],
        "n": 0,
        "undeclared": None,
    }
    assert "results" not in pruned(value, schema, schema["$defs"])
