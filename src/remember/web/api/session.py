"""Logging in and out, and who the dashboard acts for: ``/api/session`` and ``/api/me``.

``POST /api/session`` with ``{"token": "rmb_…"}`` (an API token) or ``{"code": "…"}`` (a
one-time login code of ``remember ui``) starts a dashboard session acting as that token and
answers its id, ``session``, once: the page keeps it and sends it as ``X-Remember-Session``.
The session the request carried, if any, ends: each login gets a new id.
``DELETE /api/session`` ends the session the request carries. ``GET /api/me`` names the user
and trust level the request acts for (401 when it acts for nobody).
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from remember.clock import to_text
from remember.errors import AccessDenied, ValidationFailed
from remember.models import ApiToken
from remember.service.tokens import token_id_of
from remember.web.context import WebContext
from remember.web.responses import NO_STORE, Call, Endpoint, endpoint, guarded, read_body, read_json
from remember.web.session import NOT_HOME, NotLoggedIn, presented_session

MAX_TOKEN = 4096  # characters of a presented token
MAX_CODE = 100  # characters of a presented login code (they have 32)
EXPIRED_LINK = "This login link was used or has expired: run `remember ui` again, or log in with a token."


def routes(ctx: WebContext) -> list[Route]:
    return [
        Route("/api/me", endpoint(ctx, me), methods=["GET"]),
        Route("/api/session", _log_in(ctx), methods=["POST"]),
        Route("/api/session", _log_out(ctx), methods=["DELETE"]),
    ]


def me(call: Call) -> dict[str, Any]:
    return {"user": call.caller.user, "trust_level": call.caller.trust}


def _log_in(ctx: WebContext) -> Endpoint:
    async def serve(request: Request) -> Response:
        body = await _credential_of(request, ctx.settings.http.max_body)
        if ctx.tokens is None:
            raise ValidationFailed.single("token", "unused", "This server runs without tokens: no login needed.")
        token = await anyio.to_thread.run_sync(_api_token, ctx, body)
        sessions = ctx.services.dashboard_sessions
        issued = await anyio.to_thread.run_sync(lambda: sessions.start(token, replacing=presented_session(request)))
        answer = {
            "user": token.user_id,
            "trust_level": token.trust_level,
            "session": issued.secret,
            "expires_at": to_text(issued.session.expires_at),
        }
        return JSONResponse(answer, headers=NO_STORE)

    return guarded(ctx, serve)


def _log_out(ctx: WebContext) -> Endpoint:
    async def serve(request: Request) -> Response:
        presented = presented_session(request)
        if presented is not None:
            await anyio.to_thread.run_sync(ctx.services.dashboard_sessions.end, presented)
        return JSONResponse({"logged_out": True}, headers=NO_STORE)

    return guarded(ctx, serve)


def _api_token(ctx: WebContext, body: dict[str, str]) -> ApiToken:
    """The API token a login presents (itself, or through a login code), checked."""
    if "code" in body:
        secret = ctx.codes.redeem(body["code"])
        if secret is None:
            raise NotLoggedIn(EXPIRED_LINK)
    else:
        secret = body["token"]
    found, _ = ctx.services.tokens.check(secret)
    if found is not None and found.spaces is not None and found.user_id not in found.spaces:
        raise AccessDenied(NOT_HOME)
    if found is not None:
        return found
    if token_id_of(secret) is None:
        raise NotLoggedIn(
            "The dashboard logs in with an API token (rmb_…) from `remember token create`; "
            "an OAuth access token goes to the API as 'Authorization: Bearer …' instead."
        )
    raise NotLoggedIn("This token is unknown, revoked or expired. `remember token create` makes one.")


async def _credential_of(request: Request, limit: int) -> dict[str, str]:
    """``{"token": …}`` or ``{"code": …}`` of a login's body."""
    raw = await read_body(request, limit)
    try:
        body = read_json(raw or b"null", "body")
    except (UnicodeDecodeError, ValidationFailed):  # not JSON, nested too deeply, a NaN: no token in it
        body = None
    if isinstance(body, dict) and isinstance(body.get("code"), str) and body["code"].strip():
        if len(body["code"]) > MAX_CODE:
            raise NotLoggedIn(EXPIRED_LINK)
        return {"code": body["code"].strip()}
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token.strip():
        message = 'Send {"token": "rmb_…"}: a token from `remember token create`.'
        raise ValidationFailed.single("token", "missing", message)
    if len(token) > MAX_TOKEN:
        raise ValidationFailed.single("token", "size", f"A token is at most {MAX_TOKEN} characters.")
    return {"token": token.strip()}
