"""Reading and writing a whole user at once in PostgreSQL, for moving users between databases."""

from __future__ import annotations

from datetime import UTC, datetime

from remember.errors import Conflict
from remember.models import PreferenceChange, SuggestionEvent, TemplateVersion, UserDump
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.memories import insert
from remember.store.postgres.rows import HISTORY_COLUMNS, history_params, jsonb, utc
from remember.store.postgres.search import lock_users
from remember.store.postgres.templates import name_key

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
                "SELECT path, old_value, new_value, reason, at FROM preference_history WHERE user_id = %s ORDER BY seq",
                (user_id,),
            ).fetchall()
        return [PreferenceChange(path, old, new, reason, utc(at)) for path, old, new, reason, at in rows]

    def template_versions(self, user_id: str, template_id: str) -> list[TemplateVersion]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT version, definition, at FROM template_versions WHERE user_id = %s AND template_id = %s "
                "ORDER BY at, version",
                (user_id, template_id),
            ).fetchall()
        return [TemplateVersion(v, d, utc(at)) for v, d, at in rows]

    def suggestion_events(self, user_id: str) -> list[SuggestionEvent]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT template_id, event, at, memory_id, confidence FROM suggestion_events "
                "WHERE user_id = %s ORDER BY seq",
                (user_id,),
            ).fetchall()
        return [SuggestionEvent(t, e, utc(at), m, c) for t, e, at, m, c in rows]

    def restore_user(self, user: UserDump) -> None:
        with self.db.write() as conn:
            lock_users(conn, [user.user_id])
            _refuse_existing(conn, user.user_id)
            _restore_preferences(conn, user)
            _restore_templates(conn, user)
            for memory, history, index in user.memories:
                insert(conn, memory, index)
                if history:
                    with conn.cursor() as cur:
                        cur.executemany(
                            f"INSERT INTO memory_history ({HISTORY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                            [history_params(h) for h in history],
                        )
            if user.suggestion_events:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO suggestion_events (user_id, seq, template_id, event, memory_id, confidence, at) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        [
                            (user.user_id, i + 1, e.template_id, e.event, e.memory_id, e.confidence, e.at)
                            for i, e in enumerate(user.suggestion_events)
                        ],
                    )


def _refuse_existing(conn: Connection, user_id: str) -> None:
    for table in _USER_TABLES:
        if conn.execute(f"SELECT 1 FROM {table} WHERE user_id = %s LIMIT 1", (user_id,)).fetchone():
            raise Conflict(
                f"User {user_id!r} already has data in this database; import into an empty database "
                "or one without this user."
            )


def _restore_preferences(conn: Connection, user: UserDump) -> None:
    latest = {c.path: c.at for c in user.preference_history}
    with conn.cursor() as cur:
        if user.preferences:
            cur.executemany(
                "INSERT INTO preferences (user_id, path, value, updated_at) VALUES (%s, %s, %s, %s)",
                [
                    (user.user_id, path, jsonb(value), latest.get(path, _UNKNOWN_TIME))
                    for path, value in user.preferences.items()
                ],
            )
        if user.preference_history:
            cur.executemany(
                "INSERT INTO preference_history (user_id, seq, path, old_value, new_value, reason, at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [
                    (user.user_id, i + 1, c.path, jsonb(c.old_value), jsonb(c.new_value), c.reason, c.at)
                    for i, c in enumerate(user.preference_history)
                ],
            )


def _restore_templates(conn: Connection, user: UserDump) -> None:
    with conn.cursor() as cur:
        for record, versions in user.templates:
            cur.execute(
                "INSERT INTO templates (user_id, id, name, name_key, version, parent_template_id, definition, "
                "created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    record.user_id, record.id, record.name, name_key(record.name), record.version,
                    record.parent_template_id, jsonb(dict(record.definition)), record.created_at, record.updated_at,
                ),
            )  # fmt: skip
            if versions:
                cur.executemany(
                    "INSERT INTO template_versions (user_id, template_id, version, definition, at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [(record.user_id, record.id, v.version, jsonb(dict(v.definition)), v.at) for v in versions],
                )
