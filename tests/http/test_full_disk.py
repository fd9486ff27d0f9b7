"""The HTTP server with its SQLite file on a disk that fills up (a real 8 MB tmpfs): writes get a
clear error over MCP, never a server error; reads keep answering; every acknowledged write is
there afterwards, the file passes an integrity check, and writes resume once space is freed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from disks import fill_disk
from http_support import HttpServer, connect
from remember.service.tokens import TokenService
from remember.store import open_store
from support import ok, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_a_full_disk_gives_clear_errors_over_http_and_loses_nothing(small_disk: Path, tmp_path: Path) -> None:
    database = small_disk / "remember.db"
    store = open_store(str(database))
    secret = TokenService(store.tokens).create("alice").secret
    store.close()
    server = HttpServer(tmp_path / "home", f"sqlite:///{database}").start()
    acknowledged: list[str] = []
    try:
        async with connect(server, secret) as client:
            for n in range(20):
                made = ok(await client.call_tool("remember_create_memory", {"content": f"kept {n}"}))
                acknowledged.append(made["id"])
            ballast = small_disk / "ballast"
            fill_disk(ballast)  # another program fills the disk
            refused = None
            for n in range(500):
                result = await client.call_tool("remember_create_memory", {"content": f"filler {n} " + "x" * 20_000})
                if result.is_error:
                    refused = text(result)
                    break
                acknowledged.append(ok(result)["id"])
            assert refused is not None and "free some space" in refused, refused
            found = ok(await client.call_tool("remember_search_memory", {"query": "kept", "alpha": 0.0}))
            assert found["results"]
            first = ok(await client.call_tool("remember_get_memory", {"memory_id": acknowledged[0]}))
            assert first["content"] == "kept 0"
            ballast.unlink()
            acknowledged.append(ok(await client.call_tool("remember_create_memory", {"content": "after"}))["id"])
    finally:
        assert server.stop() == 0
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in db.execute("SELECT id FROM memories WHERE user_id = 'alice'")}
    assert set(acknowledged) <= stored
