"""Huge values in any parameter get a small error answer: values are echoed only as short, marked excerpts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from remember.errors import FieldError, ValidationFailed, bounded, excerpt
from support import error, ok

pytestmark = pytest.mark.anyio

HUGE = "x" * 1_000_000
SMALL_ANSWER = 5_000


def size(result: CallToolResult) -> int:
    shown = sum(len(getattr(c, "text", "")) for c in result.content)
    return shown + len(json.dumps(result.structured_content or {}, ensure_ascii=False))


@pytest.fixture
async def numbers(client: Client) -> str:
    made = await client.call_tool(
        "remember_create_template",
        {"template_name": "Numbers", "fields": [{"name": "items", "type": "array", "item_type": "integer"}]},
    )
    return str(ok(made)["id"])


async def test_a_ten_megabyte_field_name_is_answered_small(client: Client, numbers: str) -> None:
    name = "x" * 10_000_000
    result = await client.call_tool("remember_validate_memory", {"template_id": numbers, "content": {name: 1}})
    answer = ok(result)
    assert not answer["valid"]
    assert size(result) < SMALL_ANSWER
    assert "(10000000 characters)" in json.dumps(answer)


async def test_a_million_item_array_is_answered_small(client: Client, numbers: str) -> None:
    result = await client.call_tool(
        "remember_validate_memory", {"template_id": numbers, "content": {"items": list(range(1_000_000))}}
    )
    answer = ok(result)
    assert [e["code"] for e in answer["errors"]] == ["max_items"]
    assert answer["errors"][0]["value"] == "[0, 1, 2, 3, 4, 5, ...] (1000000 items)"
    assert size(result) < SMALL_ANSWER


async def test_every_parameter_of_every_tool_answers_a_huge_text_small(client: Client, numbers: str) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("remember_list_memories", {"filters": {HUGE: 1}}),
        ("remember_list_memories", {"filters": {"weight": {HUGE: 1}}}),
        ("remember_search_memory", {"query": "x", "filters": {"structured_content." + HUGE: 1}}),
        ("remember_create_memory", {"content": "x", "context": {HUGE: 1}}),
        ("remember_create_memory", {"content": "x", HUGE: 1}),
        ("remember_validate_memory", {"template_id": numbers, "content": {"items": [HUGE]}}),
    ]
    for tool in (await client.list_tools()).tools:
        calls += [(tool.name, {name: HUGE}) for name in tool.input_schema.get("properties", {})]
    large = {
        f"{tool} {next(iter(args))[:40]}": size(r)
        for tool, args in calls
        if size(r := await client.call_tool(tool, args)) >= SMALL_ANSWER
    }
    assert large == {}


async def test_a_huge_template_id_is_shown_as_an_excerpt(client: Client) -> None:
    message = error(await client.call_tool("remember_get_template", {"template_id": "t" * 100_000}))
    assert "(100000 characters)" in message
    assert len(message) < 500


def test_excerpts_mark_what_they_leave_out() -> None:
    assert excerpt("short") == "'short'"
    assert excerpt("y" * 100) == repr("y" * 60) + "… (100 characters)"
    assert excerpt(list(range(7))) == "[0, 1, 2, 3, 4, 5, ...] (7 items)"
    assert excerpt(10**1000).startswith("an integer of")
    assert bounded({"a": [1, 2]}) == {"a": [1, 2]}
    assert bounded("z" * 300) == excerpt("z" * 300)


def test_field_errors_and_messages_stay_small_whoever_builds_them() -> None:
    problem = FieldError("f" * 10_000, "type", "m" * 10_000, list(range(100_000)))
    assert len(json.dumps(problem.as_dict())) < 2_000
    many = ValidationFailed("bad input", [FieldError(f"f{i}", "type", "wrong type") for i in range(10_000)])
    assert len(many.errors) == 10_000
    assert len(str(many)) < 5_000
    assert "9950 more problems" in str(many)
