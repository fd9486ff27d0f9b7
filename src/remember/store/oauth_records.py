"""The built-in authorization server's rows: registered clients, pending authorizations, grants, and the
codes and tokens of each grant.

Every secret (a client's secret, a pending request's id, a code, an access or refresh token) is kept
only as the hex SHA-256 digest of its text, and every row has the moment it is forgotten
(``expires_at``). A grant is one person's consent to one client: its code and every access and refresh
token descended from it belong to it, and revoking the grant revokes them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class OAuthClient:
    """A client registered through dynamic client registration (RFC 7591)."""

    id: str
    secret_sha256: str | None  # None: a public client (PKCE alone)
    metadata: dict[str, Any]  # its registration as JSON, without its secret
    address: str  # where it registered from (an IPv6 address as its /64)
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None  # when a person last allowed it; None: never yet
    fresh_until: datetime | None = None  # a client named by its document's URL: when to fetch it again


@dataclass(frozen=True)
class PendingAuthorization:
    """An authorization request waiting on the consent page."""

    request_sha256: str
    client_id: str
    params: dict[str, Any]  # the request's parameters as JSON (the SDK's AuthorizationParams)
    expires_at: datetime


@dataclass(frozen=True)
class Grant:
    """A person's consent to a client, given with one of their API tokens: what its tokens may do."""

    id: str
    client_id: str
    user_id: str
    api_token_id: str
    scopes: tuple[str, ...]
    resource: str
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class GrantCode:
    """The authorization code a grant starts with: single use."""

    code_sha256: str
    grant_id: str
    code_challenge: str
    redirect_uri: str
    redirect_uri_explicit: bool
    expires_at: datetime
    used_at: datetime | None = None


@dataclass(frozen=True)
class GrantTokens:
    """An access token and the refresh token issued with it. Refreshing rotates the pair: the old one is
    kept, marked ``rotated_at``, until it expires, so that a replay of its refresh token is recognised."""

    refresh_sha256: str
    access_sha256: str
    grant_id: str
    scopes: tuple[str, ...]
    access_expires_at: datetime
    expires_at: datetime  # the refresh token's
    rotated_at: datetime | None = None
