"""The dashboard's routes in the HTTP application: the page, its files and the API.

``GET /`` is the page (one HTML file, its icon also at ``/favicon.ico``; the code in ``static/`` draws each view; a
one-time link of ``remember ui`` is its address ``#/login/code/…``, which the page
redeems), ``/static/…`` the page's files, ``/api/…`` the JSON API (``api/``). Every
answer carries headers that keep the page to its own files (a Content-Security-Policy
without inline scripts, no framing, no referrer).
"""

from __future__ import annotations

from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remember.web import api
from remember.web.context import WebContext
from remember.web.responses import Endpoint, guarded

STATIC = Path(__file__).parent / "static"
OLD_COOKIE = "remember_session"
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def web_routes(ctx: WebContext) -> list[BaseRoute]:
    return [
        Route("/", _page(ctx), methods=["GET"]),
        Route("/favicon.ico", _icon, methods=["GET"]),
        Mount("/static", app=Secured(StaticFiles(directory=STATIC)), name="static"),
        *api.routes(ctx),
    ]


def _page(ctx: WebContext) -> Endpoint:
    async def serve(request: Request) -> Response:
        page = FileResponse(STATIC / "index.html", headers={**SECURITY_HEADERS, "cache-control": "no-cache"})
        if OLD_COOKIE in request.cookies:
            # Earlier versions kept the raw token in this cookie, which the browser sends to every port
            # of the host: the page no longer needs it, so it is dropped.
            page.delete_cookie(OLD_COOKIE, path="/")
        return page

    return guarded(ctx, serve)


async def _icon(_request: Request) -> Response:
    """The icon, for a browser that asks at the conventional address (a page of JSON, such as ``/health``)."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml", headers=SECURITY_HEADERS)


class Secured:
    """ASGI wrapper adding ``SECURITY_HEADERS`` to every answer of the app it wraps.

    Its errors too: ``StaticFiles`` raises ``HTTPException`` for a missing file (404), which
    is answered here, with the headers, rather than by the application's handler without them.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except HTTPException as exc:
            answer = PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
            await answer(scope, receive, sending)
