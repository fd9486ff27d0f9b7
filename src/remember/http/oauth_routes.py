"""``/authorize``, ``/register``, ``/token`` and ``/revoke`` of the built-in authorization server: the SDK's
own handlers, each given the provider as the request being answered sees it.

The SDK's routes hand the provider no request: registration does not say where it came from (which the
bound on registrations per address needs), and the client check compares the presented client secret
with the one ``get_client`` returns (which the store keeps only as a hash). These routes, served before
the SDK's of the same paths, build the SDK's handler per request over ``provider.seen_by(...)``: the
request's address, and the client secrets it presents (HTTP Basic, or ``client_secret`` in the form).
CORS and the body limit are the SDK's, as on its routes. ``/authorize`` first looks up a client named by
its metadata document's URL, so that a document that cannot be used is refused saying why (the SDK's
handler would say only that the client is not found).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from urllib.parse import unquote

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.revoke import RevocationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, request_response
from starlette.types import ASGIApp

from remember.http.client_documents import is_document_id
from remember.http.oauth_bounds import address_key
from remember.http.oauth_server import RememberAuthorizationServer, Requester

Handler = Callable[[Request], Awaitable[Response]]


def client_routes(provider: RememberAuthorizationServer, registration: ClientRegistrationOptions) -> list[Route]:
    """The routes of ``/register``, ``/token`` and ``/revoke`` over ``provider``."""

    async def register(request: Request) -> Response:
        seen = provider.seen_by(Requester(_address(request)))
        response: Response = await RegistrationHandler(seen, registration).handle(request)
        return response

    async def token(request: Request) -> Response:
        seen = provider.seen_by(Requester(_address(request), await presented_secrets(request)))
        response: Response = await TokenHandler(seen, ClientAuthenticator(seen)).handle(request)
        return response

    async def revoke(request: Request) -> Response:
        seen = provider.seen_by(Requester(_address(request), await presented_secrets(request)))
        response: Response = await RevocationHandler(seen, ClientAuthenticator(seen)).handle(request)
        return response

    async def authorize(request: Request) -> Response:
        params = request.query_params if request.method == "GET" else await request.form()
        client_id = params.get("client_id")
        if provider.documents is not None and isinstance(client_id, str) and is_document_id(client_id):
            found, problem = await provider.documents.find(client_id)
            if found is None:
                refusal = {"error": "invalid_client", "error_description": f"client {client_id[:100]!r}: {problem}"}
                return JSONResponse(refusal, status_code=400, headers={"Cache-Control": "no-store"})
        response: Response = await AuthorizationHandler(provider).handle(request)
        return response

    limited = RequestBodyLimitMiddleware(request_response(authorize), DEFAULT_MAX_REQUEST_BODY_SIZE)
    return [
        Route("/authorize", endpoint=limited, methods=["GET", "POST"]),  # no CORS: a browser is sent here
        _route("/register", register),
        _route("/token", token),
        _route("/revoke", revoke),
    ]


async def presented_secrets(request: Request) -> tuple[str, ...]:
    """The client secrets a request presents: in HTTP Basic (RFC 6749 §2.3.1, each part URL-encoded) and
    as ``client_secret`` in its form. The client check decides which of them its method uses."""
    found: list[str] = []
    header = request.headers.get("authorization", "")
    if header.startswith("Basic "):
        try:
            decoded = base64.b64decode(header[6:]).decode()
        except (ValueError, UnicodeDecodeError, binascii.Error):
            decoded = ""
        if ":" in decoded:
            found.append(unquote(decoded.split(":", 1)[1]))
    form = await request.form()  # read once: the SDK's handler reads the same parsed form
    secret = form.get("client_secret")
    if isinstance(secret, str):
        found.append(secret)
    return tuple(found)


def _address(request: Request) -> str:
    return address_key(request.client.host if request.client else None)


def _route(path: str, handler: Handler) -> Route:
    limited: ASGIApp = RequestBodyLimitMiddleware(request_response(handler), DEFAULT_MAX_REQUEST_BODY_SIZE)
    app = CORSMiddleware(
        limited, allow_origins="*", allow_methods=["POST", "OPTIONS"], allow_headers=[MCP_PROTOCOL_VERSION_HEADER]
    )
    return Route(path, endpoint=app, methods=["POST", "OPTIONS"])
