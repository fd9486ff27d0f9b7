"""Reading and writing a whole user at once, for moving users between databases."""

from __future__ import annotations

from datetime import UTC, datetime

from remember.errors import Conflict, excerpt
from remember.models import UserDump
from remember.store.sql.base import Sql
from remember.store.sql.memories import HISTORY_INSERT, MemoryTables
from remember.store.sql.preferences import HISTORY_INSERT as PREFERENCE_HISTORY_INSERT
from remember.store.sql.rows import TEMPLATE_INSERT, history_params, template_params
from remember.store.sql.session import Session
from remember.store.sql.suggestions import EVENT_INSERT

# When a preference was set is known from its history; a value without history gets this.
_UNKNOWN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
USER_TABLES = ("memories", "templates", "preferences", "preference_history", "suggestion_events")


class TransferTables:
    """Whole users at once, for moving them between databases."""

    def __init__(self, sql: Sql, memories: MemoryTables) -> None:
        self.sql = sql
        self.dialect = sql.dialect
        self.memories = memories

    def user_ids(self) -> list[str]:
        """Every user with anything stored, sorted."""
        union = " UNION ".join(f"SELECT DISTINCT user_id FROM {t}" for t in USER_TABLES)
        with self.sql.reading() as s:
            return sorted(r[0] for r in s.all(union))

    def restore(self, user: UserDump, *, first: bool = True) -> None:
        """Write one part of a user in one transaction.

        The ``first`` part finds the user with nothing stored (else Conflict); a
        large user comes in several parts, so that no transaction holds the write
        lock for long.
        """
        d = self.dialect
        with self.sql.writing() as s:
            s.lock_users([user.user_id])
            if first:
                _refuse_existing(s, user.user_id)
            self._restore_preferences(s, user)
            self._restore_templates(s, user)
            self.memories.insert_rows(s, [(memory, index) for memory, _, index in user.memories])
            s.many(HISTORY_INSERT, [history_params(d, h) for _, history, _ in user.memories for h in history])
            s.many(
                EVENT_INSERT,
                [
                    (user.user_id, i + 1, e.template_id, e.event, e.memory_id, e.confidence, d.moment(e.at))
                    for i, e in enumerate(user.suggestion_events)
                ],
            )

    def _restore_preferences(self, s: Session, user: UserDump) -> None:
        d = self.dialect
        latest = {c.path: c.at for c in user.preference_history}
        s.many(
            "INSERT INTO preferences (user_id, path, value, updated_at) VALUES (?, ?, ?, ?)",
            [
                (user.user_id, path, d.json(value), d.moment(latest.get(path, _UNKNOWN_TIME)))
                for path, value in user.preferences.items()
            ],
        )
        s.many(
            PREFERENCE_HISTORY_INSERT,
            [
                (user.user_id, i + 1, c.path, d.json(c.old_value), d.json(c.new_value), c.reason, d.moment(c.at))
                for i, c in enumerate(user.preference_history)
            ],
        )

    def _restore_templates(self, s: Session, user: UserDump) -> None:
        d = self.dialect
        for record, versions in user.templates:
            s.run(TEMPLATE_INSERT, template_params(d, record))
            s.many(
                "INSERT INTO template_versions (user_id, template_id, version, definition, at) VALUES (?, ?, ?, ?, ?)",
                [(record.user_id, record.id, v.version, d.json(dict(v.definition)), d.moment(v.at)) for v in versions],
            )


def _refuse_existing(s: Session, user_id: str) -> None:
    for table in USER_TABLES:
        if s.one(f"SELECT 1 FROM {table} WHERE user_id = ? LIMIT 1", (user_id,)):
            raise Conflict(
                f"User {excerpt(user_id)} already has data in this database; import into an empty database "
                "or one without this user."
            )
