"""The built-in authorization server keeps its state in the database: a connector's grant survives a restart
of the server, two servers over one PostgreSQL are one authorization server, only digests of secrets are
kept, what an unauthenticated sender can make is bounded, one user's token never acts for another, and a
replayed refresh token or code revokes what descends from its authorization."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from http_support import HttpServer, connect
from oauth_support import Callback, Flow, pkce, registration, status
from remember.http import oauth_bounds
from remember.http.oauth_server import CODE_REUSED, REFRESH_REUSED
from remember.models import MemoryQuery
from remember.service.tokens import TokenService
from remember.store import Store, open_store
from support import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TABLES = ("oauth_clients", "oauth_pending", "oauth_grants", "oauth_codes", "oauth_tokens")
OAUTH = {"REMEMBER_OAUTH_SERVER": "1"}


@pytest.fixture
def server(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    running = HttpServer(tmp_path / "home", store.url, env=OAUTH).start()
    yield running
    running.stop()


def kept(store: Store) -> str:
    """Every row of the authorization server's tables, as text."""
    with store.sql.reading() as s:
        rows = {table: s.all(f"SELECT * FROM {table}") for table in TABLES}
    return json.dumps({t: [list(r) for r in found] for t, found in rows.items()}, default=str)


def counts(store: Store) -> dict[str, int]:
    with store.sql.reading() as s:
        return {table: int(s.value(f"SELECT count(*) FROM {table}")) for table in TABLES}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def test_a_grant_survives_restarts_of_the_server(
    server: HttpServer, callback: Callback, tokens: TokenService, store: Store
) -> None:
    flow = Flow(server, callback, auth_method="client_secret_post")  # a confidential client, as Claude.ai registers
    granted = flow.authorize(tokens.create("erin").secret)
    async with connect(server, granted["access_token"]) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "written before the restart"}))
    server.stop()
    server.start()
    async with connect(server, granted["access_token"]) as client:  # the access token still works
        found = ok(await client.call_tool("remember_search_memory", {"query": "written before the restart"}))
    assert "written before the restart" in json.dumps(found)
    renewed = flow.refresh(granted["refresh_token"])  # and so do the client and its refresh token
    assert renewed.status_code == 200, renewed.text
    assert status(server, renewed.json()["access_token"]) == 200
    assert status(server, granted["access_token"]) == 401  # rotated away
    server.stop()
    server.start()
    again = flow.refresh(renewed.json()["refresh_token"])
    assert again.status_code == 200, again.text
    async with connect(server, again.json()["access_token"]) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "written after two restarts"}))
    assert {m.content for m in store.memories.page("erin", MemoryQuery()).items} == {
        "written before the restart",
        "written after two restarts",
    }
    flow.close()


@pytest.mark.postgres
async def test_a_grant_made_on_one_server_is_used_and_refreshed_on_another(
    postgres_url: str, tmp_path: Path, callback: Callback
) -> None:
    store = open_store(postgres_url)
    first = HttpServer(tmp_path / "one", postgres_url, env=OAUTH)
    # Both serve one public URL, as workers behind one proxy do: the resource tokens are issued for.
    first.env["REMEMBER_PUBLIC_URL"] = first.url
    second = HttpServer(tmp_path / "two", postgres_url, env={**OAUTH, "REMEMBER_PUBLIC_URL": first.url})
    first.start()
    second.start()
    try:
        flow = Flow(first, callback)  # registered with the first
        # Authorized through the second (its pending request answered on the first's consent page), the code
        # exchanged on the second.
        flow.meta["authorization_endpoint"] = f"{second.url}/authorize"
        flow.meta["token_endpoint"] = f"{second.url}/token"
        granted = flow.authorize(TokenService(store.tokens).create("erin").secret)
        assert status(second, granted["access_token"]) == 200
        renewed = flow.refresh(granted["refresh_token"], at=second.url)
        assert renewed.status_code == 200, renewed.text
        assert status(first, renewed.json()["access_token"]) == 200
        assert status(first, granted["access_token"]) == status(second, granted["access_token"]) == 401
        async with connect(second, renewed.json()["access_token"]) as client:
            ok(await client.call_tool("remember_create_memory", {"content": "written through the second"}))
        again = flow.refresh(renewed.json()["refresh_token"], at=first.url)
        assert again.status_code == 200, again.text
        assert status(second, again.json()["access_token"]) == 200
        # Replayed on the second after it was rotated on the first: the grant is revoked on both.
        assert flow.refresh(renewed.json()["refresh_token"], at=second.url).status_code == 400
        assert status(first, again.json()["access_token"]) == 401
        assert [m.content for m in store.memories.page("erin", MemoryQuery()).items] == ["written through the second"]
        flow.close()
    finally:
        first.stop()
        second.stop()
        store.close()


