"""Preferences in PostgreSQL: one row per user and path, and a history of changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from remember.store.postgres.connection import Database
from remember.store.postgres.rows import jsonb


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
            # seq is an identity column: concurrent writers never pick the same one.
            conn.execute(
                "INSERT INTO preference_history (user_id, path, old_value, new_value, reason, at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (user_id, path, jsonb(old_value), jsonb(value), reason, at),
            )
