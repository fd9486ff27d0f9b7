"""The body limit and the Host check on every route: the consent page and the authorization server's endpoints
refuse a body over ``REMEMBER_HTTP_MAX_BODY`` before reading it (413), a body of undeclared length (411) and a
host the server does not answer to (421); /mcp and the dashboard's API keep their own limits and words (tests/web,
tests/http/test_transport.py)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from http_support import HttpServer
from remember.http.limits import BodyLimit
from remember.service.tokens import TokenService
from remember.store import Store

LIMIT = 64 * 1024


@pytest.fixture
def server(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    env = {"REMEMBER_OAUTH_SERVER": "1", "REMEMBER_HTTP_MAX_BODY": str(LIMIT)}
    running = HttpServer(tmp_path / "home", store.url, env=env).start()
    yield running
    running.stop()


@pytest.mark.parametrize("path", ["/consent", "/register", "/token", "/revoke", "/authorize"])
def test_a_body_over_the_limit_is_refused_before_the_route_reads_it(server: HttpServer, path: str) -> None:
    over = b"x" * (LIMIT + 1)
    answer = httpx2.post(f"{server.url}{path}", content=over, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 413
    assert answer.json() == {
        "error": "request_too_large",
        "error_description": f"The request body is larger than this server takes ({LIMIT} bytes, "
        "REMEMBER_HTTP_MAX_BODY).",
    }
    assert httpx2.get(f"{server.url}/health").status_code == 200


def test_a_body_within_the_limit_reaches_the_route(server: HttpServer) -> None:
    answer = httpx2.post(f"{server.url}/consent", data={"request": "nope", "api_token": "x", "action": "allow"})
    assert answer.status_code == 400 and "unknown or has expired" in answer.text


def test_a_multipart_flood_declaring_its_length_is_refused_at_once(server: HttpServer) -> None:
    parts = {f"f{i}": ("x", b"y" * 8192) for i in range(64)}
    answer = httpx2.post(f"{server.url}/consent", files=parts)
    assert answer.status_code == 413


def test_a_body_of_undeclared_length_is_refused_with_411(server: HttpServer) -> None:
    host = server.url.removeprefix("http://").encode()
    answer = _raw(
        server,
        b"POST /consent HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nab=cd\r\n0\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 411") and b"Content-Length" in answer


def test_a_request_aborted_mid_body_is_logged_in_one_line(server: HttpServer, tokens: TokenService) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    token = tokens.create("alice").secret
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nAccept: application/json, text/event-stream\r\n"
            "Content-Length: 1000\r\n\r\n{".encode()
        )
        time.sleep(0.5)
    deadline = time.monotonic() + 30
    while "went away" not in server.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    logged = server.log.read_text()
    assert "the client went away before sending its whole request" in logged
    assert "Traceback" not in logged and "ClientDisconnect" not in logged


@pytest.mark.parametrize(
    "path", ["/consent", "/authorize", "/register", "/token", "/.well-known/oauth-authorization-server", "/"]
)
def test_every_route_refuses_a_host_it_does_not_answer_to(server: HttpServer, path: str) -> None:
    answer = httpx2.post(f"{server.url}{path}", headers={"Host": "attacker.example:80"}, data={"a": "b"})
    assert answer.status_code == 421 and answer.json()["error"] == "invalid_host"
    assert httpx2.get(f"{server.url}/health", headers={"Host": "10.0.0.5:8765"}).status_code == 200


def _raw(server: HttpServer, request: bytes) -> bytes:
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.anyio
async def test_the_route_is_not_called_for_a_body_over_the_limit() -> None:
    called: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope["path"])

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    limited = BodyLimit(app, 10)
    for path, length, status in [("/consent", b"11", 413), ("/consent", b"10", None), ("/mcp", b"11", None)]:
        sent.clear()
        scope = {"type": "http", "path": path, "headers": [(b"content-length", length)]}
        await limited(scope, receive, send)
        assert (sent[0]["status"] if sent else None) == status
    assert called == ["/consent", "/mcp"]
