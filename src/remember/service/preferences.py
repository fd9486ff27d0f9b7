"""Preference use-cases: read the effective values, change one with a reason.

A caller below full trust (``remember.caller``) may not change the ``privacy.*`` preferences:
the default trust of new memories decides what such callers can read.
"""

from __future__ import annotations

from remember import preferences as known
from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import AccessDenied, ValidationFailed
from remember.jsontypes import JsonValue
from remember.models import PreferenceChange
from remember.service import checks
from remember.store import PreferenceStore


class PreferenceService:
    def __init__(self, store: PreferenceStore, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock

    def effective(self, caller: Caller) -> dict[str, JsonValue]:
        """Every preference's value for the caller's user, by dot path (defaults filled in)."""
        return known.effective(self.store.get(caller.person))

    def get(self, caller: Caller, category: str | None = None) -> dict[str, dict[str, JsonValue]]:
        """Effective values nested by category, optionally one category only."""
        values = self.effective(caller)
        if category is not None:
            known.check_category(category)
            values = {p: v for p, v in values.items() if p.startswith(category + ".")}
        return known.nest(values)

    def update(self, caller: Caller, path: str, value: JsonValue, *, reason: str | None = None) -> PreferenceChange:
        if not isinstance(path, str):
            raise ValidationFailed.single("preference_path", "type", "preference_path must be a text.", path)
        spec = known.spec_for(path)
        _check_reach(caller, path)
        new_value = known.coerce(spec, value)
        why = checks.reason(reason)
        old_value = self.effective(caller)[path]
        now = self.clock()
        self.store.set(caller.person, path, new_value, old_value=old_value, reason=why, at=now)
        return PreferenceChange(path, old_value, new_value, why, now)


TRUSTED_ONLY = ("privacy.", "spaces.")  # preferences that decide what callers of lower trust may read


def _check_reach(caller: Caller, path: str) -> None:
    """A caller below full trust may not change what lower-trust callers will see: the default trust
    of new memories decides it."""
    if caller.restricted and path.startswith(TRUSTED_ONLY):
        raise AccessDenied(
            f"{path} decides which callers can read new memories: change it with a full-trust token "
            "(one made without --trust-level) or from the command line."
        )
