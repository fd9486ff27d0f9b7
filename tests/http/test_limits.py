"""Limits: requests per minute per token (429 with Retry-After), result size, call time."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

from http_support import HttpServer, connect, initialize_body
from remember.http.limits import Guard, RateLimit, accepted
from remember.mcp.server import CallLimits, build_server
from remember.service import Services
from remember.service.dashboard_sessions import DashboardSessionService
from remember.service.tokens import TokenService
from remember.store import Store
from support import error, ok

pytestmark = pytest.mark.anyio
STREAMABLE = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def limited(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    """A server that takes 3 requests a minute per token."""
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_HTTP_RATE_LIMIT": "3"}).start()
    yield server
    server.stop()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_allows_a_burst_then_the_rate() -> None:
    clock = Clock()
    limit = RateLimit(60, clock)  # one a second, 60 at once
    assert all(limit.take("a") == 0 for _ in range(60))
    assert limit.take("a") == pytest.approx(1.0)
    assert limit.take("b") == 0  # another key has its own bucket
    clock.now = 1.0
    assert limit.take("a") == 0
    assert limit.take("a") > 0


@pytest.mark.slow
def test_past_the_rate_a_token_gets_429_with_retry_after(store: Store, tmp_path: Path, tokens: TokenService) -> None:
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_HTTP_RATE_LIMIT": "5"}).start()
    try:
        headers = {
            "Authorization": f"Bearer {tokens.create('alice').secret}",
            "Accept": "application/json, text/event-stream",
        }
        other = {**headers, "Authorization": f"Bearer {tokens.create('bob').secret}"}
        codes = [
            httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers).status_code for _ in range(7)
        ]
        assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
        refused = httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers)
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"] == "rate_limited"
        assert httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=other).status_code == 200
        assert httpx2.get(f"{server.url}/health").status_code == 200
        assert httpx2.get(f"{server.url}/static/app.js").status_code == 200  # the dashboard's files: not limited
    finally:
        server.stop()


def session_of(sessions: DashboardSessionService, user: str) -> dict[str, str]:
    """The header of a new dashboard session for ``user``."""
    return {"X-Remember-Session": sessions.start(sessions.tokens.create(user).token).secret}


@pytest.mark.slow
def test_the_dashboard_session_has_its_own_bucket(limited: HttpServer, sessions: DashboardSessionService) -> None:
    alice, bob = session_of(sessions, "alice"), session_of(sessions, "bob")
    codes = [httpx2.get(f"{limited.url}/api/me", headers=alice).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert httpx2.get(f"{limited.url}/api/me", headers=bob).status_code == 200


@pytest.mark.slow
def test_junk_beside_the_session_earns_no_fresh_bucket(limited: HttpServer, sessions: DashboardSessionService) -> None:
    alice = session_of(sessions, "alice")
    codes = [
        httpx2.get(
            f"{limited.url}/api/me",
            headers={**alice, "Authorization": f"Junk {i}"},
            cookies={"remember_session": f"junk-{i}"},  # a cookie is read by no one: no bucket of its own
        ).status_code
        for i in range(5)
    ]
    assert codes == [200, 200, 200, 429, 429]


async def test_the_bucket_is_the_token_the_request_is_served_with() -> None:
    limit = RateLimit(1000)
    guard = Guard(_accepting, limit)
    for i in range(50):  # junk schemes and empty bearers name no bucket; the address pays for them
        assert await _through(guard, f"Basic junk-{i}".encode()) == 200
        assert await _through(guard, b"Bearer   ") == 200
    assert len(limit) == 1
    await _through(guard, b"bearer real")
    await _through(guard, b"Bearer real ")
    assert len(limit) == 2  # the token's own bucket, whatever the scheme's case and the spaces


async def _accepting(scope: Any, receive: Any, send: Any) -> None:
    """An app that accepts every bearer token (as the SDK's middleware notes in the scope)."""
    headers = dict(scope["headers"])
    if headers.get(b"authorization", b"").lower().startswith(b"bearer ") and headers[b"authorization"][7:].strip():
        accepted()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


@pytest.mark.slow
async def test_a_result_above_the_size_limit_is_an_error(store: Store, tmp_path: Path, tokens: TokenService) -> None:
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_MAX_RESULT_BYTES": "4096"}).start()
    try:
        async with connect(server, tokens.create("alice").secret) as client:
            for i in range(5):
                ok(await client.call_tool("remember_create_memory", {"content": f"note {i} " + "long " * 200}))
            said = error(await client.call_tool("remember_list_memories", {"limit": 5}))
            assert "more than this server sends at once (4096, REMEMBER_MAX_RESULT_BYTES)" in said
            assert ok(await client.call_tool("remember_list_memories", {"limit": 1}))["total"] == 5
    finally:
        server.stop()


async def test_a_call_past_the_time_limit_answers_with_an_error(services: Services) -> None:
    server = build_server(services, lambda: "alice", limits=CallLimits(timeout=0.2))

    async def slow_tool() -> str:
        await asyncio.sleep(5)
        return "late"

    server.add_tool(slow_tool)
    async with Client(server) as client:
        said = error(await client.call_tool("slow_tool", {}))
        assert "took longer than 0.2 s" in said and "REMEMBER_CALL_TIMEOUT" in said
        ok(await client.call_tool("remember_get_preferences", {}))  # a quick call is answered


@pytest.mark.slow
def test_made_up_sessions_are_limited_per_address_and_real_sessions_keep_their_buckets(
    limited: HttpServer, tokens: TokenService, sessions: DashboardSessionService
) -> None:
    alice = session_of(sessions, "alice")
    assert httpx2.get(f"{limited.url}/api/me", headers=alice).status_code == 200
    made_up = [f"rms_{i:043d}" for i in range(5)]
    codes = [httpx2.get(f"{limited.url}/api/me", headers={"X-Remember-Session": s}).status_code for s in made_up]
    assert codes == [401, 401, 401, 429, 429]
    mcp = httpx2.post(
        f"{limited.url}/mcp",
        json=initialize_body(),
        headers={"Authorization": "Bearer another-guess", "Accept": "application/json, text/event-stream"},
    )
    assert mcp.status_code == 429
    assert httpx2.get(f"{limited.url}/api/me", headers=alice).status_code == 200
    fresh = session_of(sessions, "carol")  # never seen: checked, not locked out by the guesses
    assert httpx2.get(f"{limited.url}/api/me", headers=fresh).status_code == 200
    mcp = httpx2.post(
        f"{limited.url}/mcp",
        json=initialize_body(),
        headers={"Authorization": f"Bearer {tokens.create('dave').secret}", **STREAMABLE},
    )
    assert mcp.status_code == 200


async def _refusing_guesses(scope: Any, receive: Any, send: Any) -> None:
    """An app answering 401 to a token with "guess" in it, 200 to any other (which it does not check)."""
    status = 401 if b"guess" in dict(scope["headers"]).get(b"authorization", b"") else 200
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def _through(guard: Guard, authorization: bytes) -> int:
    return await _sending(guard, [(b"authorization", authorization)])


async def _sending(guard: Guard, headers: list[tuple[bytes, bytes]]) -> int:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "path": "/", "client": ("10.0.0.1", 1), "headers": headers}
    await guard(scope, receive, send)
    return int(sent[0]["status"])


