"""The built-in OAuth 2.1 authorization server, on the MCP SDK's provider interface.

The SDK serves the endpoints (metadata, ``/authorize`` with PKCE S256,
``/token``, ``/register`` for dynamic client registration, ``/revoke``) and
checks the code verifier; this provider keeps the clients, codes and tokens.
``/authorize`` sends the person to the consent page (``consent.py``), which asks
for one of their API tokens instead of a password: the access granted is that
token's (its user, its trust level) and ends when it is revoked or expires.

Codes, access and refresh tokens are random (256 bits), kept only as SHA-256
digests, in this process's memory: a restart asks connectors to authorize
again. Codes are single-use and live 5 minutes; access tokens an hour; refresh
tokens 30 days, replaced on every use (rotation: the old one and its access
token stop working).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from remember.http.auth import TRUST_CLAIM, ApiTokenVerifier
from remember.models import ApiToken
from remember.service.tokens import TokenService

CODE_SECONDS = 300
ACCESS_SECONDS = 3600
REFRESH_SECONDS = 30 * 24 * 3600
PENDING_SECONDS = 600  # to finish the consent page
API_TOKEN_CLAIM = "remember_api_token"


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True)
class Pending:
    """An authorization request waiting for the person's consent."""

    client: OAuthClientInformationFull
    params: AuthorizationParams
    expires_at: float


class Code(AuthorizationCode):
    api_token_id: str


class Refresh(RefreshToken):
    api_token_id: str
    access_digest: str


@dataclass
class _Kept:
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    pending: dict[str, Pending] = field(default_factory=dict)
    codes: dict[str, Code] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, Refresh] = field(default_factory=dict)


