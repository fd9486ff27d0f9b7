"""The ``Host`` check on every route: a page of another site that rebinds its DNS name to this server's address
(DNS rebinding) reaches no route, the authorization server's and the consent page's included.

``/mcp`` (the SDK's transport security) and the dashboard check it too, each in its own words; this middleware
answers the rest: ``421`` for a host the server does not answer to. ``/health`` stays open to any host, for load
balancers and probes that call the server by its address.
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
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS or self._allowed(scope):
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