async def test_unaccepted_credentials_make_no_buckets() -> None:
    limit = RateLimit(1000)
    guard = Guard(_refusing_guesses, limit)
    for i in range(200):  # unchecked (200 without an accepted token) or refused (401): none gets a bucket
        assert await _through(guard, f"Bearer guess-{i}".encode()) == 401
        assert await _through(guard, f"Bearer unchecked-{i}".encode()) == 200
    assert len(limit) == 2  # the address's bucket and its failed logins' bucket


class Valid:
    """A verifier that accepts the tokens named "valid…"."""

    def __init__(self) -> None:
        self.checked: list[str] = []

    async def verify_token(self, token: str) -> Any:
        self.checked.append(token)
        return object() if token.startswith("valid") else None


async def test_a_valid_credential_passes_while_its_address_is_refused_for_guesses() -> None:
    verifier = Valid()
    guard = Guard(_refusing_guesses, RateLimit(3), verifier)
    codes = [await _through(guard, f"Bearer guess-{i}".encode()) for i in range(5)]
    assert codes == [401, 401, 401, 429, 429] and verifier.checked == ["guess-3", "guess-4"]
    assert await _through(guard, b"Bearer valid-new") == 200
    unchecked = Guard(_refusing_guesses, RateLimit(3))  # without a verifier, nothing tells it from a guess
    [await _through(unchecked, f"Bearer guess-{i}".encode()) for i in range(3)]
    assert await _through(unchecked, b"Bearer valid-new") == 429


async def test_a_valid_session_passes_while_its_address_is_refused_for_guesses() -> None:
    checked: list[str] = []

    async def in_use(session: str) -> bool:
        checked.append(session)
        return session.startswith("valid")

    guard = Guard(_refusing_guesses, RateLimit(3), Valid(), in_use)
    codes = [await _through(guard, f"Bearer guess-{i}".encode()) for i in range(5)]
    assert codes == [401, 401, 401, 429, 429]
    assert await _sending(guard, [(b"x-remember-session", b"valid-session")]) == 200
    assert await _sending(guard, [(b"x-remember-session", b"made-up")]) == 429
    assert await _sending(guard, [(b"cookie", b"remember_session=valid-cookie")]) == 200  # the address's request
    assert checked == ["valid-session", "made-up"]  # a cookie is no credential: never checked


async def test_unchecked_made_up_credentials_count_against_their_address() -> None:
    guard = Guard(_refusing_guesses, RateLimit(5))
    codes = [await _through(guard, f"Bearer unchecked-{i}".encode()) for i in range(7)]
    assert codes == [200] * 5 + [429, 429]