def test_only_digests_of_secrets_are_kept(
    server: HttpServer, callback: Callback, tokens: TokenService, store: Store
) -> None:
    flow = Flow(server, callback, auth_method="client_secret_post")
    assert flow.client_secret is not None
    _, challenge = pkce()
    page = flow.consent_page(challenge, "s1")
    request = str(page.url).split("request=")[1]
    assert sha256(request) in kept(store) and request not in kept(store)
    code, verifier = flow.code(tokens.create("erin").secret)
    granted = flow.exchange(code, verifier).json()
    renewed = flow.refresh(granted["refresh_token"]).json()
    text = kept(store)
    secrets = [flow.client_secret, code, granted["access_token"], granted["refresh_token"], renewed["access_token"]]
    secrets.append(renewed["refresh_token"])
    for secret in secrets:
        assert secret not in text
        assert sha256(secret) in text
    flow.close()


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_a_client_secret_is_checked_against_its_digest(
    server: HttpServer, callback: Callback, tokens: TokenService, store: Store, method: str
) -> None:
    flow = Flow(server, callback, auth_method=method)
    granted = flow.authorize(tokens.create("erin").secret)
    client_secret = flow.client_secret
    assert client_secret is not None
    with store.sql.reading() as s:
        kept_digest = s.value("SELECT secret_sha256 FROM oauth_clients WHERE id = ?", (flow.client_id,))
    for wrong in ("x" * 64, kept_digest):  # a guess, and the digest a stolen copy of the database would show
        flow.client_secret = wrong
        refused = flow.refresh(granted["refresh_token"])
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_client", refused.text
    flow.client_secret = client_secret
    assert flow.refresh(granted["refresh_token"]).status_code == 200
    flow.close()


def test_registration_fields_are_bounded(server: HttpServer, callback: Callback, store: Store) -> None:
    register = f"{server.url}/register"
    long_name = httpx2.post(register, json=registration(callback, client_name="n" * 1_000_000))
    assert long_name.status_code == 400
    assert long_name.json() == {
        "error": "invalid_client_metadata",
        "error_description": "client_name is 1000000 characters long; this server takes at most 200.",
    }
    many = httpx2.post(register, json=registration(callback, redirect_uris=[f"{callback.url}{n}" for n in range(11)]))
    assert many.json() == {
        "error": "invalid_redirect_uri",
        "error_description": "redirect_uris has 11 entries; this server takes at most 10.",
    }
    assert counts(store)["oauth_clients"] == 0


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("javascript:alert(1)//", "uses javascript:"),
        ("data:text/html,hi", "uses data:"),
        ("file:///etc/passwd", "uses file:"),
        ("https://app.example/cb#frag", "has a fragment"),
        ("http://app.example/cb", "http to another machine"),
    ],
)
def test_a_redirect_uri_no_code_may_go_to_is_refused(
    server: HttpServer, callback: Callback, store: Store, uri: str, says: str
) -> None:
    refused = httpx2.post(f"{server.url}/register", json=registration(callback, redirect_uris=[uri]))
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri", refused.text
    assert says in refused.json()["error_description"]
    assert counts(store)["oauth_clients"] == 0


@pytest.mark.parametrize(
    "uri", ["https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:8123/cb", "cursor://x/cb"]
)
def test_https_loopback_and_an_apps_own_scheme_are_taken(server: HttpServer, callback: Callback, uri: str) -> None:
    assert httpx2.post(f"{server.url}/register", json=registration(callback, redirect_uris=[uri])).status_code == 201


def test_registrations_from_one_address_are_bounded_until_a_person_allows_one(
    server: HttpServer, callback: Callback, tokens: TokenService, store: Store
) -> None:
    flows = [Flow(server, callback) for _ in range(oauth_bounds.CLIENTS_PER_ADDRESS)]
    refused = httpx2.post(f"{server.url}/register", json=registration(callback))
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_client_metadata"
    assert refused.json()["error_description"].startswith(
        "This server keeps at most 20 registrations from one address that no person has allowed yet;"
    )
    assert counts(store)["oauth_clients"] == oauth_bounds.CLIENTS_PER_ADDRESS
    flows[0].authorize(tokens.create("erin").secret)  # allowed: no longer waiting, its place is free
    assert httpx2.post(f"{server.url}/register", json=registration(callback)).status_code == 201
    for flow in flows:
        flow.close()


