"""Every tool explains a wrong call by parameter: an unknown name (and the closest known one),
a missing required one, a value of the wrong type; and nothing is stored. Through a real client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from remember.mcp.server import build_server
from remember.service import Services
from remember.store import open_store
from support import error, fingerprint

pytestmark = pytest.mark.anyio

WRONG = {"string": 12345, "number": "lots", "integer": "many", "boolean": "maybe", "array": 7, "object": "text"}
EXPECTED = {
    "string": "a text",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


def _tools() -> list[dict[str, Any]]:
    import anyio

    async def listed() -> list[dict[str, Any]]:
        services = Services.over(open_store(":memory:"))
        async with Client(build_server(services, lambda: "alice")) as client:
            tools = (await client.list_tools()).tools
        services.close()
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]

    return anyio.run(listed)


TOOLS = _tools()
NAMES = [t["name"] for t in TOOLS]


def _kind(node: dict[str, Any]) -> str | None:
    kind = node.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    return kind if kind in WRONG and "enum" not in node else None


def _typed_parameters(tool: dict[str, Any]) -> list[tuple[str, str]]:
    properties = tool["inputSchema"].get("properties", {})
    return [(name, kind) for name, node in properties.items() if (kind := _kind(node))]


@pytest.fixture
def server(db_path: Path) -> MCPServer:
    return build_server(Services.over(open_store(str(db_path))), lambda: "alice")


async def _refused(server: MCPServer, db_path: Path, tool: str, args: dict[str, Any]) -> str:
    async with Client(server) as client:
        await client.call_tool("remember_create_memory", {"content": "something to keep"})
        before = fingerprint(db_path)
        message = error(await client.call_tool(tool, args))
        assert fingerprint(db_path) == before, "a refused call changed the database"
    assert "validation error" not in message and "Arguments" not in message  # not pydantic's raw text
    return message


@pytest.mark.parametrize("tool", NAMES)
async def test_an_unknown_parameter_is_named(server: MCPServer, db_path: Path, tool: str) -> None:
    message = await _refused(server, db_path, tool, {"no_such_parameter": 1})
    assert "unknown parameter 'no_such_parameter'" in message
    assert tool in message and "Its parameters:" in message


@pytest.mark.parametrize("tool", [t["name"] for t in TOOLS if t["inputSchema"].get("properties")])
async def test_a_misspelt_parameter_gets_the_closest_name(server: MCPServer, db_path: Path, tool: str) -> None:
    schema = next(t for t in TOOLS if t["name"] == tool)["inputSchema"]
    name = max(schema["properties"], key=len)
    misspelt = name[: len(name) // 2] + name[len(name) // 2 + 1 :]  # a letter dropped
    message = await _refused(server, db_path, tool, {misspelt: 1})
    assert f"unknown parameter '{misspelt}'; did you mean '{name}'?" in message


@pytest.mark.parametrize("tool", [t["name"] for t in TOOLS if t["inputSchema"].get("required")])
async def test_a_missing_required_parameter_is_named(server: MCPServer, db_path: Path, tool: str) -> None:
    required = next(t for t in TOOLS if t["name"] == tool)["inputSchema"]["required"]
    message = await _refused(server, db_path, tool, {})
    for name in required:
        assert f"missing required parameter '{name}'" in message


CASES = [(t["name"], name, kind) for t in TOOLS for name, kind in _typed_parameters(t)]


@pytest.mark.parametrize(("tool", "parameter", "kind"), CASES, ids=[f"{t}.{p}" for t, p, _ in CASES])
async def test_a_wrong_type_says_what_was_expected_and_given(
    server: MCPServer, db_path: Path, tool: str, parameter: str, kind: str
) -> None:
    message = await _refused(server, db_path, tool, {parameter: WRONG[kind]})
    line = next((line for line in message.splitlines() if f"parameter '{parameter}' expects" in line), None)
    assert line is not None, message
    assert EXPECTED[kind] in line and "got" in line


def test_the_table_covers_every_tool() -> None:
    assert len(NAMES) == 28
    untyped = {t["name"] for t in TOOLS} - {t for t, _, _ in CASES}
    assert untyped <= {"remember_get_preferences"}  # its one parameter is a choice of categories
    assert len(CASES) > 60
