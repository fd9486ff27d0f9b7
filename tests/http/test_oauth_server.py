"""The built-in authorization server, through a real flow on loopback: discovery, dynamic client
registration, /authorize with PKCE S256, the consent page answered with an API token, the redirect
(followed by the HTTP client to a callback server of the test) carrying the code, state and iss,
the code exchanged, the access token used by the SDK's client, refresh with rotation, revocation."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from http_support import HttpServer, connect, initialize_body
from remember.models import MemoryQuery
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


class Callback:
    """The client's redirect listener on loopback: records the query of each redirect it receives."""

    def __init__(self) -> None:
        self.received: list[dict[str, str]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append({k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()})
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"done")

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/callback"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def callback() -> Iterator[Callback]:
    made = Callback()
    yield made
    made.http.shutdown()
    made.http.server_close()


@pytest.fixture
def server(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    running = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_OAUTH_SERVER": "1"}).start()
    yield running
    running.stop()


@pytest.fixture
def flow(server: HttpServer, callback: Callback) -> Iterator[Flow]:
    made = Flow(server, callback)
    yield made
    made.http.close()


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class Flow:
    """One client's way through the authorization server, as a connector would go."""

    def __init__(self, server: HttpServer, callback: Callback) -> None:
        self.server, self.callback = server, callback
        self.http = httpx2.Client(follow_redirects=True, timeout=30)
        self.resource = f"{server.url}/mcp"
        prm = self.http.get(f"{server.url}/.well-known/oauth-protected-resource/mcp").json()
        assert prm["resource"] == self.resource
        self.issuer = prm["authorization_servers"][0].rstrip("/")
        self.meta = self.http.get(f"{self.issuer}/.well-known/oauth-authorization-server").json()
        assert self.meta["code_challenge_methods_supported"] == ["S256"]
        assert self.meta["authorization_response_iss_parameter_supported"] is True  # RFC 9207
        registered = self.http.post(
            self.meta["registration_endpoint"],
            json={
                "redirect_uris": [callback.url],
                "client_name": "Test connector",
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            },
        )
        assert registered.status_code == 201, registered.text
        self.client_id = registered.json()["client_id"]

    def consent_page(self, challenge: str, state: str) -> httpx2.Response:
        query = {
            "response_type": "code", "client_id": self.client_id, "redirect_uri": self.callback.url,
            "code_challenge": challenge, "code_challenge_method": "S256", "state": state, "resource": self.resource,
        }  # fmt: skip
        page = self.http.get(self.meta["authorization_endpoint"], params=query)
        assert page.status_code == 200 and "Allow Test connector?" in page.text, page.text
        return page

    def answer(self, page: httpx2.Response, api_token: str, action: str = "allow") -> httpx2.Response:
        request = re.search(r'name="request" value="([^"]+)"', page.text)
        assert request is not None
        form = {"request": request.group(1), "api_token": api_token, "action": action}
        return self.http.post(str(page.url).split("?")[0], data=form)

    def token(self, **form: str) -> httpx2.Response:
        return self.http.post(self.meta["token_endpoint"], data={"client_id": self.client_id, **form})

    def authorize(self, api_token: str) -> dict[str, Any]:
        verifier, challenge = _pkce()
        state = secrets.token_urlsafe(8)
        self.answer(self.consent_page(challenge, state), api_token)
        back = self.callback.received[-1]
        assert back["state"] == state and back["iss"] == self.issuer
        answer = self.token(
            grant_type="authorization_code", code=back["code"], redirect_uri=self.callback.url,
            code_verifier=verifier, resource=self.resource,
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        return {**answer.json(), "code": back["code"], "verifier": verifier}


def _status(server: HttpServer, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers).status_code


async def test_a_connector_is_authorized_with_an_api_token(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService, store: Store
) -> None:
    granted = flow.authorize(tokens.create("erin", trust_level=0.5).secret)
    assert granted["token_type"] == "Bearer" and granted["expires_in"] == 3600
    async with connect(server, granted["access_token"]) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "erin's note", "trust": 0.4}))
        refused = await client.call_tool("remember_create_memory", {"content": "too high", "trust": 0.9})
        assert refused.is_error  # the API token's trust level came along
    assert [m.content for m in store.memories.page("erin", MemoryQuery()).items] == ["erin's note"]
    # The code is single-use.
    again = flow.token(
        grant_type="authorization_code", code=granted["code"], redirect_uri=callback.url,
        code_verifier=granted["verifier"],
    )  # fmt: skip
    assert again.status_code == 400


def test_refresh_rotates_both_tokens(server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService) -> None:
    first = flow.authorize(tokens.create("erin").secret)
    second = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert second.status_code == 200, second.text
    renewed = second.json()
    assert renewed["refresh_token"] != first["refresh_token"]
    assert _status(server, renewed["access_token"]) == 200
    assert _status(server, first["access_token"]) == 401  # replaced
    replay = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert replay.status_code == 400


def test_a_wrong_verifier_a_wrong_token_and_a_denial_get_nothing(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService
) -> None:
    _, challenge = _pkce()
    page = flow.consent_page(challenge, "s1")
    refused = flow.answer(page, "rmb_0000000000000000_" + "A" * 43)
    assert refused.status_code == 400 and "not a valid API token" in refused.text
    assert callback.received == []
    flow.answer(flow.consent_page(challenge, "s2"), "", action="deny")
    assert callback.received[-1]["error"] == "access_denied" and callback.received[-1]["state"] == "s2"
    flow.answer(flow.consent_page(challenge, "s3"), tokens.create("erin").secret)
    code = callback.received[-1]["code"]
    wrong = flow.token(grant_type="authorization_code", code=code, redirect_uri=callback.url, code_verifier="x" * 50)
    assert wrong.status_code == 400 and "code_verifier" in wrong.text


def test_revoking_the_api_token_ends_the_access_it_granted(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService
) -> None:
    issued = tokens.create("erin")
    granted = flow.authorize(issued.secret)
    assert _status(server, granted["access_token"]) == 200
    tokens.revoke(issued.token.id)
    assert _status(server, granted["access_token"]) == 401
    assert _status(server, issued.secret) == 401


def test_api_tokens_work_beside_the_authorization_server(server: HttpServer, tokens: TokenService) -> None:
    assert _status(server, tokens.create("erin").secret) == 200
    assert _status(server, "made-up") == 401
