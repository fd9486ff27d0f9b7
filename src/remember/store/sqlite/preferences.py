"""Preferences in SQLite: one row per user and path, and a history of changes."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from remember.clock import to_text
from remember.store.sqlite.connection import Database
from remember.store.sqlite.rows import dump


class PreferenceTables:
    db: Database

    def get_preferences(self, user_id: str) -> dict[str, Any]:
        with self.db.read() as conn:
            rows = conn.execute("SELECT path, value FROM preferences WHERE user_id = ?", (user_id,)).fetchall()
        return {path: json.loads(value) for path, value in rows}

    def set_preference(
        self, user_id: str, path: str, value: Any, *, old_value: Any, reason: str | None, at: datetime
    ) -> None:
        with self.db.write() as conn:
            conn.execute("REPLACE INTO preferences VALUES (?, ?, ?, ?)", (user_id, path, dump(value), to_text(at)))
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM preference_history WHERE user_id = ?", (user_id,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO preference_history VALUES (?, ?, ?, ?, ?, ?, ?)",
                (user_id, seq, path, dump(old_value), dump(value), reason, to_text(at)),
            )
