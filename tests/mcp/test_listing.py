"""The tools/list answer kept between starts: the same answer, rebuilt whenever it may be stale."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from remember.mcp.compact import compact_input, compact_output
from remember.mcp.listing import PACKAGE, ListingCache, fingerprint
from remember.mcp.registry import ToolRegistry, ToolSpec, hints
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
    assert second.tools.built() == []  # answered from the file: no model built, no tool module needed

    # and it is what the SDK itself makes of the same functions (but for refusing unknown names)
    sdk = MCPServer("sdk")
    own = build_server(services, lambda: "alice")
    for name in own.tools.names():
        tool = own.tools.get(name)
        assert tool is not None
        sdk.add_tool(
            tool.fn, name=name, title=tool.title, description=tool.description, annotations=tool.annotations,
            structured_output=True,
        )  # fmt: skip
    described = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in await sdk.list_tools()]
    for tool in described:  # with the schemas in compact form (mcp/compact.py), unknown names refused
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
    assert server.tools.built() == ["remember_create_memory"]


def test_a_stale_key_rebuilds_and_rewrites_the_file(tmp_path: Path) -> None:
    ListingCache(tmp_path, key=lambda: "old").get_or_build(lambda: [{"name": "old"}], list)
    calls: list[int] = []

    def build() -> list[dict[str, Any]]:
        calls.append(1)
        return [{"name": "new"}]

    assert ListingCache(tmp_path, key=lambda: "new").get_or_build(build, list) == [{"name": "new"}]
    assert ListingCache(tmp_path, key=lambda: "new").get_or_build(build, list) == [{"name": "new"}]
    assert len(calls) == 1
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
    ],
)
def test_a_damaged_file_is_rebuilt(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "tools.json").write_bytes(content)
    assert ListingCache(tmp_path, key=lambda: "k").get_or_build(lambda: [{"name": "t"}], list) == [{"name": "t"}]
    assert json.loads((tmp_path / "tools.json").read_text()) == {"key": "k", "tools": [{"name": "t"}]}


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
    assert cache.get_or_build(lambda: [{"name": "t"}], list) == [{"name": "t"}]
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


def probe_shout(text: str) -> str:
    """Echo the text in capitals."""
    return text.upper()


def test_a_loader_that_fails_declares_nothing_and_runs_again(tmp_path: Path) -> None:
    tools = ToolRegistry()
    attempts: list[int] = []

    def declare(fn: Any) -> None:
        tools.declare(ToolSpec(fn, fn.__name__, fn.__doc__ or "", hints(read_only=True)))

    def loader() -> None:
        attempts.append(1)
        declare(probe_echo)
        if len(attempts) == 1:
            raise RuntimeError("a tool module failed to import")
        declare(probe_shout)

    tools.load_with(loader)
    cache = ListingCache(tmp_path, key=lambda: "k")
    with pytest.raises(RuntimeError, match="failed to import"):
        tools.listing(cache)
    assert tools.built() == [] and tools.declared() == []
    assert not (tmp_path / "tools.json").exists()  # a partial listing is never kept
    assert [tool.name for tool in tools.listing(cache)] == ["probe_echo", "probe_shout"]
    assert len(attempts) == 2


def test_the_key_is_taken_when_the_server_starts(tmp_path: Path) -> None:
    keys = iter(["at start", "later"])
    cache = ListingCache(tmp_path, key=lambda: next(keys))
    cache.get_or_build(lambda: [{"name": "t"}], list)
    assert json.loads((tmp_path / "tools.json").read_text())["key"] == "at start"


def test_without_visible_sources_nothing_is_kept(tmp_path: Path) -> None:
    assert fingerprint(tmp_path) is None  # no .py files: a zip or bytecode-only install
    cache = ListingCache(tmp_path / "cache", key=lambda: fingerprint(tmp_path))
    assert cache.get_or_build(lambda: [{"name": "t"}], list) == [{"name": "t"}]
    assert not (tmp_path / "cache").exists()


async def test_tools_added_or_removed_through_the_sdk_are_listed_and_skip_the_cache(
    services: Services, tmp_path: Path
) -> None:
    await _listed(build_server(services, lambda: "alice", cache_dir=tmp_path))  # the cache file exists
    server = build_server(services, lambda: "alice", cache_dir=tmp_path)
    server.remove_tool("remember_get_preferences")  # declared, never built
    server.add_tool(probe_echo)
    names = [tool["name"] for tool in await _listed(server)]
    assert "remember_get_preferences" not in names and "probe_echo" in names and len(names) == 27
    with pytest.raises(ToolError, match="Unknown tool"):
        server.remove_tool("remember_no_such_tool")
