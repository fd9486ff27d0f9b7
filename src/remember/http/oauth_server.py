"""The built-in OAuth 2.1 authorization server, on the MCP SDK's provider interface.

The SDK serves the endpoints (metadata, ``/authorize`` with PKCE S256,
``/token``, ``/register`` for dynamic client registration, ``/revoke``) and
checks the code verifier; this provider keeps the clients, codes and tokens.
``/authorize`` sends the person to the consent page (``consent.py``), which asks
for one of their API tokens instead of a password: the access granted is that
token's (its user, its trust level) and ends when it is revoked or expires.

Everything is kept in the store (``store.oauth_clients``, ``store.oauth_grants``),
so a restart logs no one out and every server over one database is one
authorization server. Client secrets, pending request ids, codes, access and
refresh tokens are random (256 bits) and kept only as SHA-256 digests; a
client secret is compared in constant time. Lifetimes and bounds are in
``oauth_bounds.py``: codes are single-use and live 5 minutes, access tokens an
hour, refresh tokens 30 days, replaced on every use (rotation: the old pair
stops working).

Reuse is theft until shown otherwise (RFC 9700 §2.2.2, RFC 6749 §4.1.2): a
rotated refresh token presented again revokes its grant, every access and
refresh token descended from the same authorization, whoever holds the newest;
a code presented again revokes the tokens issued with it. The old code or
token is recognised as long as it would have lived (its row is kept until then).

A provider answers for one request at a time as far as the request's facts go
(its address for the bounds on registrations, the client secret it presents):
``seen_by`` makes the provider one request sees (``oauth_routes.py``).

Beside registered clients, a client may name itself by the https URL of its metadata document (MCP
2025-11-25): ``document_clients.py`` fetches, checks and keeps it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from functools import partial

import anyio.to_thread
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from remember.clock import Clock, utc_now
from remember.errors import LimitReached
from remember.http import oauth_bounds as bounds
from remember.http.auth import API_TOKEN_CLAIM, TRUST_CLAIM, ApiTokenVerifier, spaces_claim
from remember.http.client_documents import is_document_id
from remember.http.document_clients import DocumentClients
from remember.models import ApiToken
from remember.service.tokens import PREFIX, TokenService
from remember.store import OAuthClientStore, OAuthGrantStore
from remember.store.oauth_records import Grant, GrantCode, GrantTokens, OAuthClient, PendingAuthorization

CODE_REUSED = "This authorization code was used already, so the tokens issued with it are revoked; authorize again."
REFRESH_REUSED = (
    "This refresh token was replaced already, so every token of this authorization is revoked (someone may "
    "hold a copy of it); authorize again."
)
log = logging.getLogger(__name__)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True)
class Requester:
    """What the request being answered says of its sender: its address (as the bounds count it) and the
    client secrets it presents (HTTP Basic, or ``client_secret`` in its form)."""

    address: str = "?"
    secrets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pending:
    """An authorization request waiting for the person's consent."""

    client: str  # the client's name as the consent page shows it
    params: AuthorizationParams
    expires_at: datetime


class Code(AuthorizationCode):
    grant_id: str
    api_token_id: str
    reused: bool = False  # presented again: its grant is revoked, the exchange refused


class Refresh(RefreshToken):
    grant_id: str
    api_token_id: str
    reused: bool = False  # rotated already: its grant is revoked, the exchange refused


class Access(AccessToken):
    grant_id: str


