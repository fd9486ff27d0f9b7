"""Who a dashboard request acts for, and the checks every request passes first.

A request carries an API token (or an OAuth access token the server accepts) as
``Authorization: Bearer …`` or in the ``remember_session`` cookie that logging in
sets (HttpOnly, SameSite=Strict, Secure behind https). The token is verified on
every request, so revoking it logs the browser out at once. Without auth
(``--no-auth``, loopback only) every request acts for the configured user.

Every request's ``Host`` must be one the server answers to (a DNS-rebinding page
cannot read the dashboard), and a request that writes must carry the
``X-Remember-Request`` header that the page's own code sends: a form or an image
on another site cannot, so it cannot act for a logged-in browser.
"""

from __future__ import annotations

from starlette.requests import Request

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.web.context import WebContext

COOKIE = "remember_session"
WRITE_HEADER = "x-remember-request"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class NotLoggedIn(AccessDenied):
    """No token, or one the server does not accept (unknown, revoked or expired)."""


class RefusedRequest(AccessDenied):
    """A request from somewhere the dashboard does not answer (another host, another site's form)."""


def presented_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE) or None


async def caller_of(request: Request, ctx: WebContext) -> Caller:
    """The user and trust level ``request`` acts for; ``NotLoggedIn`` when it proves none."""
    if ctx.tokens is None:
        assert ctx.open_caller is not None
        return ctx.open_caller
    token = presented_token(request)
    if token is None:
        raise NotLoggedIn("Log in with a token from `remember token create` (or run `remember ui`).")
    caller = await ctx.tokens.caller(token)
    if caller is None:
        raise NotLoggedIn("This token is unknown, revoked or expired: log in with a current one.")
    ctx.tokens.accepted()  # the rate limit gives it a bucket of its own
    return caller


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
