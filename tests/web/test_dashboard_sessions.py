"""Dashboard sessions over HTTP, on both backends: made at login, carried in a header, never in a cookie,
replaced at each login, ended at logout and with their token, whoever holds a copy of the id."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest

from http_support import HttpServer
from remember.service.tokens import TokenService
from remember.store import Store

WRITE = {"X-Remember-Request": "1"}


@pytest.fixture
def server(tmp_path: Path, store: Store) -> Iterator[HttpServer]:
    started = HttpServer(tmp_path / "home", store.url).start()
    yield started
    started.stop()


@pytest.fixture
def tokens(store: Store) -> TokenService:
    return TokenService(store.tokens)


def log_in(server: HttpServer, token: str, session: str | None = None) -> str:
    """A login with ``token`` (from a browser holding ``session``); the new session's id."""
    held = {"X-Remember-Session": session} if session else {}
    answer = httpx2.post(f"{server.url}/api/session", json={"token": token}, headers={**WRITE, **held})
    assert answer.status_code == 200, answer.text
    assert not answer.cookies  # nothing the browser would share with the host's other ports
    secret: str = answer.json()["session"]
    return secret


def me(server: HttpServer, session: str) -> httpx2.Response:
    return httpx2.get(f"{server.url}/api/me", headers={"X-Remember-Session": session})


def test_a_session_acts_as_its_token_and_each_login_replaces_the_one_it_was_made_from(
    server: HttpServer, tokens: TokenService
) -> None:
    issued = tokens.create("ana", trust_level=0.5, expires_in=timedelta(minutes=90))
    first = log_in(server, issued.secret)
    assert me(server, first).json() == {"user": "ana", "trust_level": 0.5}
    longer = httpx2.post(
        f"{server.url}/api/tokens", json={"expires": "30d"}, headers={**WRITE, "X-Remember-Session": first}
    )
    assert longer.status_code == 422  # the session acts as its token: no token made here outlives it
    listed = httpx2.get(f"{server.url}/api/tokens", headers={"X-Remember-Session": first}).json()["tokens"]
    assert [t["current"] for t in listed] == [True]

    second = log_in(server, issued.secret, session=first)
    assert second != first
    assert me(server, first).status_code == 401  # rotated: the id held before the login is over
    assert me(server, second).json()["user"] == "ana"
    other_browser = log_in(server, issued.secret)
    assert me(server, second).status_code == 200  # a login elsewhere ends only the session it was sent with
    assert me(server, other_browser).status_code == 200


def test_logging_out_ends_the_session_for_whoever_copied_its_id(server: HttpServer, tokens: TokenService) -> None:
    session = log_in(server, tokens.create("bo").secret)
    stolen = session
    assert me(server, stolen).status_code == 200
    out = httpx2.delete(f"{server.url}/api/session", headers={**WRITE, "X-Remember-Session": session})
    assert out.json() == {"logged_out": True}
    refused = me(server, stolen)
    assert refused.status_code == 401
    assert "This session has ended" in refused.json()["message"]
    minting = httpx2.post(f"{server.url}/api/tokens", json={}, headers={**WRITE, "X-Remember-Session": stolen})
    assert minting.status_code == 401


def test_revoking_the_token_ends_its_sessions(server: HttpServer, tokens: TokenService) -> None:
    kept, revoked = tokens.create("cy"), tokens.create("cy")
    mine, stolen = log_in(server, kept.secret), log_in(server, revoked.secret)
    by_page = httpx2.delete(
        f"{server.url}/api/tokens/{revoked.token.id}", headers={**WRITE, "X-Remember-Session": mine}
    )
    assert by_page.json()["logged_out"] is False  # not this session's token
    assert me(server, stolen).status_code == 401
    assert me(server, mine).status_code == 200
    own = httpx2.delete(f"{server.url}/api/tokens/{kept.token.id}", headers={**WRITE, "X-Remember-Session": mine})
    assert own.json()["logged_out"] is True
    assert me(server, mine).status_code == 401


def test_a_cookie_is_no_credential(server: HttpServer, tokens: TokenService) -> None:
    """Cookies of a host go to every port, where another service can read them and set its own: none is read."""
    issued = tokens.create("dee")
    session = log_in(server, issued.secret)
    for value in (session, issued.secret):
        answer = httpx2.get(f"{server.url}/api/me", cookies={"remember_session": value})
        assert answer.status_code == 401
        assert "Log in with a token" in answer.json()["message"]
    page = httpx2.get(f"{server.url}/", cookies={"remember_session": issued.secret})
    assert 'remember_session=""' in page.headers["set-cookie"] and "Max-Age=0" in page.headers["set-cookie"]


def test_a_login_takes_an_api_token_and_says_why_it_refuses_one(server: HttpServer, tokens: TokenService) -> None:
    for token, said in [
        ("an-oauth-access-token", "logs in with an API token (rmb_…)"),
        ("rmb_0000000000000000_" + "x" * 43, "unknown, revoked or expired"),
    ]:
        answer = httpx2.post(f"{server.url}/api/session", json={"token": token}, headers=WRITE)
        assert answer.status_code == 401
        assert said in answer.json()["message"]
    spent = httpx2.post(f"{server.url}/api/session", json={"code": "made-up"}, headers=WRITE)
    assert spent.status_code == 401
    assert "login link was used or has expired" in spent.json()["message"]
