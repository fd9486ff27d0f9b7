"""Dashboard sessions: a browser's login, made from an API token and acting as it.

A session id reads ``rms_<secret>`` (256 random bits), given to the browser once; the store keeps
only its SHA-256, by which the row is found (a digest of 256 random bits cannot be guessed, so
unlike a token's secret it needs no separate id to find it by). A session acts for its token's
user at its token's trust level, and its token is checked at every use: revoking the token, or
its expiry, ends its sessions at once. A session ends too at its own end (``LIFETIME`` after the
login, never after its token's), at logout, and when its browser logs in again: the new session
replaces the one the browser presented, so an id planted in a browser never becomes its login.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.models import ApiToken, DashboardSession
from remember.service.tokens import TokenService, digest
from remember.store import DashboardSessionStore

PREFIX = "rms_"
_SHAPE = re.compile(r"^rms_[A-Za-z0-9_-]{43}$")
LIFETIME = timedelta(hours=24)  # a session's longest life; its token's end comes first when sooner
KEEP = 50  # sessions kept per token: a login past that ends the oldest


@dataclass(frozen=True)
class IssuedSession:
    session: DashboardSession
    secret: str  # the session id: given to the browser once, never stored


@dataclass(frozen=True)
class LiveSession:
    """A session in use, and the token it acts as (neither revoked nor expired)."""

    session: DashboardSession
    token: ApiToken

    @property
    def caller(self) -> Caller:
        """Who the session acts for: its token's user, at its token's trust level, until its token ends."""
        ends = self.token.expires_at
        ends_at = int(ends.timestamp()) if ends else None
        return Caller(self.token.user_id, self.token.trust_level, ends_at, self.token.id, spaces=self.token.spaces)


def is_session_id(presented: str) -> bool:
    """Whether ``presented`` has the shape ``start`` gives a session id."""
    return bool(_SHAPE.match(presented))


class DashboardSessionService:
    def __init__(self, store: DashboardSessionStore, tokens: TokenService, clock: Clock = utc_now) -> None:
        self.store = store
        self.tokens = tokens
        self.clock = clock

    def start(self, token: ApiToken, *, replacing: str | None = None) -> IssuedSession:
        """A new session acting as ``token`` (one the caller checked), ending the session ``replacing``
        (the id the browser presented, if any)."""
        now = self.clock()
        ends = now + LIFETIME
        if token.expires_at is not None:
            ends = min(ends, token.expires_at)
        secret = PREFIX + secrets.token_urlsafe(32)
        session = DashboardSession(digest(secret), token.id, token.user_id, now, ends)
        old = digest(replacing) if replacing is not None and is_session_id(replacing) else None
        self.store.start(session, replacing=old, keep=KEEP)
        return IssuedSession(session, secret)

    def find(self, presented: str) -> LiveSession | None:
        """The session ``presented`` names, if it has not ended and its token is still usable; else None."""
        if not is_session_id(presented):
            return None
        found = self.store.get(digest(presented))
        if found is None or not found.usable_at(self.clock()):
            return None
        token = self.tokens.usable(found.token_id)
        if token is None or token.user_id != found.user_id:
            return None
        return LiveSession(found, token)

    def end(self, presented: str) -> bool:
        """End the session ``presented`` names (logging out); False when there is none."""
        return is_session_id(presented) and self.store.end(digest(presented))
