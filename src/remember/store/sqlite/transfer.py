"""Reading and writing a whole user at once in SQLite, for moving users between databases."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from remember.clock import from_text, to_text
from remember.errors import Conflict
from remember.models import PreferenceChange, SuggestionEvent, TemplateVersion, UserDump
from remember.store.sqlite.connection import Database
from remember.store.sqlite.memories import insert
from remember.store.sqlite.rows import dump, history_params
from remember.store.sqlite.templates import name_key

# When a preference was set is known from its history; a value without history gets this.
_UNKNOWN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
_USER_TABLES = ("memories", "templates", "preferences", "preference_history", "suggestion_events")


class TransferTables:
    db: Database

    def user_ids(self) -> list[str]:
        union = " UNION ".join(f"SELECT DISTINCT user_id FROM {t}" for t in _USER_TABLES)
        with self.db.read() as conn:
            return sorted(r[0] for r in conn.execute(union))

    def preference_history(self, user_id: str) -> list[PreferenceChange]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT path, old_value, new_value, reason, at FROM preference_history WHERE user_id = ? ORDER BY seq",
                (user_id,),
            ).fetchall()
        return [
            PreferenceChange(path, json.loads(old) if old is not None else None, json.loads(new), reason, from_text(at))
            for path, old, new, reason, at in rows
        ]

    def template_versions(self, user_id: str, template_id: str) -> list[TemplateVersion]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT version, definition, at FROM template_versions WHERE user_id = ? AND template_id = ? "
                "ORDER BY at, version",
                (user_id, template_id),
            ).fetchall()
        return [TemplateVersion(v, json.loads(d), from_text(at)) for v, d, at in rows]

    def suggestion_events(self, user_id: str) -> list[SuggestionEvent]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT template_id, event, at, memory_id, confidence FROM suggestion_events "
                "WHERE user_id = ? ORDER BY seq",
                (user_id,),
            ).fetchall()
        return [SuggestionEvent(t, e, from_text(at), m, c) for t, e, at, m, c in rows]

    def restore_user(self, user: UserDump) -> None:
        with self.db.write() as conn:
            _refuse_existing(conn, user.user_id)
            _restore_preferences(conn, user)
            _restore_templates(conn, user)
            for memory, history, index in user.memories:
                insert(conn, memory, index)
                conn.executemany(
                    "INSERT INTO memory_history VALUES (?, ?, ?, ?, ?, ?, ?)", [history_params(h) for h in history]
                )
            conn.executemany(
                "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (user.user_id, i + 1, e.template_id, e.event, e.memory_id, e.confidence, to_text(e.at))
                    for i, e in enumerate(user.suggestion_events)
                ],
            )


def _refuse_existing(conn: sqlite3.Connection, user_id: str) -> None:
    for table in _USER_TABLES:
        if conn.execute(f"SELECT 1 FROM {table} WHERE user_id = ? LIMIT 1", (user_id,)).fetchone():
            raise Conflict(
                f"User {user_id!r} already has data in this database; import into an empty database "
                "or one without this user."
            )


def _restore_preferences(conn: sqlite3.Connection, user: UserDump) -> None:
    latest = {c.path: c.at for c in user.preference_history}
    conn.executemany(
        "INSERT INTO preferences VALUES (?, ?, ?, ?)",
        [
            (user.user_id, path, dump(value), to_text(latest.get(path, _UNKNOWN_TIME)))
            for path, value in user.preferences.items()
        ],
    )
    conn.executemany(
        "INSERT INTO preference_history VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (user.user_id, i + 1, c.path, dump(c.old_value), dump(c.new_value), c.reason, to_text(c.at))
            for i, c in enumerate(user.preference_history)
        ],
    )


def _restore_templates(conn: sqlite3.Connection, user: UserDump) -> None:
    for record, versions in user.templates:
        conn.execute(
            "INSERT INTO templates (user_id, id, name, name_key, version, parent_template_id, definition, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.user_id, record.id, record.name, name_key(record.name), record.version,
                record.parent_template_id, dump(dict(record.definition)), to_text(record.created_at),
                to_text(record.updated_at),
            ),
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO template_versions (user_id, template_id, version, definition, at) VALUES (?, ?, ?, ?, ?)",
            [(record.user_id, record.id, v.version, dump(dict(v.definition)), to_text(v.at)) for v in versions],
        )
