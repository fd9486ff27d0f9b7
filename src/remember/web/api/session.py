"""Logging in and out, and who the dashboard acts for: ``/api/session`` and ``/api/me``.

``POST /api/session`` with ``{"token": "rmb_…"}`` verifies the token and sets it as
the session cookie; ``DELETE /api/session`` clears it. ``GET /api/me`` names the
user and trust level the request acts for (401 when it acts for nobody).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.web.context import WebContext
from remember.web.responses import NO_STORE, Call, Endpoint, endpoint, guarded, read_body, read_json
from remember.web.session import COOKIE, NotLoggedIn

MAX_TOKEN = 4096  # characters of a presented token


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
        token = await _token_of(request, ctx.settings.http.max_body)
        if ctx.tokens is None:
            raise ValidationFailed.single("token", "unused", "This server runs without tokens: no login needed.")
        caller = await ctx.tokens.caller(token)
        if caller is None:
            raise NotLoggedIn("This token is unknown, revoked or expired. `remember token create` makes one.")
        response = JSONResponse({"user": caller.user, "trust_level": caller.trust}, headers=NO_STORE)
        set_session(response, ctx, token)
        return response

    return guarded(ctx, serve)


def _log_out(ctx: WebContext) -> Endpoint:
    async def serve(_: Request) -> Response:
        response = JSONResponse({"logged_out": True}, headers=NO_STORE)
        response.delete_cookie(COOKIE, path="/", secure=ctx.secure_cookies, httponly=True, samesite="strict")
        return response

    return guarded(ctx, serve)


async def _token_of(request: Request, limit: int) -> str:
    raw = await read_body(request, limit)
    try:
        body = read_json(raw or b"null", "body")
    except (UnicodeDecodeError, ValidationFailed):  # not JSON, nested too deeply, a NaN: no token in it
        body = None
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token.strip():
        message = 'Send {"token": "rmb_…"}: a token from `remember token create`.'
        raise ValidationFailed.single("token", "missing", message)
    if len(token) > MAX_TOKEN:
        raise ValidationFailed.single("token", "size", f"A token is at most {MAX_TOKEN} characters.")
    return token.strip()


def set_session(response: Response, ctx: WebContext, token: str) -> None:
    """Hold ``token`` in the session cookie of ``response``."""
    response.set_cookie(COOKIE, token, path="/", secure=ctx.secure_cookies, httponly=True, samesite="strict")