class RememberAuthorizationServer(OAuthAuthorizationServerProvider[Code, Refresh, AccessToken]):
    """``OAuthAuthorizationServerProvider`` over the API tokens; also accepts API tokens themselves."""

    def __init__(
        self,
        clients: OAuthClientStore,
        grants: OAuthGrantStore,
        tokens: TokenService,
        *,
        issuer: str,
        resource: str,
        clock: Clock = utc_now,
        requester: Requester = Requester(),
        documents: DocumentClients | None = None,
    ) -> None:
        self.clients, self.grants, self.tokens = clients, grants, tokens
        self.issuer, self.resource, self.clock = issuer, resource, clock
        self.requester = requester
        self.documents = documents  # clients named by their metadata document's URL; None: not accepted
        self.api_tokens = ApiTokenVerifier(tokens, resource)

    def seen_by(self, requester: Requester) -> RememberAuthorizationServer:
        """This provider as the request of ``requester`` sees it."""
        return RememberAuthorizationServer(
            self.clients, self.grants, self.tokens, issuer=self.issuer, resource=self.resource, clock=self.clock,
            requester=requester, documents=self.documents,
        )  # fmt: skip

    # clients (dynamic registration, RFC 7591)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if self.documents is not None and is_document_id(client_id):
            found, _ = await self.documents.find(client_id)
        else:
            found = await anyio.to_thread.run_sync(self.clients.get, client_id, self.clock())
        return None if found is None else self._client_information(found)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        bounds.check_registration(client_info)
        now = self.clock()
        secret = client_info.client_secret
        client = OAuthClient(
            id=client_info.client_id,
            secret_sha256=_digest(secret) if secret else None,
            metadata=client_info.model_dump(mode="json", exclude_none=True, exclude={"client_id", "client_secret"}),
            address=self.requester.address,
            created_at=now,
            expires_at=now + bounds.REGISTRATION_LIFETIME,
        )
        register = partial(self.clients.register, per_address=bounds.CLIENTS_PER_ADDRESS, total=bounds.CLIENTS)
        try:
            await anyio.to_thread.run_sync(register, client)
        except LimitReached as exc:
            raise RegistrationError("invalid_client_metadata", str(exc)) from exc

    def _client_information(self, client: OAuthClient) -> OAuthClientInformationFull:
        return OAuthClientInformationFull.model_validate(
            {**client.metadata, "client_id": client.id, "client_secret": self._presented_secret(client)}
        )

    def _presented_secret(self, client: OAuthClient) -> str | None:
        """The client's secret if the request presents it; for a client with a secret, else, one no one holds
        (the SDK's check of what was presented then fails). The stored digest is never handed out."""
        if client.secret_sha256 is None:
            return None
        for presented in self.requester.secrets:
            if hmac.compare_digest(_digest(presented), client.secret_sha256):
                return presented
        return secrets.token_hex(32)

    # authorization: to the consent page, then back with a code

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and params.resource.rstrip("/") != self.resource:
            raise AuthorizeError("invalid_request", f"This server grants access to {self.resource} only.")
        bounds.check_authorization(params)
        request, now = secrets.token_urlsafe(32), self.clock()
        pending = PendingAuthorization(
            _digest(request), client.client_id, params.model_dump(mode="json"), now + bounds.PENDING_LIFETIME
        )
        add = partial(self.grants.add_pending, per_client=bounds.PENDING_PER_CLIENT, total=bounds.PENDING)
        try:
            await anyio.to_thread.run_sync(add, pending, now)
        except LimitReached as exc:
            raise AuthorizeError("temporarily_unavailable", str(exc)) from exc
        return f"{self.issuer}/consent?request={request}"

    def pending(self, request: str) -> Pending | None:
        """The authorization request waiting for consent (None when unknown, answered or expired)."""
        now = self.clock()
        found = self.grants.pending(_digest(request), now)
        client = None if found is None else self.clients.get(found.client_id, now)
        if found is None or client is None:
            return None
        name = client.metadata.get("client_name") or client.id
        return Pending(str(name), AuthorizationParams.model_validate(found.params), found.expires_at)

    def consent(self, request: str, api_token: ApiToken | None) -> str | None:
        """The redirect that ends the consent: a code for ``api_token``'s user, or ``access_denied``
        without one. None when the request is unknown or spent."""
        now = self.clock()
        found = self.grants.take_pending(_digest(request), now)
        if found is None:
            return None
        params = AuthorizationParams.model_validate(found.params)
        if api_token is None:
            return construct_redirect_uri(
                str(params.redirect_uri), error="access_denied", state=params.state, iss=self.issuer
            )
        code = self._start(found.client_id, params, api_token, now)
        # RFC 9207: say who issued the code, so that a client talking to several servers can tell.
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.issuer)

    def _start(self, client_id: str, params: AuthorizationParams, api_token: ApiToken, now: datetime) -> str:
        """A new grant of ``api_token``'s access to the client, kept with its code; the code."""
        code = secrets.token_urlsafe(32)
        grant = Grant(
            id=secrets.token_hex(16),
            client_id=client_id,
            user_id=api_token.user_id,
            api_token_id=api_token.id,
            scopes=tuple(params.scopes or ()),
            resource=self.resource,
            created_at=now,
            expires_at=now + bounds.CODE_LIFETIME,
        )
        kept = GrantCode(
            code_sha256=_digest(code),
            grant_id=grant.id,
            code_challenge=params.code_challenge,
            redirect_uri=str(params.redirect_uri),
            redirect_uri_explicit=params.redirect_uri_provided_explicitly,
            expires_at=now + bounds.CODE_LIFETIME,
        )
        self.grants.start(grant, kept, client_until=now + bounds.CLIENT_LIFETIME)
        return code

    async def load_authorization_code(self, client: OAuthClientInformationFull, authorization_code: str) -> Code | None:
        found = await anyio.to_thread.run_sync(self.grants.code, _digest(authorization_code))
        if found is None or found[1].client_id != client.client_id:
            return None
        code, grant = found
        if code.used_at is not None:
            await self._revoke_reused(grant, "authorization code")
        elif code.expires_at <= self.clock():
            return None
        return Code(
            code=authorization_code,
            scopes=list(grant.scopes),
            expires_at=code.expires_at.timestamp(),
            client_id=grant.client_id,
            code_challenge=code.code_challenge,
            redirect_uri=AnyUrl(code.redirect_uri),
            redirect_uri_provided_explicitly=code.redirect_uri_explicit,
            resource=grant.resource,
            subject=grant.user_id,
            grant_id=grant.id,
            api_token_id=grant.api_token_id,
            reused=code.used_at is not None,
        )

    async def exchange_authorization_code(
        self,
        client: OAuthClientInformationFull,  # noqa: ARG002 - the SDK checked it is the code's
        authorization_code: Code,
    ) -> OAuthToken:
        if authorization_code.reused:
            raise TokenError("invalid_grant", CODE_REUSED)
        await self._require_live(authorization_code.api_token_id)
        now = self.clock()
        tokens, answer = self._pair(authorization_code.grant_id, authorization_code.scopes, now)
        spend = partial(self.grants.spend_code, client_until=now + bounds.CLIENT_LIFETIME)
        if not await anyio.to_thread.run_sync(spend, _digest(authorization_code.code), tokens, now):
            # Spent meanwhile, by another request with the same code (on this server or another).
            await anyio.to_thread.run_sync(self.grants.revoke, authorization_code.grant_id)
            raise TokenError("invalid_grant", CODE_REUSED)
        await anyio.to_thread.run_sync(self.grants.sweep, now)
        return answer

    # refresh, with rotation

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> Refresh | None:
        found = await anyio.to_thread.run_sync(self.grants.refresh, _digest(refresh_token))
        if found is None or found[1].client_id != client.client_id:
            return None
        tokens, grant = found
        if tokens.rotated_at is not None:
            await self._revoke_reused(grant, "refresh token")
        elif tokens.expires_at <= self.clock():
            return None
        return Refresh(
            token=refresh_token,
            client_id=grant.client_id,
            scopes=list(tokens.scopes),
            expires_at=int(tokens.expires_at.timestamp()),
            resource=grant.resource,
            subject=grant.user_id,
            grant_id=grant.id,
            api_token_id=grant.api_token_id,
            reused=tokens.rotated_at is not None,
        )

    async def exchange_refresh_token(
        self,
        client: OAuthClientInformationFull,  # noqa: ARG002 - the SDK checked it is the token's
        refresh_token: Refresh,
        scopes: list[str],
    ) -> OAuthToken:
        if refresh_token.reused:
            raise TokenError("invalid_grant", REFRESH_REUSED)
        await self._require_live(refresh_token.api_token_id)
        now = self.clock()
        tokens, answer = self._pair(refresh_token.grant_id, scopes or refresh_token.scopes, now)
        rotate = partial(self.grants.rotate, client_until=now + bounds.CLIENT_LIFETIME)
        if not await anyio.to_thread.run_sync(rotate, _digest(refresh_token.token), tokens, now):
            # Rotated meanwhile, by another request with the same token (on this server or another).
            await anyio.to_thread.run_sync(self.grants.revoke, refresh_token.grant_id)
            raise TokenError("invalid_grant", REFRESH_REUSED)
        await anyio.to_thread.run_sync(self.grants.sweep, now)
        return answer

    def _pair(self, grant_id: str, scopes: list[str], now: datetime) -> tuple[GrantTokens, OAuthToken]:
        """A new access and refresh token of the grant: as kept (digests), and as answered (the tokens)."""
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        kept = GrantTokens(
            refresh_sha256=_digest(refresh),
            access_sha256=_digest(access),
            grant_id=grant_id,
            scopes=tuple(scopes),
            access_expires_at=now + bounds.ACCESS_LIFETIME,
            expires_at=now + bounds.REFRESH_LIFETIME,
        )
        answer = OAuthToken(
            access_token=access,
            expires_in=int(bounds.ACCESS_LIFETIME.total_seconds()),
            scope=" ".join(scopes) or None,
            refresh_token=refresh,
        )
        return kept, answer

    async def _revoke_reused(self, grant: Grant, what: str) -> None:
        """Revoke the grant of a spent code or rotated refresh token presented again."""
        await anyio.to_thread.run_sync(self.grants.revoke, grant.id)
        log.warning(
            "a spent %s of client %s (user %s) was presented again: its grant is revoked", what, grant.client_id,
            grant.user_id,
        )  # fmt: skip

    async def _require_live(self, api_token_id: str) -> ApiToken:
        source = await anyio.to_thread.run_sync(self._live_api_token, api_token_id)
        if source is None:
            raise TokenError("invalid_grant", "The API token this access was granted with is revoked or expired.")
        return source

    # access

    async def load_access_token(self, token: str) -> AccessToken | None:
        if token.startswith(PREFIX):
            return await self.api_tokens.verify_token(token)
        found = await anyio.to_thread.run_sync(self.grants.access, _digest(token), self.clock())
        if found is None:
            return None
        tokens, grant = found
        source = await anyio.to_thread.run_sync(self._live_api_token, grant.api_token_id)
        if source is None or source.user_id != grant.user_id:
            return None
        return Access(
            token=token,
            client_id=grant.client_id,
            scopes=list(tokens.scopes),
            expires_at=int(tokens.access_expires_at.timestamp()),
            resource=grant.resource,
            subject=grant.user_id,
            claims={
                "iss": self.issuer,
                TRUST_CLAIM: source.trust_level,
                API_TOKEN_CLAIM: source.id,
                **spaces_claim(source.spaces),
            },
            grant_id=grant.id,
        )

    async def revoke_token(self, token: AccessToken | Refresh) -> None:
        """Revoking an access or a refresh token revokes its grant: every token of the same authorization
        (RFC 7009 §2.1). An API token is revoked with ``remember token revoke``, not here."""
        if isinstance(token, Access | Refresh):
            await anyio.to_thread.run_sync(self.grants.revoke, token.grant_id)

    def _live_api_token(self, token_id: str) -> ApiToken | None:
        found = self.tokens.store.get(token_id)
        return found if found is not None and found.usable_at(self.tokens.clock()) else None
