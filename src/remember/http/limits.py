"""Limits in front of the MCP endpoint: a request rate per credential, a static token header, and a body
size for the routes that do not bound their own (``BodyLimit``).

``RateLimit`` is a token bucket per key: ``per_minute`` requests a minute on
average, as many at once. ``Guard`` keys it by a hash of the request's
credential (its bearer token or the dashboard's session id), answers 429 with
``Retry-After`` past it, and lets a client that can only set a fixed header
send its token as ``X-Remember-Token``.

A credential has a bucket of its own only once the server has accepted it (the
SDK's bearer middleware notes an accepted token in the request's scope; the
dashboard calls ``accepted``). A request with a credential not yet known, while
its address's bucket or its address's bucket of failed logins is empty, goes on
only if the credential is valid (one lookup), else gets 429; afterwards a ``401``
draws from the failed logins, an answer nothing checked the credential for from
the address: made-up tokens are limited per address and cannot push real users'
buckets out, and a valid token is never locked out by others' failures from its
address (behind a proxy, every client's). Requests without a credential
count per client address. A database out of reach while a request is checked
answers 503 with ``Retry-After`` and the reason, not a server error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remember.errors import StoreUnavailable

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier

TOKEN_HEADER = b"x-remember-token"
SESSION_HEADER = b"x-remember-session"  # the dashboard's (web/session.py)
MAX_KEYS = 100_000  # buckets kept; the least recently used go first
log = logging.getLogger(__name__)
UNAVAILABLE_RETRY = 5  # seconds a client is told to wait while the database is unreachable


@dataclass
class _Checked:
    """Whether the credential of the request being served was accepted."""

    accepted: bool = False


_checked: ContextVar[_Checked | None] = ContextVar("remember_credential_checked", default=None)
SessionCheck = Callable[[str], Awaitable[bool]]  # whether a dashboard session id is one in use


def accepted() -> None:
    """Note that the request being served carries a credential the server accepts (its own bucket from now on)."""
    found = _checked.get()
    if found is not None:
        found.accepted = True


class RateLimit:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when a request of ``key`` may go now; else the seconds until it may."""
        now = self.clock()
        with self._lock:
            level = self._refilled(key, now)
            wait = self._wait(level)
            self._buckets.pop(key, None)  # re-inserted last: the most recently used
            self._buckets[key] = (level - 1.0 if wait == 0.0 else level, now)
            while len(self._buckets) > MAX_KEYS:
                self._buckets.popitem(last=False)
        return wait

    def known(self, key: str) -> bool:
        with self._lock:
            return key in self._buckets

    def waiting(self, key: str) -> float:
        """What ``take`` would answer for ``key``, without taking (nor keeping a bucket)."""
        now = self.clock()
        with self._lock:
            return self._wait(self._refilled(key, now))

    def _refilled(self, key: str, now: float) -> float:
        """The level of ``key``'s bucket at ``now`` (full for a key without one); the lock is held."""
        level, at = self._buckets.get(key, (self.capacity, now))
        return min(self.capacity, level + (now - at) * self.rate)

    def _wait(self, level: float) -> float:
        return 0.0 if level >= 1.0 else (1.0 - level) / self.rate

    def __len__(self) -> int:
        return len(self._buckets)


class Guard:
    """ASGI middleware: the token header, then the rate limit (``/health`` is never limited).

    ``verifier`` (a bearer token) and ``sessions`` (a dashboard session id) check a credential not yet known
    while its address may send no more: a valid one goes on (others' failures from the same address, one proxy
    for everyone, never lock it out), a made-up one gets 429.
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: RateLimit | None,
        verifier: TokenVerifier | None = None,
        sessions: SessionCheck | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.verifier = verifier
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = list(scope.get("headers", []))
        names = {name for name, _ in headers}
        static = next((value for name, value in headers if name == TOKEN_HEADER), None)
        if static is not None and b"authorization" not in names:
            headers.append((b"authorization", b"Bearer " + static.strip()))
            scope = {**scope, "headers": headers}
        if self.limit is None or _unlimited(str(scope.get("path", ""))):
            await self._serve(scope, receive, send)
            return
        limit, credential, address = self.limit, _credential(headers), _address(scope)
        known = credential is not None and limit.known(credential)
        if credential is None or known:
            wait = limit.take(credential or address)
        else:  # let through only if valid while its address fails (or sends unchecked requests) too often
            wait = max(limit.waiting(_failed(address)), limit.waiting(address))
            if wait > 0 and await self._valid(headers):
                wait = 0.0
        if wait > 0:
            await _answer(send, 429, "rate_limited", f"Too many requests; try again in {_seconds(wait)} s.", wait)
            return
        checked = _Checked()
        bound = _checked.set(checked)
        try:
            status = await self._serve(scope, receive, send)
        finally:
            _checked.reset(bound)
        if credential is not None and not known:
            self._charge(limit, credential, address, status, checked.accepted or _authenticated(scope))

    async def _valid(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether the request's credential is one the server accepts (False without a way to check it)."""
        token, session = _bearer(headers), _session(headers)
        try:
            if token is not None:
                return self.verifier is not None and await self.verifier.verify_token(_text(token)) is not None
            return session is not None and self.sessions is not None and await self.sessions(_text(session))
        except StoreUnavailable:
            raise
        except Exception:  # a malformed credential is not a valid one
            return False

    @staticmethod
    def _charge(limit: RateLimit, credential: str, address: str, status: int | None, accepted: bool) -> None:
        """After a request with a credential not yet known: its own first request, or its address's."""
        if status == 401:
            limit.take(_failed(address))
        elif accepted:
            limit.take(credential)
        else:
            limit.take(address)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> int | None:
        """The app's answer to the request; its status (None when it sent none)."""
        status: int | None = None

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except StoreUnavailable as exc:  # e.g. checking the token while the database is down
            if status is None:
                await _answer(send, 503, "temporarily_unavailable", str(exc), UNAVAILABLE_RETRY)
                status = 503
            log.warning("database unavailable: %s", exc)  # answered (503) by unavailable() if not here
        return status


