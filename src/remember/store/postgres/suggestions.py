"""Template suggestion events in PostgreSQL: what was shown to a user and what they applied."""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import errors as pgerrors

from remember.errors import Conflict
from remember.models import SuggestionEvent, SuggestionStats
from remember.store.postgres.connection import Database
from remember.store.postgres.rows import utc

# How often a batch is retried when a concurrent one of the same user took its numbers.
_ATTEMPTS = 20
_APPEND = (
    "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
    "SELECT %s, (SELECT coalesce(max(seq), 0) FROM suggestion_events WHERE user_id = %s) + e.n, "
    "e.template_id, e.event, e.memory_id, e.confidence, e.at "
    "FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::timestamptz[]) "
    "WITH ORDINALITY AS e(template_id, event, memory_id, confidence, at, n)"
)


class SuggestionTables:
    db: Database

    def log_suggestions(self, user_id: str, events: Sequence[SuggestionEvent]) -> None:
        """Append the events numbered on from the user's last, as SQLite does (a collision retries)."""
        if not events:
            return
        columns = (
            [e.template_id for e in events],
            [e.event for e in events],
            [e.memory_id for e in events],
            [e.confidence for e in events],
            [e.at for e in events],
        )
        with self.db.write() as conn:
            for _ in range(_ATTEMPTS):
                try:
                    with conn.transaction():
                        conn.execute(_APPEND, (user_id, user_id, *columns))
                    return
                except pgerrors.UniqueViolation:
                    continue
        raise Conflict(f"Too many suggestion events for {user_id} at once; try again.")

    def suggestion_stats(self, user_id: str) -> dict[str, SuggestionStats]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT e.template_id, count(*) FILTER (WHERE e.event = 'shown'), "
                "count(*) FILTER (WHERE e.event = 'applied'), max(e.at) FILTER (WHERE e.event = 'applied'), "
                "count(*) FILTER (WHERE e.event = 'shown' AND EXISTS (SELECT 1 FROM suggestion_events a "
                "WHERE a.user_id = e.user_id AND a.event = 'applied' AND a.memory_id = e.memory_id "
                "AND a.template_id <> e.template_id)) "
                "FROM suggestion_events e WHERE e.user_id = %s GROUP BY e.template_id",
                (user_id,),
            ).fetchall()
        return {
            tid: SuggestionStats(tid, int(shown), int(applied), utc(last) if last else None, int(ignored))
            for tid, shown, applied, last, ignored in rows
        }
