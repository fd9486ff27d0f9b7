"""Preferences: one row per user and path, and a numbered history of changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from remember.models import PreferenceChange
from remember.store.sql.base import Sql
from remember.store.sql.numbering import append_numbered

PREFERENCE_UPSERT = (
    "INSERT INTO preferences (user_id, path, value, updated_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (user_id, path) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
)
HISTORY_INSERT = (
    "INSERT INTO preference_history (user_id, seq, path, old_value, new_value, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class PreferenceTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def get(self, user_id: str) -> dict[str, Any]:
        with self.sql.reading() as s:
            rows = s.all("SELECT path, value FROM preferences WHERE user_id = ?", (user_id,))
        return {path: self.sql.dialect.from_json(value) for path, value in rows}

    def set(self, user_id: str, path: str, value: Any, *, old_value: Any, reason: str | None, at: datetime) -> None:
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.run(PREFERENCE_UPSERT, (user_id, path, d.json(value), d.moment(at)))
            change = (path, d.json(old_value), d.json(value), reason, d.moment(at))
            append_numbered(s, "preference_history", user_id, HISTORY_INSERT, [change], what="preference changes")

    def history(self, user_id: str) -> list[PreferenceChange]:
        """The user's preference changes, oldest first."""
        d = self.sql.dialect
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT path, old_value, new_value, reason, at FROM preference_history WHERE user_id = ? ORDER BY seq",
                (user_id,),
            )
        return [
            PreferenceChange(path, d.from_optional_json(old), d.from_json(new), reason, d.from_moment(at))
            for path, old, new, reason, at in rows
        ]
