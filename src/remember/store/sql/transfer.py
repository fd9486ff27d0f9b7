"""Reading and writing a whole user at once, for moving users between databases.

An import writes into a user who may have data already. What it does with a record whose id
the user has (``OnConflict``) is decided here, in the transaction that writes, by what is stored
then: ``refuse`` inserts (a stored id is a Conflict), ``skip`` leaves the stored record as it is,
``replace`` overwrites it with the imported one, its history included. A preference is a path:
``replace`` sets the imported value, the others keep a stored one. Preference changes and
suggestion events are appended after the user's own, each one the user has already left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from remember.errors import Conflict, StoreError, excerpt
from remember.models import OnConflict, UserDump
from remember.store.sql.base import Sql
from remember.store.sql.dialect import chunks
from remember.store.sql.memories import HISTORY_INSERT, MemoryTables
from remember.store.sql.preferences import HISTORY_INSERT as PREFERENCE_HISTORY_INSERT
from remember.store.sql.rows import TEMPLATE_INSERT, memory_history_params, template_params
from remember.store.sql.session import Session
from remember.store.sql.suggestions import append_events

# When a preference was set is known from its history; a value without history gets this.
_UNKNOWN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
USER_TABLES = ("memories", "templates", "preferences", "preference_history", "suggestion_events")
KEYED_TABLES = ("memories", "templates", "relationships")  # rows with an id of their own
CHUNK = 500


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

    def existing(self, user_id: str, table: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` the user has in ``table`` (memories, the trash included; templates; relationships)."""
        with self.sql.reading() as s:
            return _existing(s, table, user_id, ids)

    def held_by_others(self, user_id: str, table: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` another owner (a user or a space) has in ``table``: an id kept by a move or an import
        into a shared space must name nothing else in the database."""
        with self.sql.reading() as s:
            return _existing(s, table, user_id, ids, others=True)

    def restore(self, user: UserDump, *, on_conflict: OnConflict = "refuse") -> None:
        """Write one part of a user in one transaction (a large user comes in several parts, so that no
        transaction holds the write lock for long); a stored id is met as ``on_conflict`` says."""
        with self._stored_meanwhile(user.user_id), self.sql.writing() as s:
            s.lock_users([user.user_id])
            self._restore_preferences(s, user, on_conflict)
            self._restore_templates(s, user, on_conflict)
            self._restore_memories(s, user, on_conflict)
            self._restore_events(s, user)

    def _restore_preferences(self, s: Session, user: UserDump, on_conflict: OnConflict) -> None:
        d = self.dialect
        latest = {c.path: c.at for c in user.preference_history}
        take = "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
        s.many(
            "INSERT INTO preferences (user_id, path, value, updated_at) VALUES (?, ?, ?, ?) "
            f"ON CONFLICT (user_id, path) {take if on_conflict == 'replace' else 'DO NOTHING'}",
            [
                (user.user_id, path, d.json(value), d.moment(latest.get(path, _UNKNOWN_TIME)))
                for path, value in user.preferences.items()
            ],
        )
        rows = s.all("SELECT path, old_value, new_value, reason, at FROM preference_history WHERE user_id = ?",
                     (user.user_id,))  # fmt: skip
        known = {(p, _same(d.from_json(o) if o is not None else None), _same(d.from_json(n)), r, d.from_moment(a))
                 for p, o, n, r, a in rows}  # fmt: skip
        changes = [
            c for c in user.preference_history
            if (c.path, _same(c.old_value), _same(c.new_value), c.reason, c.at) not in known
        ]  # fmt: skip
        after = _last_seq(s, "preference_history", user.user_id)
        s.many(
            PREFERENCE_HISTORY_INSERT,
            [
                (
                    user.user_id,
                    after + i + 1,
                    c.path,
                    d.json(c.old_value),
                    d.json(c.new_value),
                    c.reason,
                    d.moment(c.at),
                )
                for i, c in enumerate(changes)
            ],
        )

    def _restore_templates(self, s: Session, user: UserDump, on_conflict: OnConflict) -> None:
        d = self.dialect
        stored = _existing(s, "templates", user.user_id, [r.id for r, _ in user.templates])
        for record, versions in user.templates:
            if record.id in stored:
                if on_conflict != "replace":
                    continue
                s.run(
                    "DELETE FROM template_versions WHERE user_id = ? AND template_id = ?", (record.user_id, record.id)
                )
                s.run(
                    "UPDATE templates SET name = ?, name_key = ?, version = ?, parent_template_id = ?, definition = ?, "
                    "created_at = ?, updated_at = ? WHERE user_id = ? AND id = ?",
                    (*template_params(d, record)[2:], record.user_id, record.id),
                )
            else:
                s.run(TEMPLATE_INSERT, template_params(d, record))
            s.many(
                "INSERT INTO template_versions (user_id, template_id, version, definition, at) VALUES (?, ?, ?, ?, ?)",
                [(record.user_id, record.id, v.version, d.json(dict(v.definition)), d.moment(v.at)) for v in versions],
            )

    def _restore_memories(self, s: Session, user: UserDump, on_conflict: OnConflict) -> None:
        d = self.dialect
        stored = set[str]()
        if on_conflict != "refuse":
            stored = _existing(s, "memories", user.user_id, [m.id for m, _, _ in user.memories])
        new = [(m, h, e) for m, h, e in user.memories if m.id not in stored]
        self.memories.insert_rows(s, [(memory, index) for memory, _, index in new])
        written = list(new)
        if on_conflict == "replace":
            for memory, history, index in user.memories:
                if memory.id in stored:
                    s.run("DELETE FROM memory_history WHERE user_id = ? AND memory_id = ?", (memory.user_id, memory.id))
                    self.memories.overwrite_row(s, memory, index)
                    written.append((memory, history, index))
        s.many(HISTORY_INSERT, [memory_history_params(d, h) for _, history, _ in written for h in history])

    def _restore_events(self, s: Session, user: UserDump) -> None:
        d = self.dialect
        rows = s.all("SELECT template_id, event, memory_id, confidence, at FROM suggestion_events WHERE user_id = ?",
                     (user.user_id,))  # fmt: skip
        known = {(t, e, m, c, d.from_moment(a)) for t, e, m, c, a in rows}
        events = [e for e in user.suggestion_events if (e.template_id, e.event, e.memory_id, e.confidence, e.at)
                  not in known]  # fmt: skip
        if events:
            append_events(s, user.user_id, events)

    @contextmanager
    def _stored_meanwhile(self, user_id: str) -> Iterator[None]:
        """A record stored since the import was checked (a key taken, a template's name) is a Conflict."""
        try:
            yield
        except StoreError as exc:
            if isinstance(exc.__cause__, self.dialect.unique_violation):
                raise Conflict(
                    f"Something of user {excerpt(user_id)} the import writes was stored meanwhile under the same id "
                    "(or a template of the same name); nothing of this part was written. Import again: what is "
                    "stored then is checked anew."
                ) from exc
            raise


def _existing(s: Session, table: str, user_id: str, ids: Sequence[str], *, others: bool = False) -> set[str]:
    if table not in KEYED_TABLES:
        raise ValueError(f"{table} has no ids of its own")
    owner = "user_id <> ?" if others else "user_id = ?"
    found: set[str] = set()
    for chunk in chunks(sorted(set(ids)), CHUNK):
        params: list[Any] = [user_id]
        where = s.any_of("id", chunk, params)
        found.update(r[0] for r in s.all(f"SELECT id FROM {table} WHERE {owner} AND {where}", params))
    return found


def _last_seq(s: Session, table: str, user_id: str) -> int:
    return int(s.value(f"SELECT coalesce(max(seq), 0) FROM {table} WHERE user_id = ?", (user_id,)))


def _same(value: Any) -> str:
    """A JSON value as one text, so that two equal values compare equal whatever their key order."""
    return json.dumps(value, sort_keys=True)
