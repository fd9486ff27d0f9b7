"""Who a service call acts for: a user, and the highest memory trust the call may reach.

Every memory has a ``trust`` from 0 to 1, the level a caller needs to reach it.
Every public service method takes a ``Caller`` first: an edge builds it from
what it knows of the request (the command line and the stdio server: the
configured user at full trust; HTTP: the user and level of the request's token)
and passes it down. No service has a default caller, so a path that forgets to
pass one fails to type-check instead of reading everything.
"""

from __future__ import annotations

from dataclasses import dataclass

FULL = 1.0


@dataclass(frozen=True)
class Caller:
    """A user, the trust level its request reaches, and when its credential ends.

    ``expires_at`` (Unix seconds) is the end of the token the request carries; None when it has no end.
    ``token_id`` is the API token the request acts as (an OAuth access token acts as the API token its
    grant was given with); None on the command line, the stdio server and without auth.
    """

    user: str
    trust: float = FULL
    expires_at: int | None = None
    token_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.user, str) or not self.user:
            raise ValueError(f"a caller names a user, not {self.user!r}")
        if not 0.0 <= self.trust <= FULL:
            raise ValueError(f"a trust level is from 0 to 1, not {self.trust}")

    @property
    def restricted(self) -> bool:
        """Whether the caller is below full trust (so reads need the trust condition)."""
        return self.trust < FULL

    def reaches(self, trust: float) -> bool:
        """Whether a memory of this ``trust`` is within the caller's reach."""
        return trust <= self.trust
