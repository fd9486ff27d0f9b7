"""The built-in authorization server, through a real flow on loopback: discovery, dynamic client
registration, /authorize with PKCE S256, the consent page answered with an API token, the redirect
(followed by the HTTP client to a callback server of the test) carrying the code, state and iss,
the code exchanged, the access token used by the SDK's client, refresh with rotation, revocation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from http_support import HttpServer, connect
from oauth_support import Callback, Flow, pkce, status
from remember.models import MemoryQuery
from remember.service.tokens import TokenService
from remember.store import Store
from support import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def server(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    running = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_OAUTH_SERVER": "1"}).start()
    yield running
    running.stop()


@pytest.fixture
def flow(server: HttpServer, callback: Callback) -> Iterator[Flow]:
    made = Flow(server, callback)
    yield made
    made.close()


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
    assert status(server, renewed["access_token"]) == 200
    assert status(server, first["access_token"]) == 401  # replaced
    replay = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert replay.status_code == 400


def test_a_wrong_verifier_a_wrong_token_and_a_denial_get_nothing(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService
) -> None:
    _, challenge = pkce()
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
    assert status(server, granted["access_token"]) == 200
    tokens.revoke(issued.token.id)
    assert status(server, granted["access_token"]) == 401
    assert status(server, issued.secret) == 401


def test_a_token_made_with_oauth_access_ends_with_the_api_token_behind_the_grant(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService
) -> None:
    issued = tokens.create("erin")
    granted = flow.authorize(issued.secret)
    made = httpx2.post(
        f"{server.url}/api/tokens",
        json={"name": "from a connector"},
        headers={"Authorization": f"Bearer {granted['access_token']}", "X-Remember-Request": "1"},
    )
    assert made.status_code == 200, made.text
    assert made.json()["made_with"] == issued.token.id
    assert status(server, made.json()["token"]) == 200
    tokens.revoke(issued.token.id)
    assert status(server, made.json()["token"]) == 401


def test_api_tokens_work_beside_the_authorization_server(server: HttpServer, tokens: TokenService) -> None:
    assert status(server, tokens.create("erin").secret) == 200
    assert status(server, "made-up") == 401
