"""Every tool's schemas are taken by the strictest clients: no finding of the MCP Inspector's
portability rules, nor of the stricter one of bench/portability.py."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from bench.portability import findings, inspector_warnings

pytestmark = pytest.mark.anyio


def tool(input_schema: dict[str, Any], output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    described = {"name": "t", "inputSchema": input_schema}
    return described if output_schema is None else {**described, "outputSchema": output_schema}


async def test_every_tool_schema_is_portable(client: Client) -> None:
    listed = [t.model_dump(by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools]
    assert all("outputSchema" in t for t in listed)
    found = findings(listed)
    assert [str(f) for f in found] == []
    assert inspector_warnings(found) == (0, 0)


@pytest.mark.parametrize(
    ("schema", "rule", "path"),
    [
        ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "type-union", "properties.a"),
        ({"type": "object", "properties": {"a": {"description": "anything"}}}, "untyped-schema", "properties.a"),
        ({"type": "object", "properties": {"a": True}}, "boolean-schema", "properties.a"),
        ({"type": "object", "properties": {"a": {"$ref": "https://x.org/s.json"}}}, "remote-ref", "properties.a"),
        ({"type": "object", "properties": {"a": {"enum": ["x", "y"]}}}, "untyped-value", "properties.a"),
        ({"type": "array", "items": {"properties": {"b": {"type": "string"}}}}, "untyped-value", "items"),
        ({"type": "object", "$defs": {"D": {"minimum": 1}}}, "untyped-value", "$defs.D"),
    ],
)
def test_each_rule_finds_its_construct(schema: dict[str, Any], rule: str, path: str) -> None:
    found = findings([tool({"type": "object"}, schema)])
    assert [(f.schema, f.path, f.rule) for f in found] == [("outputSchema", path, rule)]


def test_what_clients_take_is_not_reported() -> None:
    portable = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "b": {"$ref": "#/$defs/B"},
            "c": {"type": "object", "additionalProperties": True},
        },
        "$defs": {"B": {"type": "integer"}},
    }
    assert findings([tool(portable, portable)]) == []


def test_the_inspector_counts_its_own_rules_only() -> None:
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {}, "c": {"enum": [1]}}}
    found = findings([tool(schema), {**tool(schema), "name": "u"}])
    assert inspector_warnings(found) == (4, 2)
    assert len(found) == 6
