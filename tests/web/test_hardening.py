"""The dashboard against hostile sessions and input: tokens that outlive their session, made-up
credentials, numbers JSON does not allow, nesting past Python's limits, and server paths in errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest

from http_support import HttpServer
from remember.clock import parse_moment
from remember.service.tokens import TokenService
from remember.store import Store

WRITE = {"X-Remember-Request": "1"}


@pytest.fixture
def server(tmp_path: Path, store: Store) -> Iterator[HttpServer]:
    started = HttpServer(tmp_path / "home", store.url).start()
    yield started
    started.stop()


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **WRITE}


def test_a_token_made_in_a_session_ends_no_later_than_the_session(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store)
    session = tokens.create("ada", expires_in=timedelta(minutes=90), trust_level=0.5)
    ends = session.token.expires_at
    assert ends is not None
    made = httpx2.post(f"{server.url}/api/tokens", json={"name": "forever"}, headers=_as(session.secret))
    assert made.status_code == 200, made.text
    assert made.json()["expires_at"] is not None
    assert parse_moment(made.json()["expires_at"]) <= ends
    longer = httpx2.post(
        f"{server.url}/api/tokens", json={"name": "long", "expires": "30d"}, headers=_as(session.secret)
    )
    assert longer.status_code == 422
    assert longer.json()["errors"][0]["field"] == "expires"
    assert "ends no later" in longer.json()["message"]
    shorter = httpx2.post(f"{server.url}/api/tokens", json={"expires": "30m"}, headers=_as(session.secret))
    assert shorter.status_code == 200
    assert parse_moment(shorter.json()["expires_at"]) < ends
    assert [t.name for t in tokens.list("ada") if t.expires_at is None] == []
    forever = tokens.create("bob").secret  # a token without an end makes tokens without one
    assert httpx2.post(f"{server.url}/api/tokens", json={}, headers=_as(forever)).json()["expires_at"] is None


def test_a_session_sees_and_revokes_only_tokens_at_most_as_trusted(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store)
    owner = tokens.create("cy", name="owner")
    session = tokens.create("cy", name="half", trust_level=0.5)
    low = tokens.create("cy", name="low", trust_level=0.2)
    listed = httpx2.get(f"{server.url}/api/tokens", headers=_as(session.secret)).json()["tokens"]
    assert sorted(t["name"] for t in listed) == ["half", "low"]
    refused = httpx2.delete(f"{server.url}/api/tokens/{owner.token.id}", headers=_as(session.secret))
    assert refused.status_code == 404
    assert all(t.revoked_at is None for t in tokens.list("cy") if t.id == owner.token.id)
    assert httpx2.delete(f"{server.url}/api/tokens/{low.token.id}", headers=_as(session.secret)).status_code == 200
    full = httpx2.get(f"{server.url}/api/tokens", headers=_as(owner.secret)).json()["tokens"]
    assert sorted(t["name"] for t in full) == ["half", "low", "owner"]
