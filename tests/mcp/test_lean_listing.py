"""The tool list is lean without losing what a client needs to call the tools right.

What may be left out of the tool list, and nothing else: prose (a parameter's description where its name
says it all, or where the tool it points to says it), a result's detail properties (``schemas.detail``)
and the item type of a result's plain list. Every parameter's type, enum, default and bound, the required
lists, the unknown-names refusal and the whole result schemas the server prunes results by are pinned in
``pinned/tool_shapes.json``: a change there is a decision made in that file, not a side effect of making
the list shorter. To pin a deliberate change: ``REPIN_TOOL_SHAPES=1 pytest tests/mcp/test_lean_listing.py``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from remember.jsontypes import DETAIL
from remember.mcp import tools
from remember.mcp.compact import compact_output

pytestmark = pytest.mark.anyio

PINNED = Path(__file__).parent / "pinned" / "tool_shapes.json"
LIMIT = 40_000
# Parameters whose name (and type or enum) says all there is to say.
SAID_BY_NAME = frozenset(
    {"memory_id", "relationship_id", "offset", "include_relationships", "type", "sort_by", "sort_order", "deleted",
     "include_deleted", "category", "description"}
)  # fmt: skip


def without_prose(node: Any) -> Any:
    if isinstance(node, list):
        return [without_prose(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {k: without_prose(v) for k, v in node.items() if not (k == "description" and isinstance(v, str))}


async def _whole_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's result schema as the server prunes results by: compact, nothing left out."""
    sdk = MCPServer("sdk")
    tools.add_all(sdk.add_tool)
    return {t.name: compact_output(t.output_schema or {}, lean=False) for t in await sdk.list_tools()}


async def _listed(client: Client) -> dict[str, dict[str, Any]]:
    return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools}


async def test_only_prose_and_result_details_are_left_out_of_the_tool_list(client: Client) -> None:
    listed, whole = await _listed(client), await _whole_schemas()
    shapes = {name: {"input": without_prose(t["inputSchema"]), "output": whole[name]} for name, t in listed.items()}
    if os.environ.get("REPIN_TOOL_SHAPES"):
        PINNED.write_text(json.dumps(shapes, indent=1, sort_keys=True) + "\n")
    assert shapes == json.loads(PINNED.read_text())
    for name, tool in listed.items():
        _lean_within(tool["outputSchema"], whole[name], name)


def _lean_within(lean: Any, whole: Any, path: str) -> None:
    """``lean`` says nothing ``whole`` does not: each property it names has the same type, and the ones it
    leaves out are details."""
    assert isinstance(lean, dict) and isinstance(whole, dict), path
    assert lean.get("type") == whole.get("type") and lean.get("enum") == whole.get("enum"), path
    if "properties" in whole:
        assert set(lean["properties"]) <= set(whole["properties"]), path
        for key, sub in lean["properties"].items():
            _lean_within(sub, whole["properties"][key], f"{path}.{key}")
    if "items" in lean:
        _lean_within(lean["items"], whole["items"], f"{path}[]")
    elif "items" in whole:
        assert set(whole["items"]) == {"type"}, f"{path}: only a plain list's item type may go"


async def test_what_a_result_leaves_out_is_only_a_model_s_named_details(client: Client) -> None:
    sdk = MCPServer("sdk")
    tools.add_all(sdk.add_tool)
    details = {name for t in await sdk.list_tools() for name in _details(t.output_schema)}
    assert {"weight", "context", "template_compliance", "usage_count"} <= details  # the memory's and template's
    listed, whole = await _listed(client), await _whole_schemas()
    for name, tool in listed.items():
        for path, gone in _left_out(tool["outputSchema"], whole[name], name):
            assert gone <= details, f"{path} leaves out {gone - details}, which no model names as a detail"
    create = listed["remember_create_memory"]["outputSchema"]["properties"]
    assert {"id", "content", "title", "structured_content", "validity", "template_suggestions", "duplicate",
            "identity", "conflicts"} <= set(create)  # fmt: skip
    hit = listed["remember_search_memory"]["outputSchema"]["properties"]["results"]["items"]["properties"]
    assert {"memory", "score", "relationships"} <= set(hit)
    assert {"id", "content", "title", "type", "tags", "template_id", "validity"} <= set(hit["memory"]["properties"])


def _details(node: Any) -> set[str]:
    if isinstance(node, list):
        return {name for item in node for name in _details(item)}
    if not isinstance(node, dict):
        return set()
    return set(node.get(DETAIL, ())) | {name for value in node.values() for name in _details(value)}


def _left_out(lean: Any, whole: Any, path: str) -> list[tuple[str, set[str]]]:
    if not isinstance(lean, dict) or not isinstance(whole, dict):
        return []
    found = []
    if "properties" in whole:
        found.append((path, set(whole["properties"]) - set(lean["properties"])))
        for key, sub in lean["properties"].items():
            found += _left_out(sub, whole["properties"][key], f"{path}.{key}")
    if "items" in lean:
        found += _left_out(lean["items"], whole["items"], f"{path}[]")
    return found


async def test_a_parameter_without_a_description_is_said_by_its_name_or_where_its_tool_points(
    client: Client,
) -> None:
    listed = await _listed(client)
    for name, tool in listed.items():
        pointed = re.findall(r"as in\s+(remember_\w+)", tool["description"])
        for param, prop in tool["inputSchema"]["properties"].items():
            said = prop.get("description", "")
            twin = re.fullmatch(r"As in (remember_\w+)\.", said)
            if twin:  # described once, in the tool it points to
                assert _described(listed[twin.group(1)], param), f"{name}.{param}: {said}"
            elif not said and param not in SAID_BY_NAME:
                assert pointed, f"{name}.{param} has no description and its tool points to none"
                assert any(_described(listed[other], param) for other in pointed), f"{name}.{param}"


def _described(tool: dict[str, Any], param: str) -> bool:
    said = tool["inputSchema"]["properties"].get(param, {}).get("description", "")
    return bool(said) and not said.startswith("As in ")


async def test_the_tool_list_leaves_room_for_new_tools(client: Client) -> None:
    tools_ = list((await _listed(client)).values())
    size = len(json.dumps({"tools": tools_}, separators=(",", ":"), ensure_ascii=False).encode())
    assert size <= LIMIT - 3_000, f"{size} bytes: keep 3,000 of the {LIMIT} free for the next tool"
