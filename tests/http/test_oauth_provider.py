"""The built-in authorization server's provider in-process, over the real store (both backends) and a clock
the test moves: lifetimes end when they should, expired rows are swept as new ones are written, and of two
exchanges of one refresh token or one code that race, one wins and the other revokes the grant."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp.server.auth.provider import AuthorizationParams, TokenError
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from conftest import StillClock as Clock
from remember.http import oauth_bounds as bounds
from remember.http.oauth_server import CODE_REUSED, REFRESH_REUSED, Refresh, RememberAuthorizationServer
from remember.service.tokens import TokenService
from remember.store import Store

pytestmark = pytest.mark.anyio

ISSUER = "http://127.0.0.1:9"
RESOURCE = f"{ISSUER}/mcp"
CALLBACK = "http://127.0.0.1:8/callback"
TABLES = ("oauth_clients", "oauth_pending", "oauth_grants", "oauth_codes", "oauth_tokens")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def provider(store: Store, clock: Clock) -> RememberAuthorizationServer:
    tokens = TokenService(store.tokens, clock)
    return RememberAuthorizationServer(
        store.oauth_clients, store.oauth_grants, tokens, issuer=ISSUER, resource=RESOURCE, clock=clock
    )


def counts(store: Store) -> dict[str, int]:
    with store.sql.reading() as s:
        return {table: int(s.value(f"SELECT count(*) FROM {table}")) for table in TABLES}


async def registered(provider: RememberAuthorizationServer, client_id: str) -> OAuthClientInformationFull:
    await provider.register_client(
        OAuthClientInformationFull(
            client_id=client_id, redirect_uris=[AnyUrl(CALLBACK)], token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"],
        )
    )  # fmt: skip
    found = await provider.get_client(client_id)
    assert found is not None
    return found


async def code_for(provider: RememberAuthorizationServer, client: OAuthClientInformationFull, user: str) -> str:
    params = AuthorizationParams(
        state="s", scopes=[], code_challenge="c" * 43, redirect_uri=AnyUrl(CALLBACK),
        redirect_uri_provided_explicitly=True, resource=RESOURCE,
    )  # fmt: skip
    consent_url = await provider.authorize(client, params)
    redirect = provider.consent(consent_url.split("request=")[1], provider.tokens.create(user).token)
    assert redirect is not None
    return parse_qs(urlsplit(redirect).query)["code"][0]


async def granted(provider: RememberAuthorizationServer, client: OAuthClientInformationFull) -> OAuthToken:
    loaded = await provider.load_authorization_code(client, await code_for(provider, client, "erin"))
    assert loaded is not None
    return await provider.exchange_authorization_code(client, loaded)


async def test_of_two_refreshes_racing_one_wins_and_the_other_revokes_the_grant(
    provider: RememberAuthorizationServer,
) -> None:
    client = await registered(provider, "c1")
    first = await granted(provider, client)
    assert first.refresh_token is not None
    one = await provider.load_refresh_token(client, first.refresh_token)
    two = await provider.load_refresh_token(client, first.refresh_token)
    assert one is not None and two is not None and not one.reused and not two.reused  # both read before either rotated
    won = await provider.exchange_refresh_token(client, one, [])
    assert await provider.load_access_token(won.access_token) is not None
    with pytest.raises(TokenError) as lost:
        await provider.exchange_refresh_token(client, two, [])
    assert (lost.value.error, lost.value.error_description) == ("invalid_grant", REFRESH_REUSED)
    assert await provider.load_access_token(won.access_token) is None
    assert won.refresh_token is not None and await provider.load_refresh_token(client, won.refresh_token) is None


async def test_of_two_code_exchanges_racing_one_wins_and_the_other_revokes_the_grant(
    provider: RememberAuthorizationServer,
) -> None:
    client = await registered(provider, "c1")
    code = await code_for(provider, client, "erin")
    one = await provider.load_authorization_code(client, code)
    two = await provider.load_authorization_code(client, code)
    assert one is not None and two is not None
    won = await provider.exchange_authorization_code(client, one)
    with pytest.raises(TokenError) as lost:
        await provider.exchange_authorization_code(client, two)
    assert (lost.value.error, lost.value.error_description) == ("invalid_grant", CODE_REUSED)
    assert await provider.load_access_token(won.access_token) is None


async def test_codes_access_and_refresh_tokens_end_with_their_lifetimes(
    provider: RememberAuthorizationServer, clock: Clock
) -> None:
    client = await registered(provider, "c1")
    code = await code_for(provider, client, "erin")
    clock.now += bounds.CODE_LIFETIME
    assert await provider.load_authorization_code(client, code) is None
    tokens = await granted(provider, client)
    assert tokens.refresh_token is not None
    clock.now += bounds.ACCESS_LIFETIME - timedelta(seconds=1)
    access = await provider.load_access_token(tokens.access_token)
    assert access is not None and access.subject == "erin" and access.client_id == "c1"
    clock.now += timedelta(seconds=1)
    assert await provider.load_access_token(tokens.access_token) is None
    assert await provider.load_refresh_token(client, tokens.refresh_token) is not None
    clock.now += bounds.REFRESH_LIFETIME
    assert await provider.load_refresh_token(client, tokens.refresh_token) is None


async def test_expired_rows_are_swept_as_new_ones_are_written(
    provider: RememberAuthorizationServer, clock: Clock, store: Store
) -> None:
    old = await registered(provider, "old")
    await granted(provider, old)
    await registered(provider, "never-allowed")
    await provider.authorize(
        old,
        AuthorizationParams(
            state=None, scopes=None, code_challenge="c" * 43, redirect_uri=AnyUrl(CALLBACK),
            redirect_uri_provided_explicitly=True,
        ),
    )  # fmt: skip
    assert counts(store) == {
        "oauth_clients": 2,
        "oauth_pending": 1,
        "oauth_grants": 1,
        "oauth_codes": 1,
        "oauth_tokens": 1,
    }
    clock.now += bounds.CLIENT_LIFETIME + timedelta(seconds=1)
    assert await provider.get_client("old") is None
    fresh = await registered(provider, "fresh")  # a registration sweeps the expired clients (and what is theirs)
    assert counts(store) == {
        "oauth_clients": 1,
        "oauth_pending": 0,
        "oauth_grants": 0,
        "oauth_codes": 0,
        "oauth_tokens": 0,
    }
    first = await granted(provider, fresh)
    assert first.refresh_token is not None
    clock.now += bounds.ACCESS_LIFETIME
    second = await provider.exchange_refresh_token(
        fresh, await _loaded(provider, fresh, first.refresh_token), []
    )  # rotated: the first pair stays, to recognise a replay, until its refresh token would expire
    assert counts(store)["oauth_tokens"] == 2 and counts(store)["oauth_codes"] == 0  # the spent code was swept
    clock.now += bounds.REFRESH_LIFETIME - bounds.ACCESS_LIFETIME
    assert second.refresh_token is not None
    await provider.exchange_refresh_token(fresh, await _loaded(provider, fresh, second.refresh_token), [])
    assert counts(store)["oauth_tokens"] == 2  # the first pair went, the third came


async def _loaded(provider: RememberAuthorizationServer, client: OAuthClientInformationFull, refresh: str) -> Refresh:
    found = await provider.load_refresh_token(client, refresh)
    assert found is not None
    return found
