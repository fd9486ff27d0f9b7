"""Template suggestion events: what was shown to a user and what they applied, and their totals per template."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from remember.models import SuggestionEvent, SuggestionStats
from remember.store.sql import suggestion_totals as totals
from remember.store.sql.base import Sql
from remember.store.sql.numbering import append_numbered
from remember.store.sql.session import Session

EVENT_INSERT = (
    "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SuggestionTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def log(self, user_id: str, events: Sequence[SuggestionEvent]) -> None:
        """Append the events, numbered on from the user's last."""
        if not events:
            return
        with self.sql.writing() as s:
            append_events(s, user_id, events)

    def stats(self, user_id: str) -> dict[str, SuggestionStats]:
        with self.sql.reading() as s:
            return totals.read(s, user_id)

    def events(self, user_id: str) -> list[SuggestionEvent]:
        """The user's suggestion record, oldest first."""
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT template_id, event, at, memory_id, confidence FROM suggestion_events "
                "WHERE user_id = ? ORDER BY seq",
                (user_id,),
            )
        return [SuggestionEvent(t, e, self.sql.dialect.from_moment(at), m, c) for t, e, at, m, c in rows]


def append_events(s: Session, user_id: str, events: Sequence[SuggestionEvent]) -> None:
    """Append the events after the user's last, and move the user's totals by them, in the open transaction
    (under the user's lock, so that no other writer of the user's record counts the same memories meanwhile)."""
    s.lock_users([user_id])
    memory_ids = sorted({e.memory_id for e in events if e.memory_id is not None})
    before = totals.ignored_of(s, user_id, memory_ids)
    rows = [(e.template_id, e.event, e.memory_id, e.confidence, s.dialect.moment(e.at)) for e in events]
    append_numbered(s, "suggestion_events", user_id, EVENT_INSERT, rows, what="suggestion events")
    after = totals.ignored_of(s, user_id, memory_ids)
    totals.add(s, user_id, events, Counter({t: n - before[t] for t, n in after.items()}))
