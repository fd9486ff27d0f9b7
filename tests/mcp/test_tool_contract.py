"""Pins every tool's name, parameters and annotations: changing one is a decision, not an accident."""

from __future__ import annotations

import pytest
from mcp import Client

pytestmark = pytest.mark.anyio

# name: (parameters, required, (readOnly, destructive, idempotent))
CONTRACT: dict[str, tuple[list[str], list[str], tuple[bool, bool, bool]]] = {
    "remember_create_memory": (
        ["content", "title", "type", "weight", "trust", "tags", "references", "context", "location",
         "template_id", "structured_content", "skip_template_suggestion", "supersedes", "valid_from", "valid_until",
         "space"],
        [],
        (False, False, False),
    ),
    "remember_get_memory": (
        ["memory_id", "include_history", "include_relationships"], ["memory_id"], (True, False, True)
    ),
    "remember_update_memory": (
        ["memory_id", "content", "title", "type", "weight", "trust", "tags", "references", "context", "location",
         "template_id", "structured_content", "clear_fields", "reason", "valid_from", "valid_until", "space"],
        ["memory_id"],
        (False, False, False),
    ),
    "remember_delete_memory": (["memory_id", "permanent", "reason"], ["memory_id"], (False, True, True)),
    "remember_restore_memory": (["memory_id", "reason"], ["memory_id"], (False, False, True)),
    "remember_list_memories": (
        ["type", "tags", "tags_match", "created_after", "created_before", "filters", "sort_by", "sort_order",
         "limit", "offset", "include_deleted", "as_of", "include_superseded", "spaces"],
        [],
        (True, False, True),
    ),
    "remember_get_preferences": (["category"], [], (True, False, True)),
    "remember_update_preferences": (
        ["preference_path", "value", "reason"], ["preference_path", "value"], (False, False, True)
    ),
    "remember_create_template": (
        ["template_name", "fields", "description", "parent_template_id", "category", "tags", "auto_apply",
         "trigger_keywords", "trigger_context", "examples", "weight", "trust", "identity", "space"],
        ["template_name", "fields"],
        (False, False, False),
    ),
    "remember_list_templates": (
        ["include_default", "include_user", "category", "tags", "sort_by", "limit", "offset", "spaces"], [],
        (True, False, True),
    ),
    "remember_get_template": (["template_id"], ["template_id"], (True, False, True)),
    "remember_update_template": (
        ["template_id", "template_name", "description", "parent_template_id", "category", "tags", "auto_apply",
         "trigger_keywords", "trigger_context", "examples", "weight", "trust", "identity", "add_fields",
         "update_fields", "remove_fields", "version"],
        ["template_id"],
        (False, False, False),
    ),
    "remember_delete_template": (["template_id", "delete_derived_memories"], ["template_id"], (False, True, False)),
    "remember_copy_template": (["template_id", "template_name", "space"], ["template_id"], (False, False, False)),
    "remember_validate_memory": (["template_id", "content"], ["template_id", "content"], (True, False, True)),
    "remember_template_analytics": (["template_id", "metrics"], ["template_id"], (True, False, True)),
    "remember_search_memory": (
        ["query", "alpha", "filters", "limit", "offset", "deleted", "explain", "include_relationships", "min_score",
         "as_of", "include_superseded", "spaces"],
        ["query"],
        (True, False, True),
    ),
    "remember_find_similar": (
        ["memory_id", "text", "min_similarity", "limit", "filters", "include_relationships", "as_of", "spaces"],
        [],
        (True, False, True),
    ),
    "remember_query_memory": (
        ["question", "token_budget", "alpha", "filters", "answer", "include_relationships", "include_related",
         "as_of", "spaces"],
        ["question"],
        (True, False, True),
    ),
    "remember_suggest_templates": (["content", "context", "limit", "space"], ["content"], (False, False, False)),
    "remember_apply_template": (
        ["memory_id", "template_id", "structured_content", "reason"],
        ["memory_id", "template_id"],
        (False, False, False),
    ),
    "remember_infer_templates": (["accept", "apply", "space"], [], (False, False, False)),
    "remember_create_relationship": (
        ["memory_ids", "relationship_type", "observation", "strength", "confidence", "tags", "valid_from",
         "valid_until", "space"],
        ["memory_ids", "relationship_type"],
        (False, False, False),
    ),
    "remember_update_relationship": (
        ["relationship_id", "memory_ids", "relationship_type", "observation", "strength", "confidence", "tags",
         "reason", "valid_until", "clear_fields"],
        ["relationship_id"],
        (False, False, False),
    ),
    "remember_delete_relationship": (["relationship_id"], ["relationship_id"], (False, True, True)),
    "remember_search_relationships": (
        ["query", "alpha", "types", "memory_id", "min_strength", "min_confidence", "tags", "created_after",
         "created_before", "limit", "offset", "min_score", "spaces"],
        [],
        (True, False, True),
    ),
    "remember_get_related": (
        ["memory_id", "depth", "types", "min_strength", "as_of"], ["memory_id"], (True, False, True)
    ),
    "remember_manage_space": (["action", "space", "name", "user", "role"], ["action"], (False, True, False)),
}  # fmt: skip


async def test_tools_match_the_contract(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert sorted(tools) == sorted(CONTRACT)
    for name, (params, required, (read_only, destructive, idempotent)) in CONTRACT.items():
        tool = tools[name]
        schema = tool.input_schema
        assert list(schema["properties"]) == params, name
        assert sorted(schema.get("required", [])) == sorted(required), name
        assert schema.get("additionalProperties") is False, name
        hints = tool.annotations
        assert hints is not None
        # MCP's defaults for a hint left out: not read-only, destructive, not idempotent, open world
        stated = (
            bool(hints.read_only_hint),
            hints.destructive_hint is not False,
            bool(hints.idempotent_hint),
        )
        if read_only:
            assert stated[0] is True, name  # destructive and idempotent mean nothing for a read
        else:
            assert stated == (read_only, destructive, idempotent), name
        assert hints.open_world_hint is False


async def test_every_tool_is_documented_for_the_model(client: Client) -> None:
    for tool in (await client.list_tools()).tools:
        assert tool.description, tool.name
        given = [name for name in tool.input_schema["properties"] if name != "reason"]
        if len(given) > 1:  # a tool that takes only an id needs no example
            assert "Example:" in tool.description, tool.name
        assert tool.output_schema is not None, tool.name
        # every parameter is described, by itself, its name or the tool it points to: test_lean_listing.py
