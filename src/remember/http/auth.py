"""Who an HTTP request is: its bearer token, verified, names one user and a trust level.

``ApiTokenVerifier`` is the SDK's ``TokenVerifier`` over the API tokens of
``service/tokens.py``; the SDK's bearer middleware answers 401 with
``WWW-Authenticate`` when it finds none. ``http_caller`` reads the verified
token of the request being served: there is no default user over HTTP.

The SDK's 401 says "Authentication required" whatever the matter; ``TokenProblems``
puts in its place what is wrong with the request's token: none sent, not one of
this server's, revoked or expired (each verifier notes why it refused, ``refused``).
"""

from __future__ import annotations

import json
from contextvars import ContextVar

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.http.limits import accepted
from remember.service.tokens import TokenService

TRUST_CLAIM = "remember_trust_level"
# The API token a verified token acts as (its own id, or the one an OAuth grant was given with).
API_TOKEN_CLAIM = "remember_api_token"
# The keys of the only spaces a token reaches (absent: every space of its user).
SPACES_CLAIM = "remember_spaces"
NO_TOKEN = (
    "no token was sent: send 'Authorization: Bearer <token>' with a token from "
    "`remember token create --user NAME` (or the dashboard's Tokens page)"
)
NOT_ACCEPTED = "the token was not accepted: it is neither an API token nor an access token this server takes"
_refusals: ContextVar[list[str] | None] = ContextVar("remember_token_refusals", default=None)


def refused(reason: str) -> None:
    """Note why the request's token was refused. The 401 says the last reason noted: verifiers run from
    the most general (API tokens) to the most particular (an issuer's JWTs, which note only a JWT's)."""
    found = _refusals.get()
    if found is not None:
        found.append(reason)


class ApiTokenVerifier:
    """API tokens made with ``remember token create``, bound to this server's resource URL."""

    def __init__(self, tokens: TokenService, resource: str) -> None:
        self.tokens = tokens
        self.resource = resource

    async def verify_token(self, token: str) -> AccessToken | None:
        found, refusal = await anyio.to_thread.run_sync(self.tokens.check, token)
        if found is None:
            if refusal is not None:
                refused(refusal)
            return None
        return AccessToken(
            token=token,
            client_id=f"api-token:{found.id}",
            scopes=[],
            expires_at=int(found.expires_at.timestamp()) if found.expires_at else None,
            resource=self.resource,
            subject=found.user_id,
            claims={TRUST_CLAIM: found.trust_level, API_TOKEN_CLAIM: found.id, **spaces_claim(found.spaces)},
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
    claims = token.claims or {}
    trust = claims.get(TRUST_CLAIM, 1.0)
    made_with = claims.get(API_TOKEN_CLAIM)
    source = made_with if isinstance(made_with, str) else None
    limit = claims.get(SPACES_CLAIM)
    spaces = frozenset(k for k in limit if isinstance(k, str)) if isinstance(limit, list) else None
    return Caller(token.subject, min(1.0, max(0.0, float(trust))), token.expires_at, source, spaces=spaces)


def spaces_claim(spaces: frozenset[str] | None) -> dict[str, list[str]]:
    """The claim carrying a token's limit to spaces, if it has one."""
    return {} if spaces is None else {SPACES_CLAIM: sorted(spaces)}


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


class TokenProblems:
    """ASGI middleware: a 401 says what is wrong with the request's token, in its body and its challenge."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reasons: list[str] = []
        bound = _refusals.set(reasons)
        held: Message | None = None

        async def sending(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] == 401:
                held = message  # sent with the body it describes
                return
            if held is not None and message["type"] == "http.response.body":
                await _send_refusal(send, held, message, _problem(scope, reasons))
                return
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            _refusals.reset(bound)


def _problem(scope: Scope, reasons: list[str]) -> str:
    authorization = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
    if not authorization.lower().startswith(b"bearer ") or not authorization[7:].strip():
        return NO_TOKEN
    return reasons[-1] if reasons else NOT_ACCEPTED


async def _send_refusal(send: Send, start: Message, body: Message, problem: str) -> None:
    """The held 401 with ``problem`` as its description (a body of another shape is sent as it was)."""
    try:
        answer = json.loads(body.get("body", b""))
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or answer.get("error") != "invalid_token" or body.get("more_body"):
        await send(start)
        await send(body)
        return
    answer["error_description"] = problem
    content = json.dumps(answer).encode()
    quoted = problem.replace("\\", "\\\\").replace('"', '\\"')
    headers = [
        (name, _described(value, quoted) if name == b"www-authenticate" else value)
        for name, value in start.get("headers", [])
        if name != b"content-length"
    ]
    await send({**start, "headers": [*headers, (b"content-length", str(len(content)).encode())]})
    await send({"type": "http.response.body", "body": content})


def _described(challenge: bytes, quoted: str) -> bytes:
    """``challenge`` with its ``error_description`` replaced (RFC 6750 quotes it)."""
    text = challenge.decode("latin-1")
    start = text.find('error_description="')
    if start < 0:
        return challenge
    end = text.find('"', start + len('error_description="'))
    replaced = f'{text[:start]}error_description="{quoted}"{text[end + 1 :]}'
    return replaced.encode("latin-1", errors="replace")
