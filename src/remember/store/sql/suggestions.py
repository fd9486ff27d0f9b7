"""Template suggestion events: what was shown to a user and what they applied."""

from __future__ import annotations

from collections.abc import Sequence

from remember.models import SuggestionEvent, SuggestionStats
from remember.store.sql.base import Sql
from remember.store.sql.numbering import append_numbered

EVENT_INSERT = (
    "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_STATS = (
    "SELECT e.template_id, count(*) FILTER (WHERE e.event = 'shown'), "
    "count(*) FILTER (WHERE e.event = 'applied'), max(e.at) FILTER (WHERE e.event = 'applied'), "
    "count(*) FILTER (WHERE e.event = 'shown' AND EXISTS (SELECT 1 FROM suggestion_events a "
    "WHERE a.user_id = e.user_id AND a.event = 'applied' AND a.memory_id = e.memory_id "
    "AND a.template_id <> e.template_id)) "
    "FROM suggestion_events e WHERE e.user_id = ? GROUP BY e.template_id"
)


class SuggestionTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def log(self, user_id: str, events: Sequence[SuggestionEvent]) -> None:
        """Append the events, numbered on from the user's last."""
        rows = [(e.template_id, e.event, e.memory_id, e.confidence, self.sql.dialect.moment(e.at)) for e in events]
        if not rows:
            return
        with self.sql.writing() as s:
            append_numbered(s, "suggestion_events", user_id, EVENT_INSERT, rows, what="suggestion events")

    def stats(self, user_id: str) -> dict[str, SuggestionStats]:
        with self.sql.reading() as s:
            rows = s.all(_STATS, (user_id,))
        return {
            tid: SuggestionStats(
                tid, int(shown), int(applied), self.sql.dialect.from_optional_moment(last), int(ignored)
            )
            for tid, shown, applied, last, ignored in rows
        }

    def events(self, user_id: str) -> list[SuggestionEvent]:
        """The user's suggestion record, oldest first."""
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT template_id, event, at, memory_id, confidence FROM suggestion_events "
                "WHERE user_id = ? ORDER BY seq",
                (user_id,),
            )
        return [SuggestionEvent(t, e, self.sql.dialect.from_moment(at), m, c) for t, e, at, m, c in rows]
