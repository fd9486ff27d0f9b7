"""The consent page of the built-in authorization server: the person allows a client by giving one
of their API tokens (no password is stored anywhere), or denies it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from html import escape
from urllib.parse import urlsplit

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from remember.http.oauth_server import Pending, RememberAuthorizationServer

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow access to your memories</title>
<style>body{{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}}
input[type=password]{{width:100%;padding:.5rem;font:inherit}}button{{padding:.5rem 1rem;font:inherit}}
.error{{color:#b00}}</style></head>
<body><h1>Allow {client}?</h1>
<p><strong>{client}</strong> asks to use your memories on this server; it will be sent back to
<code>{target}</code>.</p>
<p>To allow it, paste one of your API tokens (<code>remember token create --user YOU</code> makes one).
It gets what that token may do: its user and its trust level, until the token is revoked.</p>
{error}<form method="post" action="consent">
<input type="hidden" name="request" value="{request}">
<p><label>API token<br><input type="password" name="api_token" autocomplete="off" autofocus></label></p>
<p><button name="action" value="allow">Allow</button> <button name="action" value="deny">Deny</button></p>
</form></body></html>
"""

Handler = Callable[[Request], Awaitable[Response]]
GONE = "This authorization request is unknown or has expired; start again from the application."


def routes(provider: RememberAuthorizationServer) -> tuple[Handler, Handler]:
    """The GET and POST handlers of ``/consent``."""

    async def show(request: Request) -> Response:
        ask = request.query_params.get("request", "")
        pending = await anyio.to_thread.run_sync(provider.pending, ask)
        if pending is None:
            return HTMLResponse(escape(GONE), status_code=400)
        return _page(pending, ask, None)

    async def answer(request: Request) -> Response:
        form = await request.form()
        ask, token, action = (str(form.get(k, "")) for k in ("request", "api_token", "action"))
        pending = await anyio.to_thread.run_sync(provider.pending, ask)
        if pending is None:
            return HTMLResponse(escape(GONE), status_code=400)
        if action == "deny":
            target = await anyio.to_thread.run_sync(provider.consent, ask, None)
            return RedirectResponse(target, status_code=302) if target else HTMLResponse(escape(GONE), 400)
        found = await anyio.to_thread.run_sync(provider.tokens.verify, token.strip())
        if found is None:
            return _page(pending, ask, "That is not a valid API token (unknown, revoked or expired).", status=400)
        target = await anyio.to_thread.run_sync(provider.consent, ask, found)
        return RedirectResponse(target, status_code=302) if target else HTMLResponse(escape(GONE), 400)

    return show, answer


def _page(pending: Pending, request: str, error: str | None, *, status: int = 200) -> HTMLResponse:
    client = pending.client or "An application"
    target = urlsplit(str(pending.params.redirect_uri)).netloc or str(pending.params.redirect_uri)
    html = PAGE.format(
        client=escape(str(client)),
        target=escape(target),
        request=escape(request),
        error=f'<p class="error">{escape(error)}</p>' if error else "",
    )
    headers = {
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": "frame-ancestors 'none'",
    }
    return HTMLResponse(html, status_code=status, headers=headers)