class BodyLimit:
    """ASGI middleware: no request body over ``limit`` bytes reaches a route that does not bound its own.

    ``/mcp`` (the SDK's ``max_request_body_size``) and the dashboard's API (``web/responses.read_body``) read
    their bodies no further than the limit and answer 413 in their own words. Every other route (the consent
    page, the authorization server's registration, token and revocation endpoints) would parse a body of any
    size, so here a declared length over the limit is answered 413 before the route runs, and a body of
    undeclared length (chunked) 411: browsers and OAuth clients always declare it.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _bounds_its_own_body(str(scope.get("path", ""))):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length", b"").strip()
        if declared.isdigit() and int(declared) > self.limit:
            description = (
                f"The request body is larger than this server takes ({self.limit} bytes, REMEMBER_HTTP_MAX_BODY)."
            )
            await _answer(send, 413, "request_too_large", description)
            return
        if not declared.isdigit() and b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            await _answer(send, 411, "length_required", "Send the request body with a Content-Length.")
            return
        await self.app(scope, receive, send)


def _bounds_its_own_body(path: str) -> bool:
    return path == "/mcp" or path.startswith(("/mcp/", "/api/"))


def _unlimited(path: str) -> bool:
    """``/health`` and the dashboard's own files (which read no data) are never limited."""
    return path == "/health" or path.startswith("/static/")


def _credential(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The bucket key of the credential the request is served with, None when it carries none: its bearer token,
    else its dashboard session id, as the MCP endpoint and the dashboard choose (``web/session.caller_of``). An
    ``Authorization`` header of another scheme, and a cookie, are used by neither, so they name no bucket:
    changing them cannot earn a request a fresh one."""
    credential = _bearer(headers) or _session(headers)
    return None if credential is None else "t:" + hashlib.sha256(credential).hexdigest()


def _bearer(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    header = next((value for name, value in headers if name == b"authorization"), b"")
    scheme, _, value = header.partition(b" ")
    return value.strip() or None if scheme.lower() == b"bearer" else None


def _authenticated(scope: Scope) -> bool:
    """Whether the SDK's bearer middleware accepted the request's token (it notes the user in the scope)."""
    return bool(getattr(scope.get("user"), "is_authenticated", False))


def _address(scope: Scope) -> str:
    client = scope.get("client") or ("?", 0)
    return f"a:{client[0]}"


def _failed(address: str) -> str:
    """The bucket of the failed logins from ``address``."""
    return "f:" + address


def _session(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """The dashboard's session id (one bucket per session, not per address)."""
    found = next((value for name, value in headers if name == SESSION_HEADER), b"")
    return found.strip() or None


def _text(credential: bytes) -> str:
    return credential.decode("utf-8", "replace")


async def unavailable(_: Request, exc: Exception) -> Response:
    """The application's answer to an error no handler took: 503 with the reason when the database
    is out of reach (the token check needs it), else a plain 500."""
    if isinstance(exc, StoreUnavailable):
        body = {"error": "temporarily_unavailable", "error_description": str(exc)}
        return JSONResponse(body, status_code=503, headers={"Retry-After": str(UNAVAILABLE_RETRY)})
    return PlainTextResponse("Internal Server Error", status_code=500)


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


async def _answer(send: Send, status: int, error: str, description: str, retry_after: float | None = None) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(_seconds(retry_after)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
