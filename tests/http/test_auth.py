"""Who may use the HTTP server: a valid token's user only; every other request gets 401."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import httpx2
import pytest

from http_support import HttpServer, connect, initialize_body
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ACCEPT = {"Accept": "application/json, text/event-stream"}


def _post(server: HttpServer, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers={**ACCEPT, **headers})


def _refused(answer: httpx2.Response, server: HttpServer, problem: str = "") -> None:
    """A 401 whose challenge and body say ``problem``, pointing at no authorization server (there is none)."""
    assert answer.status_code == 401, answer.text
    challenge = answer.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token"')
    assert "resource_metadata" not in challenge and server.url not in challenge
    said = answer.json()["error_description"]
    assert problem in said and f'error_description="{said}"' in challenge
    assert int(answer.headers["content-length"]) == len(answer.content)


def test_no_token_a_malformed_one_and_an_unknown_one_are_refused(http_server: HttpServer, tokens: TokenService) -> None:
    real = tokens.create("alice").secret
    token_id = real.split("_")[1]
    forged = f"rmb_{token_id}_{'A' * 43}"  # a real id with a wrong secret
    for headers, problem in (
        ({}, "no token was sent"),
        ({"Authorization": "Basic YWxpY2U6c2VjcmV0"}, "no token was sent"),
        ({"Authorization": "Bearer"}, "no token was sent"),
        ({"Authorization": "Bearer nonsense"}, "not an API token of remember"),
        ({"Authorization": f"Bearer {forged}"}, "knows no such API token"),
        ({"Authorization": f"Bearer {real}x"}, "not an API token of remember"),
        ({"X-Remember-Token": forged}, "knows no such API token"),
    ):
        _refused(_post(http_server, headers), http_server, problem)
    assert _post(http_server, {"Authorization": f"Bearer {real}"}).status_code == 200
    assert _post(http_server, {"X-Remember-Token": real}).status_code == 200  # the static header


def test_a_revoked_token_is_refused_at_once(http_server: HttpServer, tokens: TokenService) -> None:
    issued = tokens.create("alice")
    headers = {"Authorization": f"Bearer {issued.secret}"}
    assert _post(http_server, headers).status_code == 200
    tokens.revoke(issued.token.id)
    _refused(_post(http_server, headers), http_server, f"this API token ({issued.token.id}) was revoked on")


def test_an_expired_token_is_refused(http_server: HttpServer, store: Store) -> None:
    month_ago = datetime.now(UTC) - timedelta(days=31)
    old = TokenService(store.tokens, clock=lambda: month_ago).create("alice", expires_in=timedelta(days=30))
    _refused(_post(http_server, {"Authorization": f"Bearer {old.secret}"}), http_server, "expired on")
    fresh = TokenService(store.tokens).create("alice", expires_in=timedelta(days=30))
    assert _post(http_server, {"Authorization": f"Bearer {fresh.secret}"}).status_code == 200


async def test_a_session_cannot_be_taken_over_with_another_users_token(
    http_server: HttpServer, tokens: TokenService
) -> None:
    alice, bob = tokens.create("alice").secret, tokens.create("bob").secret
    opened = _post(http_server, {"Authorization": f"Bearer {alice}"})
    session = opened.headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    headers = {
        **ACCEPT,
        "Authorization": f"Bearer {bob}",
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": "2025-06-18",
    }
    answer = httpx2.post(f"{http_server.url}/mcp", json=call, headers=headers)
    assert answer.status_code in (403, 404), answer.text


def test_no_authorization_server_is_advertised_when_there_is_none(http_server: HttpServer) -> None:
    """With API tokens only, a client is not sent into an OAuth flow that cannot succeed."""
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"):
        assert httpx2.get(f"{http_server.url}{path}").status_code == 404


def test_only_the_hash_of_a_secret_is_stored(store: Store, tokens: TokenService) -> None:
    issued = tokens.create("alice", name="laptop", trust_level=0.5)
    secret = issued.secret.split("_", 2)[2]
    kept = store.tokens.get(issued.token.id)
    assert kept is not None
    assert kept.secret_sha256 == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in repr(kept)
    assert len(secret) == 43  # 256 random bits, base64url
    assert tokens.verify(issued.secret) is not None
    assert tokens.verify(issued.secret.replace(secret[-4:], "AAAA")) is None


async def test_each_request_acts_for_its_tokens_user(
    http_server: HttpServer, tokens: TokenService, store: Store
) -> None:
    for user in ("alice", "bob"):
        async with connect(http_server, tokens.create(user).secret) as client:
            ok(await client.call_tool("remember_create_memory", {"content": f"{user}'s note"}))
    assert store.transfer.user_ids() == ["alice", "bob"]
    from remember.models import MemoryQuery

    for user in ("alice", "bob"):
        assert [m.content for m in store.memories.page(user, MemoryQuery()).items] == [f"{user}'s note"]


async def test_a_tokens_trust_level_bounds_what_it_reaches(http_server: HttpServer, tokens: TokenService) -> None:
    async with connect(http_server, tokens.create("alice").secret) as owner:
        high = ok(await owner.call_tool("remember_create_memory", {"content": "vault code", "trust": 0.9}))
        ok(await owner.call_tool("remember_create_memory", {"content": "shopping list", "trust": 0.1}))
    async with connect(http_server, tokens.create("alice", trust_level=0.5).secret) as guest:
        listed = ok(await guest.call_tool("remember_list_memories", {}))
        assert [m["content"] for m in listed["memories"]] == ["shopping list"]
        got = await guest.call_tool("remember_get_memory", {"memory_id": high["id"]})
        assert got.is_error and f"No memory with id {high['id']!r}" in text(got)
