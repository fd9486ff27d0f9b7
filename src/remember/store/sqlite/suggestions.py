"""Template suggestion events in SQLite: what was shown to a user and what they applied."""

from __future__ import annotations

from collections.abc import Sequence

from remember.clock import from_text, to_text
from remember.models import SuggestionEvent, SuggestionStats
from remember.store.sqlite.connection import Database


class SuggestionTables:
    db: Database

    def log_suggestions(self, user_id: str, events: Sequence[SuggestionEvent]) -> None:
        if not events:
            return
        with self.db.write() as conn:
            start = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM suggestion_events WHERE user_id = ?", (user_id,)
            ).fetchone()[0]
            conn.executemany(
                "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (user_id, start + i + 1, e.template_id, e.event, e.memory_id, e.confidence, to_text(e.at))
                    for i, e in enumerate(events)
                ],
            )

    def suggestion_stats(self, user_id: str) -> dict[str, SuggestionStats]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT e.template_id, sum(e.event = 'shown'), sum(e.event = 'applied'), "
                "max(CASE WHEN e.event = 'applied' THEN e.at END), "
                "sum(e.event = 'shown' AND EXISTS (SELECT 1 FROM suggestion_events a WHERE a.user_id = e.user_id "
                "AND a.event = 'applied' AND a.memory_id = e.memory_id AND a.template_id != e.template_id)) "
                "FROM suggestion_events e WHERE e.user_id = ? GROUP BY e.template_id",
                (user_id,),
            ).fetchall()
        return {
            tid: SuggestionStats(tid, int(shown), int(applied), from_text(last) if last else None, int(ignored))
            for tid, shown, applied, last, ignored in rows
        }
