"""Who an HTTP request is: its bearer token, verified, names one user and a trust level.

``ApiTokenVerifier`` is the SDK's ``TokenVerifier`` over the API tokens of
``service/tokens.py``; the SDK's bearer middleware answers 401 with
``WWW-Authenticate`` when it finds none. ``http_caller`` reads the verified
token of the request being served: there is no default user over HTTP.
"""

from __future__ import annotations

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.http.limits import accepted
from remember.service.tokens import TokenService

TRUST_CLAIM = "remember_trust_level"


class ApiTokenVerifier:
    """API tokens made with ``remember token create``, bound to this server's resource URL."""

    def __init__(self, tokens: TokenService, resource: str) -> None:
        self.tokens = tokens
        self.resource = resource

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await anyio.to_thread.run_sync(self.tokens.verify, token)
        if found is None:
            return None
        return AccessToken(
            token=token,
            client_id=f"api-token:{found.id}",
            scopes=[],
            expires_at=int(found.expires_at.timestamp()) if found.expires_at else None,
            resource=self.resource,
            subject=found.user_id,
            claims={TRUST_CLAIM: found.trust_level},
        )


class FirstOf:
    """The first verifier that accepts a token (API tokens, then OAuth access tokens)."""

    def __init__(self, *verifiers: TokenVerifier) -> None:
        self.verifiers = verifiers

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            found = await verifier.verify_token(token)
            if found is not None:
                return found
        return None


def http_caller() -> Caller:
    """The user and trust level of the HTTP request being served, from its verified token."""
    token = get_access_token()
    if token is None or not token.subject:
        raise AccessDenied("This request carries no verified token; send 'Authorization: Bearer <token>'.")
    return caller_of_token(token)


def caller_of_token(token: AccessToken) -> Caller:
    """Who a verified token acts for: its subject, at its trust level (1 unless it names one), until it ends."""
    if not token.subject:
        raise AccessDenied("This token names no user; make one with `remember token create --user NAME`.")
    trust = (token.claims or {}).get(TRUST_CLAIM, 1.0)
    return Caller(token.subject, min(1.0, max(0.0, float(trust))), token.expires_at)


class TokenCallers:
    """The dashboard's way of reading a presented token (``web.Tokens``): verified by ``verifier``,
    acting for its user at its trust level; an accepted one gets a rate-limit bucket of its own."""

    def __init__(self, verifier: TokenVerifier) -> None:
        self.verifier = verifier

    async def caller(self, token: str) -> Caller | None:
        found = await self.verifier.verify_token(token)
        return None if found is None else caller_of_token(found)

    def accepted(self) -> None:
        accepted()