def test_authorization_requests_are_bounded(server: HttpServer, callback: Callback, flow: Flow, store: Store) -> None:
    _, challenge = pkce()
    long_state = flow.http.get(
        flow.meta["authorization_endpoint"], params=flow.authorization_query(challenge, "s" * 5_000)
    )
    assert long_state.status_code == 200  # followed to the client's redirect URI, with the error
    back = callback.received[-1]
    assert back["error"] == "invalid_request"
    assert back["error_description"] == "state is 5000 characters long; this server takes at most 2000."
    assert counts(store)["oauth_pending"] == 0
    for n in range(oauth_bounds.PENDING_PER_CLIENT):
        flow.consent_page(challenge, f"s{n}")
    assert counts(store)["oauth_pending"] == oauth_bounds.PENDING_PER_CLIENT
    flow.http.get(flow.meta["authorization_endpoint"], params=flow.authorization_query(challenge, "one more"))
    back = callback.received[-1]
    assert back["error"] == "temporarily_unavailable" and back["state"] == "one more"
    assert back["error_description"].startswith("This client has 20 authorization requests waiting for consent")
    assert counts(store)["oauth_pending"] == oauth_bounds.PENDING_PER_CLIENT


@pytest.fixture
def flow(server: HttpServer, callback: Callback) -> Iterator[Flow]:
    made = Flow(server, callback)
    yield made
    made.close()


async def test_a_token_of_one_user_never_acts_for_another(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService, store: Store
) -> None:
    other = Flow(server, callback)
    erin = flow.authorize(tokens.create("erin").secret)
    ana = other.authorize(tokens.create("ana").secret)
    async with connect(server, erin["access_token"]) as client:
        made = ok(await client.call_tool("remember_create_memory", {"content": "erin's secret plan"}))
    async with connect(server, ana["access_token"]) as client:
        found = ok(await client.call_tool("remember_search_memory", {"query": "secret plan"}))
        assert "erin" not in json.dumps(found)
        assert (await client.call_tool("remember_get_memory", {"memory_id": made["id"]})).is_error
        ok(await client.call_tool("remember_create_memory", {"content": "ana's note"}))
    assert [m.content for m in store.memories.page("erin", MemoryQuery()).items] == ["erin's secret plan"]
    assert [m.content for m in store.memories.page("ana", MemoryQuery()).items] == ["ana's note"]
    # A refresh token or a code works only for the client it was issued to.
    assert other.refresh(erin["refresh_token"]).status_code == 400
    code, verifier = flow.code(tokens.create("erin").secret)
    assert other.exchange(code, verifier).status_code == 400
    assert flow.exchange(code, verifier).status_code == 200
    other.close()


# reuse: a replayed refresh token or code revokes what descends from its authorization


def test_a_replayed_refresh_token_revokes_its_whole_grant(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService, store: Store
) -> None:
    erin = tokens.create("erin").secret
    first = flow.authorize(erin)
    untouched = flow.authorize(erin)  # another authorization of the same client and user
    second = flow.refresh(first["refresh_token"]).json()
    third = flow.refresh(second["refresh_token"]).json()
    assert status(server, third["access_token"]) == 200
    replay = flow.refresh(first["refresh_token"])  # a copy of a rotated token: the thief or the client
    assert replay.status_code == 400
    assert replay.json() == {"error": "invalid_grant", "error_description": REFRESH_REUSED}
    assert status(server, third["access_token"]) == 401  # the newest tokens of the family too
    assert f"a spent refresh token of client {flow.client_id} (user erin) was presented again" in server.log.read_text()
    assert flow.refresh(third["refresh_token"]).status_code == 400
    assert status(server, untouched["access_token"]) == 200
    assert flow.refresh(untouched["refresh_token"]).status_code == 200
    assert counts(store)["oauth_grants"] == 1


def test_a_reused_code_revokes_the_tokens_issued_with_it(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService
) -> None:
    granted = flow.authorize(tokens.create("erin").secret)
    assert status(server, granted["access_token"]) == 200
    again = flow.exchange(granted["code"], granted["verifier"])
    assert again.status_code == 400
    assert again.json() == {"error": "invalid_grant", "error_description": CODE_REUSED}
    assert status(server, granted["access_token"]) == 401
    assert flow.refresh(granted["refresh_token"]).status_code == 400


def test_revoking_a_token_revokes_its_grant(
    server: HttpServer, callback: Callback, flow: Flow, tokens: TokenService, store: Store
) -> None:
    erin = tokens.create("erin").secret
    granted, other = flow.authorize(erin), flow.authorize(erin)
    assert flow.revoke(granted["refresh_token"]).status_code == 200
    assert status(server, granted["access_token"]) == 401
    assert flow.refresh(granted["refresh_token"]).status_code == 400
    assert status(server, other["access_token"]) == 200  # another consent of the same client stays
    assert flow.revoke(other["access_token"]).status_code == 200
    assert flow.refresh(other["refresh_token"]).status_code == 400
    assert flow.revoke(erin).status_code == 200 and status(server, erin) == 200  # an API token is revoked elsewhere
    assert counts(store)["oauth_grants"] == 0
