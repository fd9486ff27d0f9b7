"""Who a dashboard request acts for, and the checks every request passes first.

A request carries an API token (or an OAuth access token the server accepts) as
``Authorization: Bearer …``, or the id of a dashboard session in the ``X-Remember-Session``
header. Logging in makes the session (``api/session.py``,
``service/dashboard_sessions.py``); the page keeps its id in the browser's storage of the
dashboard's origin (its scheme, host and port) and sends it with every call. A cookie would
be sent to, and could be set by, every service on any port of the same host; this storage
is neither read nor written by another origin, so no other service on the machine can take
the session or plant one of its own. The dashboard reads no cookie. The session and its
token are checked on every request, so logging out or revoking the token ends it at once.
Without auth (``--no-auth``, loopback only) every request acts for the configured user.

Every request's ``Host`` must be one the server answers to (a DNS-rebinding page
cannot read the dashboard), and a request that writes must carry the
``X-Remember-Request`` header that the page's own code sends: a form or an image
on another site cannot, so it cannot act for a logged-in browser.
"""

from __future__ import annotations

import anyio.to_thread
from starlette.requests import Request

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.service.dashboard_sessions import LiveSession
from remember.service.tokens import token_id_of
from remember.web.context import WebContext

SESSION_HEADER = "x-remember-session"
WRITE_HEADER = "x-remember-request"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_SESSION = 100  # characters of a presented session id (they have 47)


class NotLoggedIn(AccessDenied):
    """No credential, or one the server does not accept (unknown, revoked, expired or logged out)."""


class RefusedRequest(AccessDenied):
    """A request from somewhere the dashboard does not answer (another host, another site's form)."""


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def presented_session(request: Request) -> str | None:
    """The session id the request carries (the page's header), None without one."""
    return request.headers.get(SESSION_HEADER, "").strip()[:MAX_SESSION] or None


async def live_session(request: Request, ctx: WebContext) -> LiveSession | None:
    """The session the request carries, if it is one in use."""
    presented = presented_session(request)
    if presented is None:
        return None
    return await anyio.to_thread.run_sync(ctx.services.dashboard_sessions.find, presented)


# The dashboard shows the personal space (docs/spaces.md): a token limited to shared spaces does not reach it.
NOT_HOME = (
    "This token reaches only some shared spaces; the dashboard shows your personal space. "
    "Log in with a token that reaches it (`remember token create` without --space, or with --space personal)."
)


async def caller_of(request: Request, ctx: WebContext) -> Caller:
    """The user and trust level ``request`` acts for; ``NotLoggedIn`` when it proves none.

    A bearer token goes first (a script's), as the rate limit keys it (``http/limits.py``)."""
    if ctx.tokens is None:
        assert ctx.open_caller is not None
        return ctx.open_caller
    token = bearer_token(request)
    if token is not None:
        caller = await ctx.tokens.caller(token)
        if caller is None:
            raise NotLoggedIn("This token is unknown, revoked or expired: log in with a current one.")
    elif presented_session(request) is not None:
        session = await live_session(request, ctx)
        if session is None:
            raise NotLoggedIn("This session has ended (logged out, or its token revoked or expired): log in again.")
        caller = session.caller
    else:
        raise NotLoggedIn("Log in with a token from `remember token create` (or run `remember ui`).")
    ctx.tokens.accepted()  # the rate limit gives it a bucket of its own
    if not caller.home:
        raise AccessDenied(NOT_HOME)
    return caller


async def token_id_of_request(request: Request, ctx: WebContext) -> str | None:
    """The id of the API token the request acts as: its bearer token's, or its session's."""
    token = bearer_token(request)
    if token is not None:
        return token_id_of(token)
    session = await live_session(request, ctx)
    return None if session is None else session.token.id


def check_request(request: Request, allowed_hosts: list[str]) -> None:
    """Refuse a request for a host the server does not serve, or a write the page did not send."""
    host = request.headers.get("host", "")
    if not any(host_matches(host, pattern) for pattern in allowed_hosts):
        raise RefusedRequest(
            f"This server does not answer to the host {host[:80]!r}; add it to REMEMBER_HTTP_ALLOWED_HOSTS."
        )
    if request.method not in SAFE_METHODS and request.headers.get(WRITE_HEADER) != "1":
        raise RefusedRequest(
            "A change through the dashboard's API needs the header 'X-Remember-Request: 1' "
            "(the dashboard sends it; pages on other sites cannot)."
        )


def host_matches(host: str, pattern: str) -> bool:
    """``127.0.0.1:*`` matches that host on any port; any other pattern only itself (case ignored)."""
    host, pattern = host.lower(), pattern.lower()
    if pattern.endswith(":*"):
        name, colon, port = host.rpartition(":")
        return bool(colon) and port.isdigit() and name == pattern[:-2]
    return host == pattern
