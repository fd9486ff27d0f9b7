"""``remember serve --http``: the SDK's client over both protocol generations, /health, Host and Origin
checks, the body limit, loopback-only without auth, and a shutdown that lets calls finish."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import httpx2
import pytest

from http_support import MODES, HttpServer, connect, initialize_body
from remember.models import MemoryQuery
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok, run

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_client_works_over_http(http_server: HttpServer, tokens: TokenService, mode: str) -> None:
    token = tokens.create("alice").secret
    async with connect(http_server, token, mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "remember_search_memory" in names
        made = ok(await client.call_tool("remember_create_memory", {"content": f"over http, {mode}"}))
        got = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))
        assert got["content"] == f"over http, {mode}"
        listed = ok(await client.call_tool("remember_list_memories", {}))
        assert [m["id"] for m in listed["memories"]] == [made["id"]]


def test_health_answers_without_a_token(http_server: HttpServer) -> None:
    answer = httpx2.get(f"{http_server.url}/health")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok"


def test_another_sites_origin_and_a_foreign_host_are_refused(http_server: HttpServer, tokens: TokenService) -> None:
    headers = {
        "Authorization": f"Bearer {tokens.create('alice').secret}",
        "Accept": "application/json, text/event-stream",
    }
    url = f"{http_server.url}/mcp"
    fine = httpx2.post(url, json=initialize_body(), headers=headers)
    assert fine.status_code == 200, fine.text
    evil = httpx2.post(url, json=initialize_body(), headers={**headers, "Origin": "http://evil.example"})
    assert evil.status_code == 403
    rebound = httpx2.post(url, json=initialize_body(), headers={**headers, "Host": "evil.example:80"})
    assert rebound.status_code in (400, 421)


def test_a_body_above_the_limit_is_refused(store: Store, tmp_path: Path, tokens: TokenService) -> None:
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_HTTP_MAX_BODY": "4096"}).start()
    try:
        headers = {
            "Authorization": f"Bearer {tokens.create('alice').secret}",
            "Accept": "application/json, text/event-stream",
        }
        body = initialize_body()
        body["params"]["clientInfo"]["name"] = "x" * 10_000
        answer = httpx2.post(f"{server.url}/mcp", json=body, headers=headers)
        assert answer.status_code == 413
    finally:
        assert server.stop() == 0


def test_serving_beyond_loopback_without_auth_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "serve", "--http", "--host", "0.0.0.0", "--no-auth")
    assert code == 1
    assert "Refusing to serve 0.0.0.0 without authentication" in err
    code, _, err = run(capsys, "serve", "--no-auth")
    assert code == 1 and "--http" in err


async def test_without_auth_on_loopback_requests_act_for_the_configured_user(store: Store, tmp_path: Path) -> None:
    server = HttpServer(tmp_path / "home", store.url, "--no-auth", "--user", "carol").start()
    try:
        async with connect(server, None) as client:
            ok(await client.call_tool("remember_create_memory", {"content": "carol's"}))
        assert [m.content for m in store.memories.page("carol", _everything()).items] == ["carol's"]
    finally:
        server.stop()


async def test_sigterm_lets_the_calls_in_flight_finish(
    http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    token = tokens.create("alice").secret
    assert http_server.process is not None
    acknowledged: list[str] = []

    async def keep_writing() -> None:
        # The stateless revision: every call is one request of its own.
        async with connect(http_server, token, "2026-07-28") as client:
            for i in range(10_000):
                made = ok(await client.call_tool("remember_create_memory", {"content": f"note {i} " + "word " * 300}))
                acknowledged.append(made["id"])

    writer = asyncio.ensure_future(keep_writing())
    while len(acknowledged) < 10 and not writer.done():
        await asyncio.sleep(0.01)
    http_server.process.send_signal(signal.SIGTERM)
    with contextlib.suppress(Exception):  # the writer stops when the server is gone
        await asyncio.wait_for(writer, timeout=60)
    assert http_server.process.wait(timeout=30) == 0
    stored = {m.id for m in store.memories.page("alice", _everything()).items}
    assert len(acknowledged) >= 10
    assert set(acknowledged) <= stored  # every answered write is kept


def _everything() -> MemoryQuery:
    return MemoryQuery(limit=100_000)
