"""Tenant isolation over HTTP, on SQLite and PostgreSQL: with Bob's token every tool answers Alice's
ids as unknown, shows nothing of hers, and changes nothing of hers (her stored data, access counts
included, is the same before and after)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from http_support import HttpServer, connect, logical_fingerprint
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SECRET = "zanzibar"  # a word only Alice's data holds
BOOK_FIELDS = [{"name": "title", "type": "string", "required": True}, {"name": "rating", "type": "integer"}]


async def _alices_data(client: Client) -> dict[str, str]:
    memory = ok(
        await client.call_tool("remember_create_memory", {"content": f"Alice's {SECRET} plan", "tags": [SECRET]})
    )
    template = ok(
        await client.call_tool(
            "remember_create_template",
            {
                "template_name": "Reading log",
                "fields": BOOK_FIELDS,
                "auto_apply": True,
                "trigger_keywords": [SECRET],
                "description": f"{SECRET} books",
            },
        )
    )
    templated = ok(
        await client.call_tool(
            "remember_create_memory",
            {"template_id": template["id"], "structured_content": {"title": f"{SECRET} tales", "rating": 5}},
        )
    )
    ok(await client.call_tool("remember_update_preferences", {"preference_path": "search.default_limit", "value": 42}))
    link = ok(
        await client.call_tool(
            "remember_create_relationship",
            {"memory_ids": [memory["id"], templated["id"]], "relationship_type": "about",
             "observation": f"the {SECRET} plan and its tales"},
        )
    )  # fmt: skip
    return {"memory": memory["id"], "template": template["id"], "templated": templated["id"], "link": link["id"]}


def _calls(ids: dict[str, str], bobs_memory: str) -> list[tuple[str, dict[str, Any], str | None]]:
    """Every tool, aimed at Alice's data where it takes an id: (tool, arguments, the error it must give)."""
    memory, template = ids["memory"], ids["template"]
    unknown_memory = f"No memory with id {memory!r}"
    unknown_template = f"No template with id {template!r}"
    link, unknown_link = ids["link"], f"No relationship with id {ids['link']!r}"
    return [
        (
            "remember_create_relationship",
            {"memory_ids": [memory, bobs_memory], "relationship_type": "x"},
            unknown_memory,
        ),
        ("remember_update_relationship", {"relationship_id": link, "strength": 0.1}, unknown_link),
        ("remember_delete_relationship", {"relationship_id": link}, unknown_link),
        ("remember_search_relationships", {"query": SECRET}, None),
        ("remember_search_relationships", {"memory_id": memory}, None),
        ("remember_get_related", {"memory_id": memory, "depth": 3}, unknown_memory),
        ("remember_get_memory", {"memory_id": memory, "include_history": True}, unknown_memory),
        ("remember_update_memory", {"memory_id": memory, "title": "mine now"}, unknown_memory),
        ("remember_delete_memory", {"memory_id": memory}, unknown_memory),
        ("remember_delete_memory", {"memory_id": memory, "permanent": True}, unknown_memory),
        ("remember_restore_memory", {"memory_id": memory}, unknown_memory),
        ("remember_find_similar", {"memory_id": memory}, unknown_memory),
        ("remember_apply_template", {"memory_id": memory, "template_id": "book"}, unknown_memory),
        ("remember_apply_template", {"memory_id": bobs_memory, "template_id": template}, unknown_template),
        ("remember_get_template", {"template_id": template}, unknown_template),
        ("remember_update_template", {"template_id": template, "description": "mine"}, unknown_template),
        ("remember_delete_template", {"template_id": template, "delete_derived_memories": True}, unknown_template),
        ("remember_copy_template", {"template_id": template}, unknown_template),
        ("remember_validate_memory", {"template_id": template, "content": {"title": "x"}}, unknown_template),
        ("remember_template_analytics", {"template_id": template}, unknown_template),
        ("remember_list_memories", {"include_deleted": "include"}, None),
        ("remember_list_memories", {"tags": [SECRET]}, None),
        ("remember_list_memories", {"filters": {"id": memory}}, None),
        ("remember_search_memory", {"query": SECRET, "deleted": "include"}, None),
        ("remember_find_similar", {"text": f"Alice's {SECRET} plan"}, None),
        ("remember_query_memory", {"question": f"What is the {SECRET} plan?"}, None),
        ("remember_list_templates", {}, None),
        ("remember_suggest_templates", {"content": f"a {SECRET} book"}, None),
        ("remember_get_preferences", {}, None),
        ("remember_update_preferences", {"preference_path": "search.default_limit", "value": 7}, None),
        ("remember_create_memory", {"content": "Bob's own"}, None),
        ("remember_create_template", {"template_name": "Reading log", "fields": BOOK_FIELDS}, None),
        ("remember_infer_templates", {}, None),
        ("remember_infer_templates", {"accept": "infer-000000000000", "apply": True}, "No proposal"),
        ("remember_manage_space", {"action": "list"}, None),
    ]


@pytest.mark.parametrize("mode", ["legacy"])
async def test_bobs_token_reaches_nothing_of_alices(
    http_server: HttpServer, tokens: TokenService, store: Store, mode: str
) -> None:
    async with connect(http_server, tokens.create("alice").secret, mode) as alice:
        ids = await _alices_data(alice)
    before = logical_fingerprint(store, ["alice"])
    problems: list[str] = []
    async with connect(http_server, tokens.create("bob").secret, mode) as bob:
        bobs_memory = ok(await bob.call_tool("remember_create_memory", {"content": "Bob's first"}))["id"]
        tried = set()
        for tool, args, must_say in _calls(ids, bobs_memory):
            tried.add(tool)
            result = await bob.call_tool(tool, args)
            said = text(result) + json.dumps(result.structured_content or {})
            if must_say is not None and not (result.is_error and must_say in said):
                problems.append(f"{tool} {args}: {said[:300]}")
            if must_say is None and result.is_error:
                problems.append(f"{tool} {args} failed: {said[:300]}")
            leaked = [v for v in (SECRET, *ids.values()) if v in said and v not in json.dumps(args)]
            if leaked:
                problems.append(f"{tool} {args} showed Alice's {leaked}: {said[:300]}")
        listed = {t.name for t in (await bob.list_tools()).tools}
        resources = await bob.list_resources()
        prompts = await bob.list_prompts()
    assert tried == listed, f"tools not tried: {listed - tried}"
    assert not any(ids["template"] in str(r.uri) for r in resources.resources)
    assert not any("Reading log" in (p.description or "") and ids["template"] in p.name for p in prompts.prompts)
    assert problems == []
    assert logical_fingerprint(store, ["alice"]) == before