class RememberAuthorizationServer:
    """``OAuthAuthorizationServerProvider`` over the API tokens; also accepts API tokens themselves."""

    def __init__(self, tokens: TokenService, *, issuer: str, resource: str) -> None:
        self.tokens = tokens
        self.issuer = issuer
        self.resource = resource
        self.api_tokens = ApiTokenVerifier(tokens, resource)
        self._kept = _Kept()
        self._lock = threading.Lock()

    # clients (dynamic registration, RFC 7591)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self._kept.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self._kept.clients[client_info.client_id] = client_info

    # authorization: to the consent page, then back with a code

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and params.resource.rstrip("/") != self.resource:
            raise AuthorizeError("invalid_request", f"This server grants access to {self.resource} only.")
        request = secrets.token_urlsafe(32)
        with self._lock:
            self._sweep()
            self._kept.pending[request] = Pending(client, params, time.time() + PENDING_SECONDS)
        return f"{self.issuer}/consent?request={request}"

    def pending(self, request: str) -> Pending | None:
        with self._lock:
            found = self._kept.pending.get(request)
        return found if found is not None and found.expires_at > time.time() else None

    def consent(self, request: str, api_token: ApiToken | None) -> str | None:
        """The redirect that ends the consent: a code for ``api_token``'s user, or ``access_denied``
        without one. None when the request is unknown or spent."""
        with self._lock:
            found = self._kept.pending.pop(request, None)
        if found is None or found.expires_at <= time.time():
            return None
        params = found.params
        if api_token is None:
            return construct_redirect_uri(
                str(params.redirect_uri), error="access_denied", state=params.state, iss=self.issuer
            )
        code = secrets.token_urlsafe(32)
        kept = Code(
            code=_digest(code),
            scopes=params.scopes or [],
            expires_at=time.time() + CODE_SECONDS,
            client_id=str(found.client.client_id),
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=self.resource,
            subject=api_token.user_id,
            api_token_id=api_token.id,
        )
        with self._lock:
            self._kept.codes[kept.code] = kept
        # RFC 9207: say who issued the code, so that a client talking to several servers can tell.
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.issuer)

    async def load_authorization_code(self, client: OAuthClientInformationFull, authorization_code: str) -> Code | None:
        with self._lock:
            found = self._kept.codes.get(_digest(authorization_code))
        if found is None or found.client_id != client.client_id or found.expires_at < time.time():
            return None
        return found.model_copy(update={"code": authorization_code})

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: Code
    ) -> OAuthToken:
        with self._lock:
            spent = self._kept.codes.pop(_digest(authorization_code.code), None)
        if spent is None:  # used already: single use
            raise TokenError("invalid_grant", "The authorization code was used already.")
        return await self._issue(str(client.client_id), spent.scopes, str(spent.subject), spent.api_token_id)

    # refresh, with rotation

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> Refresh | None:
        with self._lock:
            found = self._kept.refresh.get(_digest(refresh_token))
        if found is None or found.client_id != client.client_id or (found.expires_at or 0) < time.time():
            return None
        return found.model_copy(update={"token": refresh_token})

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: Refresh, scopes: list[str]
    ) -> OAuthToken:
        with self._lock:
            old = self._kept.refresh.pop(_digest(refresh_token.token), None)
            if old is not None:
                self._kept.access.pop(old.access_digest, None)
        if old is None:
            raise TokenError("invalid_grant", "The refresh token was used already or revoked.")
        return await self._issue(str(client.client_id), scopes or old.scopes, str(old.subject), old.api_token_id)

    async def _issue(self, client_id: str, scopes: list[str], user: str, api_token_id: str) -> OAuthToken:
        source = await anyio.to_thread.run_sync(self._live_api_token, api_token_id)
        if source is None:
            raise TokenError("invalid_grant", "The API token this access was granted with is revoked or expired.")
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = int(time.time())
        grant: dict[str, Any] = {"client_id": client_id, "scopes": scopes, "resource": self.resource, "subject": user}
        granted = AccessToken(
            token=_digest(access),
            expires_at=now + ACCESS_SECONDS,
            claims={"iss": self.issuer, TRUST_CLAIM: source.trust_level, API_TOKEN_CLAIM: api_token_id},
            **grant,
        )
        kept = Refresh(
            token=_digest(refresh),
            expires_at=now + REFRESH_SECONDS,
            api_token_id=api_token_id,
            access_digest=granted.token,
            **grant,
        )
        with self._lock:
            self._sweep()
            self._kept.access[granted.token] = granted
            self._kept.refresh[kept.token] = kept
        return OAuthToken(
            access_token=access,
            expires_in=ACCESS_SECONDS,
            scope=" ".join(scopes) or None,
            refresh_token=refresh,
        )

    # access

    async def load_access_token(self, token: str) -> AccessToken | None:
        if token.startswith("rmb_"):
            return await self.api_tokens.verify_token(token)
        with self._lock:
            found = self._kept.access.get(_digest(token))
        if found is None or (found.expires_at or 0) < time.time():
            return None
        api_token_id = str((found.claims or {}).get(API_TOKEN_CLAIM))
        if await anyio.to_thread.run_sync(self._live_api_token, api_token_id) is None:
            return None
        return found.model_copy(update={"token": token})

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        digest = _digest(token.token)
        with self._lock:
            if isinstance(token, Refresh):
                gone = self._kept.refresh.pop(digest, None)
                if gone is not None:
                    self._kept.access.pop(gone.access_digest, None)
            else:
                self._kept.access.pop(digest, None)
                for key, kept in list(self._kept.refresh.items()):
                    if kept.access_digest == digest:
                        del self._kept.refresh[key]

    def _live_api_token(self, token_id: str) -> ApiToken | None:
        found = self.tokens.store.get(token_id)
        return found if found is not None and found.usable_at(self.tokens.clock()) else None

    def _sweep(self) -> None:
        """Forget what has expired (called under the lock)."""
        now = time.time()
        kept = self._kept
        kept.pending = {k: v for k, v in kept.pending.items() if v.expires_at > now}
        kept.codes = {k: v for k, v in kept.codes.items() if v.expires_at > now}
        kept.access = {k: v for k, v in kept.access.items() if (v.expires_at or 0) > now}
        kept.refresh = {k: v for k, v in kept.refresh.items() if (v.expires_at or 0) > now}
