"""Preferences in PostgreSQL: one row per user and path, and a history of changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import errors as pgerrors

from remember.errors import Conflict
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.rows import jsonb

# How often a history row is retried when a concurrent change of the same user took its number.
_ATTEMPTS = 20


class PreferenceTables:
    db: Database

    def get_preferences(self, user_id: str) -> dict[str, Any]:
        with self.db.read() as conn:
            rows = conn.execute("SELECT path, value FROM preferences WHERE user_id = %s", (user_id,)).fetchall()
        return dict(rows)

    def set_preference(
        self, user_id: str, path: str, value: Any, *, old_value: Any, reason: str | None, at: datetime
    ) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO preferences (user_id, path, value, updated_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (user_id, path) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (user_id, path, jsonb(value), at),
            )
            _append_history(conn, (user_id, path, jsonb(old_value), jsonb(value), reason, at))


def _append_history(conn: Connection, row: tuple[Any, ...]) -> None:
    """Number the change 1, 2, 3... per user, as SQLite does.

    Two concurrent changes of one user may read the same last number; the primary
    key lets one in and the other retries (in a savepoint) with the next. No
    sequence and no lock outside the row, so the table shards by user as it is.
    """
    for _ in range(_ATTEMPTS):
        try:
            with conn.transaction():
                seq = conn.execute(
                    "SELECT coalesce(max(seq), 0) + 1 FROM preference_history WHERE user_id = %s", (row[0],)
                ).fetchone()
                conn.execute(
                    "INSERT INTO preference_history (user_id, seq, path, old_value, new_value, reason, at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (row[0], seq[0] if seq else 1, *row[1:]),
                )
            return
        except pgerrors.UniqueViolation:
            continue
    raise Conflict(f"Too many preference changes for {row[0]} at once; try again.")
