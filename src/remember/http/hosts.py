"""The ``Host`` check on every route: a page of another site that rebinds its DNS name to this server's address
(DNS rebinding) reaches no route, the authorization server's and the consent page's included.

``/mcp`` (the SDK's transport security) and the dashboard's API check it themselves, each in its own words; this
middleware answers the rest (the pages, the authorization server, the consent page): ``421`` for a host the
server does not answer to. ``/health`` stays open to any host, for load balancers and probes that call the server
by its address.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

from remember.web import host_matches

OPEN_PATHS = frozenset({"/health"})


class HostCheck:
    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path in OPEN_PATHS or _checks_its_own(path) or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": "invalid_host",
                "error_description": "This server does not answer to this host; add it to REMEMBER_HTTP_ALLOWED_HOSTS.",
            }
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 421, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _allowed(self, scope: Scope) -> bool:
        host = next((v for k, v in scope.get("headers", []) if k == b"host"), b"").decode("latin-1")
        return any(host_matches(host, pattern) for pattern in self.allowed_hosts)


def _checks_its_own(path: str) -> bool:
    """``/mcp`` (the SDK) and the dashboard's API answer a foreign host themselves, in their own words."""
    return path == "/mcp" or path.startswith(("/mcp/", "/api/"))
