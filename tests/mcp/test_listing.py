"""The tools/list answer kept between starts: the same answer, rebuilt whenever it may be stale."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import Tool

from remember.mcp import tools
from remember.mcp.compact import compact_input, compact_output
from remember.mcp.listing import PACKAGE, ListingCache, fingerprint
from remember.mcp.server import build_server
from remember.service import Services
from support import error, ok

pytestmark = pytest.mark.anyio


async def _listed(server: Any) -> list[dict[str, Any]]:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


async def test_a_cached_listing_is_the_listing_the_sdk_builds(services: Services, tmp_path: Path) -> None:
    fresh = await _listed(build_server(services, lambda: "alice"))
    first = build_server(services, lambda: "alice", cache_dir=tmp_path)
    assert await _listed(first) == fresh
    assert (tmp_path / "tools.json").exists()

    second = build_server(services, lambda: "alice", cache_dir=tmp_path)
    assert await _listed(second) == fresh
    assert not second.tools_registered  # answered from the file: no model built, no tool module needed

    # and it is what a plain SDK server makes of the same functions, in compact form (mcp/compact.py)
    sdk = MCPServer("sdk")
    tools.add_all(sdk.add_tool)
    described = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in await sdk.list_tools()]
    for tool in described:  # unknown names refused
        tool["inputSchema"] = compact_input({**tool["inputSchema"], "additionalProperties": False})
        tool["outputSchema"] = compact_output(tool["outputSchema"])
    assert described == fresh


async def test_tools_described_from_the_cache_still_validate_when_called(services: Services, tmp_path: Path) -> None:
    await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path))
    server = build_server(services, lambda: "alice", cache_dir=tmp_path)
    async with Client(server) as client:
        await client.list_tools()
        refused = error(await client.call_tool("remember_create_memory", {"content": "x", "wieght": 1}))
        assert "wieght" in refused
        made = ok(await client.call_tool("remember_create_memory", {"content": "built on first call"}))
        assert made["content"] == "built on first call"
        assert "Unknown tool" in error(await client.call_tool("remember_no_such_tool", {}))
    assert server.registered == {"remember_create_memory"}  # a call builds its own tool, not the others
    assert not server.tools_registered


async def test_a_tool_added_after_a_call_lists_remember_s_tools_in_their_order(
    services: Services, tmp_path: Path
) -> None:
    fresh = await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path))
    server = build_server(services, lambda: "alice", cache_dir=tmp_path)
    async with Client(server) as client:
        ok(await client.call_tool("remember_search_memory", {"query": "anything"}))
        server.add_tool(probe_echo)
        listed = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == [*(tool["name"] for tool in fresh), "probe_echo"]


def test_each_tool_module_lists_the_tools_named_for_it() -> None:
    for module, names in tools.BY_MODULE.items():
        listed = importlib.import_module(f"remember.mcp.tools.{module}").TOOLS
        assert tuple(fn.__name__ for fn, _ in listed) == names


def _tools(*names: str) -> list[Tool]:
    return [Tool(name=name, input_schema={"type": "object"}) for name in names]


def test_a_stale_key_is_not_read_and_saving_rewrites_the_file(tmp_path: Path) -> None:
    ListingCache(tmp_path, key=lambda: "old").save(_tools("old"))
    assert ListingCache(tmp_path, key=lambda: "old").load() == _tools("old")
    assert ListingCache(tmp_path, key=lambda: "new").load() is None
    ListingCache(tmp_path, key=lambda: "new").save(_tools("new"))
    assert ListingCache(tmp_path, key=lambda: "new").load() == _tools("new")
    assert json.loads((tmp_path / "tools.json").read_text())["key"] == "new"


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'{"key": "k"}',
        b'{"key": "k", "tools": {}}',
        b'{"key": "k", "tools": [1]}',
        b'{"key": "k", "tools": [{"name": 5}]}',
    ],
)
def test_a_damaged_file_is_not_read(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "tools.json").write_bytes(content)
    assert ListingCache(tmp_path, key=lambda: "k").load() is None


async def test_a_kept_listing_that_is_not_tool_descriptions_is_rebuilt(services: Services, tmp_path: Path) -> None:
    fresh = await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path))
    kept = json.loads((tmp_path / "tools.json").read_text())
    kept["tools"][0] = {"name": 5, "inputSchema": "not a schema"}
    (tmp_path / "tools.json").write_text(json.dumps(kept))
    assert await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path)) == fresh
    assert json.loads((tmp_path / "tools.json").read_text())["tools"][0]["name"] == fresh[0]["name"]


def test_a_folder_that_cannot_be_written_only_costs_time(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder should be")
    cache = ListingCache(blocker, key=lambda: "k")
    cache.save(_tools("t"))
    assert cache.load() is None
    assert blocker.read_text() == "a file where the folder should be"
    assert list(tmp_path.iterdir()) == [blocker]


def test_the_key_follows_the_source_files(tmp_path: Path) -> None:
    package = tmp_path / "remember"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = fingerprint(package)
    assert fingerprint(package) == before
    assert fingerprint(package) != fingerprint(PACKAGE)  # the path is part of the key

    tool_module = package / "mcp" / "tools" / "memories.py"
    stat = tool_module.stat()
    os.utime(tool_module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    touched = fingerprint(package)
    assert touched != before

    (package / "mcp" / "new_tools.py").write_text("")
    assert fingerprint(package) not in (before, touched)


def probe_echo(text: str) -> str:
    """Echo the text."""
    return text


async def test_a_tool_module_that_fails_to_import_registers_nothing_and_is_tried_again(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = build_server(services, lambda: "alice", cache_dir=tmp_path)
    monkeypatch.delattr(tools, "relationships", raising=False)
    monkeypatch.setitem(sys.modules, "remember.mcp.tools.relationships", None)  # importing it fails
    with pytest.raises(ImportError):
        await server.list_tools()
    assert not server.tools_registered and await MCPServer.list_tools(server) == []
    assert not (tmp_path / "tools.json").exists()  # a partial listing is never kept
    monkeypatch.undo()
    assert len(await server.list_tools()) == 28


def test_the_key_is_taken_when_the_server_starts(tmp_path: Path) -> None:
    keys = iter(["at start", "later"])
    cache = ListingCache(tmp_path, key=lambda: next(keys))
    cache.save(_tools("t"))
    assert json.loads((tmp_path / "tools.json").read_text())["key"] == "at start"


def test_without_visible_sources_nothing_is_kept(tmp_path: Path) -> None:
    assert fingerprint(tmp_path) is None  # no .py files: a zip or bytecode-only install
    cache = ListingCache(tmp_path / "cache", key=lambda: fingerprint(tmp_path))
    cache.save(_tools("t"))
    assert cache.load() is None
    assert not (tmp_path / "cache").exists()


async def test_tools_added_or_removed_through_the_sdk_are_listed_and_skip_the_cache(
    services: Services, tmp_path: Path
) -> None:
    await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path))  # the cache file exists
    server = build_server(services, lambda: "alice", cache_dir=tmp_path)
    server.remove_tool("remember_get_preferences")  # before any tool was registered
    server.add_tool(probe_echo)
    names = [tool["name"] for tool in await _listed(server)]
    assert "remember_get_preferences" not in names and "probe_echo" in names and len(names) == 28
    with pytest.raises(ToolError, match="Unknown tool"):
        server.remove_tool("remember_no_such_tool")
