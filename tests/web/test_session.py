"""Who a dashboard request acts for, on every way the server can be run, and the one-time codes."""

from __future__ import annotations

from pathlib import Path

import httpx2

from http_support import HttpServer
from remember.service.tokens import TokenService
from remember.store import Store
from remember.web.codes import LIFETIME, LoginCodes
from remember.web.session import host_matches


def test_without_auth_every_request_acts_for_the_configured_user(tmp_path: Path, store: Store) -> None:
    server = HttpServer(tmp_path / "home", store.url, "--no-auth", env={"REMEMBER_USER": "dora"}).start()
    try:
        answer = httpx2.get(f"{server.url}/api/me")
        assert answer.status_code == 200
        assert answer.json()["user"] == "dora"
        login = httpx2.post(f"{server.url}/api/session", json={"token": "x"}, headers={"X-Remember-Request": "1"})
        assert login.status_code == 422
        assert "no login needed" in login.json()["message"]
    finally:
        server.stop()


def test_with_the_built_in_authorization_server_an_api_token_logs_in(tmp_path: Path, store: Store) -> None:
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_OAUTH_SERVER": "1"}).start()
    try:
        token = TokenService(store.tokens).create("erin").secret
        login = httpx2.post(f"{server.url}/api/session", json={"token": token}, headers={"X-Remember-Request": "1"})
        assert login.status_code == 200
        assert login.json()["user"] == "erin"
        assert not login.cookies
        me = httpx2.get(f"{server.url}/api/me", headers={"X-Remember-Session": login.json()["session"]})
        assert me.json()["user"] == "erin"
    finally:
        server.stop()


def test_a_login_needs_a_token_of_sane_size(tmp_path: Path, store: Store) -> None:
    server = HttpServer(tmp_path / "home", store.url).start()
    try:
        headers = {"X-Remember-Request": "1"}
        cases = [(b"not json", "token"), (b'{"token": 5}', "token"), (b"[]", "token")]
        for body, field in cases:
            answer = httpx2.post(f"{server.url}/api/session", content=body, headers=headers)
            assert answer.status_code == 422, body
            assert answer.json()["errors"][0]["field"] == field
        huge = httpx2.post(f"{server.url}/api/session", json={"token": "x" * 10_000}, headers=headers)
        assert huge.status_code == 422
        assert "at most 4096 characters" in huge.json()["message"]
        assert len(huge.text) < 1_000
    finally:
        server.stop()


def test_a_code_logs_in_once_and_not_after_it_expires() -> None:
    now = [0.0]
    codes = LoginCodes(clock=lambda: now[0])
    first, second = codes.issue("token-a"), codes.issue("token-b")
    assert codes.redeem(first) == "token-a"
    assert codes.redeem(first) is None
    now[0] = LIFETIME + 1
    assert codes.redeem(second) is None
    assert codes.redeem("made-up") is None


def test_hosts_match_by_name_and_any_port_only_where_the_pattern_says() -> None:
    assert host_matches("127.0.0.1:8765", "127.0.0.1:*")
    assert host_matches("[::1]:8765", "[::1]:*")
    assert host_matches("Memory.Example.org", "memory.example.org")
    assert not host_matches("127.0.0.1.evil.example:80", "127.0.0.1:*")
    assert not host_matches("127.0.0.1", "127.0.0.1:*")
    assert not host_matches("1:8765", "[::1]:*")


def test_an_unknown_api_address_answers_json(tmp_path: Path, store: Store) -> None:
    server = HttpServer(tmp_path / "home", store.url).start()
    try:
        answer = httpx2.get(f"{server.url}/api/no-such-thing")
        assert answer.status_code == 404
        assert answer.json()["error"] == "NotFound"
        assert "has no GET /api/no-such-thing" in answer.json()["message"]
    finally:
        server.stop()
