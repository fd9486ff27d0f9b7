"""The HTTP application: the MCP server on ``/mcp`` with its auth, checks and limits, ``/health``, and
the dashboard (``web/``) on ``/`` behind the same tokens.

Built from the SDK's own parts: ``MCPServer.streamable_http_app`` (session-based
revisions and the stateless 2026-07-28 one), its bearer-token middleware and
protected resource metadata (RFC 9728) when auth is on, its transport security
settings (Host and Origin checks against DNS rebinding) and its request body
limit. ``Guard`` (``limits.py``) rate-limits in front of it all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from remember import __version__
from remember.caller import Caller
from remember.config import HttpSettings, Settings
from remember.errors import ConfigError
from remember.http.auth import ApiTokenVerifier, FirstOf, TokenCallers, TokenProblems, http_caller, refused
from remember.http.hosts import HostCheck
from remember.http.limits import BodyLimit, Guard, RateLimit, SessionCheck, unavailable
from remember.mcp.server import CallLimits, RememberServer, build_server
from remember.service import Services
from remember.service.tokens import PREFIX
from remember.web import LoginCodes, WebContext, web_routes

if TYPE_CHECKING:
    from remember.http.document_clients import DocumentClients
    from remember.http.oauth_server import RememberAuthorizationServer
    from remember.store import OAuthClientStore

MCP_PATH = "/mcp"
REGISTRATION = ClientRegistrationOptions(enabled=True)  # the built-in authorization server's
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def build_app(services: Services, settings: Settings, *, auth: bool = True, codes: LoginCodes | None = None) -> ASGIApp:
    """The ASGI application of ``remember serve --http``; ``auth=False`` only on loopback.

    ``codes`` are the one-time login links the dashboard redeems (``remember ui`` issues them).
    """
    http = settings.http
    if not auth:
        refuse_open_beyond_loopback(http)
    server, verifier = _server(services, settings, auth=auth)

    @server.custom_route("/health", methods=["GET"])  # type: ignore[untyped-decorator]  # the SDK's, untyped
    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__})

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=transport_security(http),
        max_request_body_size=http.max_body,
        host=http.host,
    )
    if isinstance(verifier, IssuedTokens):  # the built-in authorization server's routes go before the SDK's
        from remember.http.oauth_routes import client_routes

        metadata = _authorization_server_metadata(http, documents=verifier.provider.documents is not None)
        app.router.routes[0:0] = [metadata, *client_routes(verifier.provider, REGISTRATION)]
    app.router.routes.extend(web_routes(_web_context(services, settings, verifier, codes)))
    app.add_exception_handler(500, unavailable)
    limit = RateLimit(http.rate_limit) if http.rate_limit else None
    checked = HostCheck(BodyLimit(TokenProblems(app), http.max_body), transport_security(http).allowed_hosts or [])
    return Guard(checked, limit, verifier, _session_check(services) if verifier else None)


def _session_check(services: Services) -> SessionCheck:
    """Whether a dashboard session id is one in use (the rate limit's check of a credential not yet known)."""

    async def valid(presented: str) -> bool:
        return await anyio.to_thread.run_sync(services.dashboard_sessions.find, presented) is not None

    return valid


def _authorization_server_metadata(http: HttpSettings, *, documents: bool) -> Route:
    """The SDK's authorization server metadata (RFC 8414), saying also that redirects carry ``iss``
    (RFC 9207), which the built-in server does, and whether clients may name their metadata documents."""
    from mcp.server.auth.routes import build_metadata

    metadata = build_metadata(
        http.base_url,  # type: ignore[arg-type]
        None,
        REGISTRATION,
        RevocationOptions(enabled=True),
    ).model_copy(
        update={
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": documents,
        }
    )

    async def serve(_: Request) -> JSONResponse:
        body = metadata.model_dump(mode="json", exclude_none=True)
        return JSONResponse(body, headers={"Cache-Control": "public, max-age=3600"})

    return Route("/.well-known/oauth-authorization-server", serve, methods=["GET"])


def refuse_open_beyond_loopback(http: HttpSettings) -> None:
    """Serving without tokens is for this machine only."""
    if not http.on_loopback:
        raise ConfigError(
            f"Refusing to serve {http.host} without authentication: anyone who can reach it could read "
            "every memory. Drop --no-auth (clients then send a token from `remember token create`), "
            "or bind to 127.0.0.1."
        )


def _web_context(
    services: Services, settings: Settings, verifier: TokenVerifier | None, codes: LoginCodes | None
) -> WebContext:
    return WebContext(
        services,
        settings,
        TokenCallers(verifier) if verifier else None,
        allowed_hosts=transport_security(settings.http).allowed_hosts,
        open_caller=Caller(settings.user, settings.trust_level) if verifier is None else None,
        codes=codes or LoginCodes(),
    )


def _server(services: Services, settings: Settings, *, auth: bool) -> tuple[RememberServer, TokenVerifier | None]:
    """The MCP server, and the verifier of the tokens it takes (None without auth)."""
    http = settings.http
    limits = CallLimits(timeout=http.call_timeout, max_result_bytes=http.max_result_bytes)
    cache = settings.home / "cache"
    if not auth:
        caller = Caller(settings.user, settings.trust_level)
        return build_server(services, lambda: caller, cache_dir=cache, limits=limits), None
    resource = resource_url(http)
    if http.oauth_server:
        return _with_authorization_server(services, http, resource, cache, limits)
    verifiers: list[TokenVerifier] = [ApiTokenVerifier(services.tokens, resource)]
    external = bool(http.oauth_issuer or http.oauth_jwks_url)
    if external:
        verifiers.append(_external_issuer(http, resource))
    sdk: dict[str, Any] = {
        "token_verifier": FirstOf(*verifiers),
        "auth": AuthSettings(
            issuer_url=str(http.oauth_issuer) if external else http.base_url,  # type: ignore[arg-type]
            # Protected resource metadata names the authorization server: only when there is one.
            resource_server_url=resource if external else None,  # type: ignore[arg-type]
            validate_token_resource=external,  # API tokens are this server's own
        ),
    }
    return build_server(services, http_caller, cache_dir=cache, limits=limits, **sdk), sdk["token_verifier"]


def _with_authorization_server(
    services: Services, http: HttpSettings, resource: str, cache: Path, limits: CallLimits
) -> tuple[RememberServer, TokenVerifier]:
    """The server as its own authorization server (API tokens keep working beside its access tokens)."""
    if http.oauth_issuer or http.oauth_jwks_url:
        raise ConfigError(
            "Choose one authorization server: REMEMBER_OAUTH_SERVER=1 (the built-in one) or "
            "REMEMBER_OAUTH_ISSUER with REMEMBER_OAUTH_JWKS_URL (an external one), not both."
        )
    from remember.http import consent
    from remember.http.oauth_server import RememberAuthorizationServer

    store = services.store
    provider = RememberAuthorizationServer(
        store.oauth_clients, store.oauth_grants, services.tokens, issuer=http.base_url, resource=resource,
        documents=_document_clients(http, store.oauth_clients),
    )  # fmt: skip
    auth = AuthSettings(
        issuer_url=http.base_url,  # type: ignore[arg-type]
        resource_server_url=resource,  # type: ignore[arg-type]
        validate_token_resource=True,
        client_registration_options=REGISTRATION,
        revocation_options=RevocationOptions(enabled=True),
    )
    server = build_server(
        services, http_caller, cache_dir=cache, limits=limits, auth_server_provider=provider, auth=auth
    )
    show, answer = consent.routes(provider)
    server.custom_route("/consent", methods=["GET"])(show)
    server.custom_route("/consent", methods=["POST"])(answer)
    return server, IssuedTokens(provider)


def _document_clients(http: HttpSettings, clients: OAuthClientStore) -> DocumentClients | None:
    """Clients named by their metadata document's URL, unless REMEMBER_OAUTH_CLIENT_DOCUMENTS=off."""
    from remember.http.client_documents import ClientDocuments
    from remember.http.document_clients import DocumentClients

    policy = http.oauth_client_documents
    if policy not in ("public", "any"):
        return None
    return DocumentClients(ClientDocuments("any" if policy == "any" else "public"), clients)


class IssuedTokens:
    """The built-in authorization server's access tokens (and API tokens), as a ``TokenVerifier``."""

    def __init__(self, provider: RememberAuthorizationServer) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await self.provider.load_access_token(token)
        if found is None and not token.startswith(PREFIX):
            refused("this server issued no such access token, or it has expired: sign in again")
        return found


def _external_issuer(http: HttpSettings, resource: str) -> TokenVerifier:
    if not (http.oauth_issuer and http.oauth_jwks_url):
        raise ConfigError(
            "An external OAuth issuer needs both REMEMBER_OAUTH_ISSUER (its `iss`) and REMEMBER_OAUTH_JWKS_URL "
            "(where its signing keys are published)."
        )
    try:
        import cryptography  # noqa: F401  - PyJWT needs it for RS256 and ES256
    except ImportError as exc:
        raise ConfigError(
            "Verifying an OAuth issuer's tokens needs the oauth extra: pip install 'remember[oauth]'."
        ) from exc
    from remember.http.jwt_auth import JwtVerifier

    return JwtVerifier(
        issuer=http.oauth_issuer,
        jwks_url=http.oauth_jwks_url,
        audience=http.oauth_audience or resource,
        user_claim=http.oauth_user_claim,
        resource=resource,
    )


def resource_url(http: HttpSettings) -> str:
    """The MCP endpoint's URL: the resource tokens must be issued for (RFC 8707)."""
    return http.base_url + MCP_PATH


def transport_security(http: HttpSettings) -> TransportSecuritySettings:
    """Host and Origin checks: loopback, the public URL's, and the ones configured."""
    hosts, origins = list(LOOPBACK_HOSTS), list(LOOPBACK_ORIGINS)
    public = urlsplit(http.base_url)
    if public.netloc:
        hosts.append(public.netloc)
        origins.append(f"{public.scheme}://{public.netloc}")
        if public.port is None:
            hosts.append(f"{public.hostname}:*")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *http.allowed_hosts],
        allowed_origins=[*origins, *http.allowed_origins],
    )
