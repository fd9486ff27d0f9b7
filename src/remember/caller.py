"""Who a service call acts for: a user, and the highest memory trust the call may reach.

Every memory has a ``trust`` from 0 to 1, the level a caller needs to reach it.
Every public service method takes a ``Caller`` first: an edge builds it from
what it knows of the request (the command line and the stdio server: the
configured user at full trust; HTTP: the user and level of the request's token)
and passes it down. No service has a default caller, so a path that forgets to
pass one fails to type-check instead of reading everything.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from remember.space_keys import is_space_key

FULL = 1.0
MAINTENANCE = "(maintenance)"  # the actor of work done for an owner's rows by no one (never a user id)


@dataclass(frozen=True)
class Caller:
    """A user, the trust level its request reaches, and when its credential ends.

    ``expires_at`` (Unix seconds) is the end of the token the request carries; None when it has no end.
    ``token_id`` is the API token the request acts as (an OAuth access token acts as the API token its
    grant was given with); None on the command line, the stdio server and without auth.
    ``actor`` is the user acting when the call acts in a shared space: ``user`` is then the space's key
    (``space_keys``), the owner of the rows read and written, and only ``service/spaces.py`` makes such a
    caller, after checking the user's role there.
    ``spaces`` is the limit of the token the request carries: the keys of the only spaces it reaches (a user's id
    for their personal space); None when it reaches every space of its user.
    """

    user: str
    trust: float = FULL
    expires_at: int | None = None
    token_id: str | None = None
    actor: str | None = None
    spaces: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.user, str) or not self.user:
            raise ValueError(f"a caller names a user, not {self.user!r}")
        if is_space_key(self.user) != (self.actor is not None):
            raise ValueError("a caller acts in a shared space exactly when it names the user acting there")
        if self.actor is not None and is_space_key(self.actor):
            raise ValueError(f"a caller's actor is a user, not the space {self.actor!r}")
        if not 0.0 <= self.trust <= FULL:
            raise ValueError(f"a trust level is from 0 to 1, not {self.trust}")

    @property
    def restricted(self) -> bool:
        """Whether the caller is below full trust (so reads need the trust condition)."""
        return self.trust < FULL

    def reaches(self, trust: float) -> bool:
        """Whether a memory of this ``trust`` is within the caller's reach."""
        return trust <= self.trust

    def reaches_space(self, key: str) -> bool:
        """Whether the caller's token reaches the space ``key`` (a user's id: their personal space)."""
        return self.spaces is None or key in self.spaces

    @property
    def home(self) -> bool:
        """Whether the caller reaches the personal space of the person making the call."""
        return self.reaches_space(self.person)

    @property
    def person(self) -> str:
        """The user making the call (in a shared space, the member acting there)."""
        return self.actor or self.user

    def in_space(self, key: str) -> Caller:
        """The same person, trust and token acting in the space ``key`` (their own id: their personal space).

        Only the space service calls this, once it has checked the person's role in the space."""
        if not self.reaches_space(key):
            raise ValueError(f"this caller's token does not reach the space {key!r}")
        if not is_space_key(key):
            return replace(self, user=key, actor=None)
        return replace(self, user=key, actor=self.person)


def owner(key: str) -> Caller:
    """The owner of the rows keyed by ``key`` (a user, or a shared space) at full trust, for the maintenance the
    command line runs over a whole database (reindexing): it reads and rebuilds, and acts for no person."""
    return Caller(key, actor=MAINTENANCE if is_space_key(key) else None)
