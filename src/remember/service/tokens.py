"""API tokens: made for a user, shown once, kept only as a hash, checked in constant time.

A token reads ``rmb_<id>_<secret>``: the id (64 random bits) finds its row, the
secret (256 random bits) is compared, as a SHA-256 digest, with
``hmac.compare_digest``. A token carries a trust level (``remember.caller``): the
highest memory trust a request made with it reaches.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from remember.clock import Clock, utc_now
from remember.config import USER_ID
from remember.errors import NotFound, ValidationFailed, excerpt
from remember.models import ApiToken
from remember.store import TokenStore

PREFIX = "rmb_"
_SHAPE = re.compile(r"^rmb_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")
_DURATION = re.compile(r"^(\d{1,6})([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
MAX_NAME = 200
# Noting the last use is a write: at most this often per token.
USE_RESOLUTION = timedelta(minutes=5)
_NO_MATCH = hashlib.sha256(b"no such token").hexdigest()
# Why a presented token is refused, in words for whoever sent it. Revoked and expired are said only to
# a sender who holds the whole token (its secret matched): the rest learn nothing about stored tokens.
NOT_AN_API_TOKEN = "this is not an API token of remember (they read rmb_<id>_<secret>)"
UNKNOWN = "this server knows no such API token (mistyped, revoked and purged, or made for another database)"


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    secret: str  # the whole token text: shown once, never stored


def token_id_of(presented: str) -> str | None:
    """The id inside a token of the shape ``create`` makes, else None."""
    shape = _SHAPE.match(presented)
    return shape.group(1) if shape else None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def duration(text: str) -> timedelta:
    """``30d``, ``12h``, ``90m``, ``2w`` as a time span."""
    found = _DURATION.match(text.strip())
    if not found or int(found.group(1)) == 0:
        raise ValidationFailed.single(
            "expires", "invalid", f"{excerpt(text)} is not a duration: use a number and m, h, d or w, e.g. 30d.", text
        )
    return timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})


class TokenService:
    def __init__(self, store: TokenStore, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock

    def create(
        self,
        user_id: str,
        *,
        name: str | None = None,
        expires_in: timedelta | None = None,
        trust_level: float = 1.0,
        made_with: str | None = None,
        spaces: frozenset[str] | None = None,
    ) -> IssuedToken:
        """A new token for ``user_id``; ``made_with`` names the token of the request that made it, so that
        revoking that one revokes this one too; ``spaces``, the keys of the only spaces it reaches (resolved and
        checked by ``SpaceService.limit``)."""
        if not USER_ID.match(user_id):  # a token acts for a user, never for a shared space (space_keys)
            raise ValidationFailed.single("user", "invalid", f"{excerpt(user_id)} is not a user id.", user_id)
        if name is not None and (not name.strip() or len(name) > MAX_NAME):
            raise ValidationFailed.single("name", "invalid", f"A token's name is 1-{MAX_NAME} characters.", name)
        if not 0.0 <= trust_level <= 1.0:
            raise ValidationFailed.single(
                "trust_level", "range", "A token's trust level is from 0 to 1, e.g. --trust-level 0.7.", trust_level
            )
        token_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
        now = self.clock()
        token = ApiToken(
            id=token_id,
            user_id=user_id,
            name=name,
            secret_sha256=digest(secret),
            trust_level=trust_level,
            created_at=now,
            expires_at=now + expires_in if expires_in is not None else None,
            parent_id=made_with,
            spaces=spaces,
        )
        self.store.insert(token)
        return IssuedToken(token, f"{PREFIX}{token_id}_{secret}")

    def list(
        self, user_id: str | None, *, max_trust: float | None = None, within: frozenset[str] | None = None
    ) -> list[ApiToken]:
        """The tokens (of ``user_id`` when given; at most at ``max_trust`` when given; limited to some of the
        spaces ``within`` when given: what a session limited to those spaces sees)."""
        return [t for t in self.store.of(user_id) if _seen(t, max_trust, within)]

    def revoke(
        self, token_id: str, *, user_id: str | None = None, max_trust: float | None = None,
        within: frozenset[str] | None = None,
    ) -> ApiToken:  # fmt: skip
        """Revoke a token (only one of ``user_id``'s, at most at ``max_trust``, limited within ``within``, when
        given) and every token made from it; twice is no error."""
        found = self.store.get(token_id.strip())
        mine = found is not None and (user_id is None or found.user_id == user_id)
        if found is None or not mine or not _seen(found, max_trust, within):
            raise NotFound(f"No token with id {excerpt(token_id)}. `remember token list` shows the ids.")
        now = self.clock()
        self.store.revoke(found.id, now)
        return self.store.get(found.id) or found

    def verify(self, presented: str) -> ApiToken | None:
        """The token ``presented`` is, if it is known, not revoked and not expired; else None."""
        return self.check(presented)[0]

    def check(self, presented: str) -> tuple[ApiToken | None, str | None]:
        """The token ``presented`` is (and None), or None and why it is refused, in words for its sender."""
        shape = _SHAPE.match(presented)
        found = self.store.get(shape.group(1)) if shape else None
        # Compared even when nothing was found, so that the answer takes the same time.
        given = digest(shape.group(2)) if shape else digest(presented)
        matches = hmac.compare_digest(given, found.secret_sha256 if found else _NO_MATCH)
        if found is None or not matches:
            return None, UNKNOWN if shape else NOT_AN_API_TOKEN
        now = self.clock()
        if not found.usable_at(now):
            return None, _lapsed(found)
        self._note_use(found, now)
        return found, None

    def usable(self, token_id: str) -> ApiToken | None:
        """The token ``token_id``, unless it is unknown, revoked or expired; its use is noted (a dashboard
        session made from it acts as it)."""
        found = self.store.get(token_id)
        now = self.clock()
        if found is None or not found.usable_at(now):
            return None
        self._note_use(found, now)
        return found

    def _note_use(self, token: ApiToken, now: datetime) -> None:
        if token.last_used_at is None or now - token.last_used_at > USE_RESOLUTION:
            self.store.used(token.id, now)


def _lapsed(token: ApiToken) -> str:
    """Why a token whose secret matched is no longer accepted."""
    renew = f"make a new one with `remember token create --user {token.user_id}`"
    if token.revoked_at is not None:
        return f"this API token ({token.id}) was revoked on {token.revoked_at:%Y-%m-%d %H:%M} UTC; {renew}"
    expired = token.expires_at or token.created_at  # not usable and not revoked: expired
    return f"this API token ({token.id}) expired on {expired:%Y-%m-%d %H:%M} UTC; {renew}"


def _seen(token: ApiToken, max_trust: float | None, within: frozenset[str] | None) -> bool:
    """Whether a session at ``max_trust``, limited to the spaces ``within``, may see and revoke ``token``."""
    if max_trust is not None and token.trust_level > max_trust:
        return False
    return within is None or (token.spaces is not None and token.spaces <= within)
