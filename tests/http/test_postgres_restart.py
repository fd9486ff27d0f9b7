"""PostgreSQL restarted under an HTTP server in use: clear answers while it is down (503 with
Retry-After and the reason, never a 500), then service again without restarting ``remember``;
every acknowledged write kept."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from http_support import HttpServer, connect, initialize_body
from remember.models import MemoryQuery
from remember.service.tokens import TokenService
from remember.store import open_store
from support import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]


async def test_a_database_restart_gives_clear_errors_then_recovers(own_postgres_server: Any, tmp_path: Path) -> None:
    database = own_postgres_server.create_database()
    url = own_postgres_server.url(database, pool_timeout=1)
    store = open_store(url)
    token = TokenService(store.tokens).create("alice").secret
    server = HttpServer(tmp_path / "home", url, env={"REMEMBER_HTTP_RATE_LIMIT": "0"}).start()
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    acknowledged: list[str] = []
    try:
        async with connect(server, token, "2026-07-28") as client:
            for i in range(10):
                acknowledged.append(ok(await client.call_tool("remember_create_memory", {"content": f"m{i}"}))["id"])
        own_postgres_server.stop()
        down = httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers, timeout=30)
        assert down.status_code == 503, down.text
        assert int(down.headers["retry-after"]) >= 1
        assert "Check that the server is running" in down.json()["error_description"]
        own_postgres_server.start()
        deadline = time.monotonic() + 30
        while httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers, timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "no recovery within 30 s"
            time.sleep(0.5)
        async with connect(server, token, "2026-07-28") as client:
            acknowledged.append(ok(await client.call_tool("remember_create_memory", {"content": "after"}))["id"])
    finally:
        server.stop()
    kept = {m.id for m in store.memories.page("alice", MemoryQuery(limit=100)).items}
    assert set(acknowledged) <= kept
    store.close()
