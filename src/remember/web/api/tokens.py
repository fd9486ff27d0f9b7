"""The tokens page's API: the caller's own API tokens, listed, made and revoked.

``GET /api/tokens`` lists the caller's tokens (never a secret, never another
user's, never one of a higher trust level than the session's); the one the request
itself is made with is marked ``current``.
``POST /api/tokens`` with ``{"name", "expires": "30d", "trust_level", "spaces"}`` makes one
for the caller, at most at the caller's own trust level (a session at 0.5 cannot
mint a token that reads everything) and ending no later than the session's own
token (without ``expires`` it ends with it; a longer lifetime is refused), and reaching
only spaces the session's token reaches (``spaces``: by default, the same), so no
token made here outlives the access it was made with; the answer holds its
secret, shown once. ``DELETE /api/tokens/{id}`` revokes one of the caller's tokens
at most at the session's trust level (another user's id, or a more trusted
token's, is unknown here: 404); revoking the current one ends this session at its
next request.
"""

from __future__ import annotations

import math
import re
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from remember.caller import Caller
from remember.clock import to_text, utc_now
from remember.errors import NotFound, ValidationFailed, excerpt
from remember.models import ApiToken
from remember.service.tokens import duration
from remember.web.context import WebContext
from remember.web.responses import Call, Endpoint, endpoint
from remember.web.session import token_id_of_request

_ID = re.compile(r"^[0-9a-f]{16}$")
# The id of the API token the request being served presents (None for OAuth tokens and --no-auth).
_session_token: ContextVar[str | None] = ContextVar("remember_session_token", default=None)


def routes(ctx: WebContext) -> list[Route]:
    return [
        Route("/api/tokens", _knowing_session(ctx, endpoint(ctx, listing)), methods=["GET"]),
        Route("/api/tokens", endpoint(ctx, create), methods=["POST"]),
        Route("/api/tokens/{token_id}", _knowing_session(ctx, endpoint(ctx, revoke)), methods=["DELETE"]),
    ]


def _knowing_session(ctx: WebContext, serve: Endpoint) -> Endpoint:
    """``serve`` with the id of the request's own token at hand (a context variable reaches the worker thread)."""

    async def wrapped(request: Request) -> Response:
        bound = _session_token.set(await token_id_of_request(request, ctx))
        try:
            return await serve(request)
        finally:
            _session_token.reset(bound)

    return wrapped


def listing(call: Call) -> dict[str, Any]:
    current = _session_token.get()
    seen = call.services.tokens.list(call.caller.user, max_trust=call.caller.trust, within=call.caller.spaces)
    return {"tokens": [_public(t, current) for t in seen]}


def create(call: Call) -> dict[str, Any]:
    body = call.json_object()
    name = body.get("name")
    if name is not None and not isinstance(name, str):
        raise ValidationFailed.single("name", "type", "A token's name is a text, e.g. 'laptop'.", name)
    issued = call.services.tokens.create(
        call.caller.user,
        name=(name.strip() or None) if isinstance(name, str) else None,  # a blank name is no name
        expires_in=_lifetime(body.get("expires"), call.caller),
        trust_level=_trust_level(body.get("trust_level"), call.caller.trust),
        made_with=call.caller.token_id,
        spaces=call.services.spaces.limit(call.caller, _spaces(body.get("spaces"))),
    )
    return {**_public(issued.token, None), "token": issued.secret}


def revoke(call: Call) -> dict[str, Any]:
    token_id = call.path["token_id"]
    if not _ID.match(token_id):
        raise NotFound(f"No token with id {excerpt(token_id)}. The tokens page lists yours.")
    revoked = call.services.tokens.revoke(
        token_id, user_id=call.caller.user, max_trust=call.caller.trust, within=call.caller.spaces
    )
    return {**_public(revoked, _session_token.get()), "logged_out": revoked.id == _session_token.get()}


def _lifetime(given: Any, caller: Caller) -> timedelta | None:
    """The new token's lifetime: never past the end of the token the session is made with."""
    asked = _expires(given)
    if caller.expires_at is None:
        return asked
    ends = datetime.fromtimestamp(caller.expires_at, UTC)
    left = ends - utc_now()
    if asked is None:
        return left  # it ends with the session
    if asked > left:
        raise ValidationFailed.single(
            "expires",
            "max",
            f"This session's token ends at {to_text(ends)}: a token made here ends no later. "
            "Ask for a shorter lifetime (or none: it then ends with this session), "
            "or make a longer-lived one with `remember token create`.",
            given,
        )
    return asked


def _expires(given: Any) -> timedelta | None:
    if given is None or given == "":
        return None
    if not isinstance(given, str):
        raise ValidationFailed.single("expires", "type", "A lifetime is a text such as 30d, 12h, 90m or 2w.", given)
    return duration(given)


def _spaces(given: Any) -> list[str] | None:
    """The spaces the new token is limited to (names, keys, ``personal``); None: as many as the session's."""
    if given is None:
        return None
    if not isinstance(given, list) or not all(isinstance(s, str) for s in given):
        raise ValidationFailed.single(
            "spaces", "type", "The spaces a token reaches are a list of names, keys or 'personal'.", given
        )
    return given


def _trust_level(given: Any, ceiling: float) -> float:
    """The new token's trust level: the caller's own when not given, never above it."""
    if given is None or given == "":
        return ceiling
    if isinstance(given, bool) or not isinstance(given, int | float):
        raise ValidationFailed.single("trust_level", "type", "A trust level is a number from 0 to 1.", given)
    try:
        level = float(given)
    except OverflowError:
        level = math.inf
    if not math.isfinite(level):
        raise ValidationFailed.single("trust_level", "range", "A trust level is a number from 0 to 1.", given)
    if level > ceiling:
        raise ValidationFailed.single(
            "trust_level",
            "max",
            f"This session's trust level is {ceiling:g}: a token made here reaches at most that (got {level:g}).",
            given,
        )
    return level


def _public(t: ApiToken, current: str | None) -> dict[str, Any]:
    """A token's record without its hash, marked when it is the one the request carries."""
    return {**t.public(), "current": t.id == current}
