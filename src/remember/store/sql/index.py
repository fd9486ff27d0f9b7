"""What both backends' search indexes share: their settings, rebuilding entries, term statistics."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remember.filters import Filter
from remember.models import IMPLICIT_GAP, DeletedMode, IndexEntry, Memory, conversation_of
from remember.store.sql.base import IN_TRASH, Database, SqlBase
from remember.store.sql.dialect import Dialect
from remember.store.sql.session import Session
from remember.store.sql.terms import TermStatistics

SETTING_UPSERT = (
    "INSERT INTO index_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


class IndexTables(SqlBase):
    """What both engines' search indexes share; an engine's constructor starts here."""

    def __init__(self, db: Database, dialect: Dialect, keyword_index_min: int | None) -> None:
        self.db = db
        self.dialect = dialect
        self.keyword_index_min = keyword_index_min  # users from this size get a ranked keyword index
        self.term_stats = TermStatistics()

    def index_settings(self) -> dict[str, str]:
        """What the stored vectors were made with (``embedding_model``, ``embedding_dimension``)."""
        with self.reading() as s:
            return {str(k): str(v) for k, v in s.all("SELECT key, value FROM index_settings")}

    def set_index_settings(self, settings: dict[str, str]) -> None:
        with self.writing() as s:
            s.many(SETTING_UPSERT, list(settings.items()))
            self.index_settings_written(s)

    def write_index_entries(self, batch: Sequence[tuple[Memory, IndexEntry]]) -> list[Memory]:
        """(Re)index stored memories in one transaction (used to rebuild the index).

        An entry is written only if its memory is still at the version it was made
        from: a memory changed (or purged) since was indexed by that change, which
        is newer. Those memories are returned, to be read and indexed again.
        """
        stale: list[Memory] = []
        with self.writing() as s:
            s.lock_users(m.user_id for m, _ in batch)
            for memory, entry in batch:
                if self._stored_version(s, memory) != memory.version:
                    stale.append(memory)
                    continue
                self.write_index(s, memory, entry)
        return stale

    def _stored_version(self, s: Session, memory: Memory) -> int | None:
        found = s.value(
            f"SELECT version FROM memories WHERE user_id = ? AND id = ?{self.dialect.for_update}",
            (memory.user_id, memory.id),
        )
        return None if found is None else int(found)

    def passing_ids(self, user_id: str, memory_ids: Sequence[str], filter: Filter, deleted: DeletedMode) -> set[str]:
        """Which of these of the user's memories pass ``filter`` in the ``deleted`` mode (each memory's own
        rows looked up: a check of a search's candidates, however many memories pass overall)."""
        return self._passing_through(self.db, user_id, memory_ids, filter, deleted)

    def _passing_through(
        self, db: Database, user_id: str, memory_ids: Sequence[str], filter: Filter, deleted: DeletedMode
    ) -> set[str]:
        """``passing_ids``, read through ``db`` (a connection of the search's other side)."""
        if not memory_ids:
            return set()
        params: list[Any] = [user_id]
        among = self.dialect.any_of("m.id", memory_ids, params)
        head = self.dialect.statement(
            f"SELECT m.id FROM memories m WHERE m.user_id = ? AND {among} AND {IN_TRASH[deleted]} AND "
        )
        condition = self._row_filter(filter, user_id, params)  # in the backend's own parameter style
        with db.read() as raw:
            return {str(row[0]) for row in raw.execute(head + condition, params).fetchall()}

    def _row_filter(self, filter: Filter, user_id: str, params: list[Any]) -> str:
        """``filter`` as SQL over the memory ``m``, checked memory by memory; appends its parameters."""
        raise NotImplementedError

    def adjacent(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Per memory: the memories just before and just after it in its conversation (implicit or not)."""
        out: dict[str, list[str]] = {i: [] for i in memory_ids}
        if not memory_ids:
            return out
        with self.reading() as s:
            params: list[Any] = [user_id]
            where = s.any_of("memory_id", list(memory_ids), params)
            rows = s.all(f"SELECT memory_id, context_of FROM memory_index WHERE user_id = ? AND {where}", params)
            out.update({str(m): [str(p)] for m, p in rows if p is not None})
            params = [user_id]
            where = s.any_of("context_of", list(memory_ids), params)
            for before, after in s.all(
                f"SELECT context_of, memory_id FROM memory_index WHERE user_id = ? AND {where}", params
            ):
                out[str(before)].append(str(after))
        return out

    def text_lengths(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """The length in characters of the text of each of these of the user's memories (the fusion
        weighs a long text's keyword score down)."""
        if not memory_ids:
            return {}
        with self.reading() as s:
            params: list[Any] = [user_id]
            where = s.any_of("id", list(memory_ids), params)
            rows = s.all(f"SELECT id, length(content) FROM memories WHERE user_id = ? AND {where}", params)
        return {str(i): int(n) for i, n in rows}

    def index_settings_written(self, s: Session) -> None:
        """The index settings changed in this transaction (a backend may build an index for them)."""


def previous_in_conversation(s: Session, memory: Memory) -> str | None:
    """The memory whose text is this one's context: the one indexed before it in its conversation.

    A memory re-indexed in the same conversation keeps the predecessor it had.
    """
    conversation = conversation_of(memory)
    existing = s.one(
        "SELECT conversation_id, context_of FROM memory_index WHERE user_id = ? AND memory_id = ?",
        (memory.user_id, memory.id),
    )
    if existing is not None and existing[0] == conversation:
        return None if existing[1] is None else str(existing[1])
    return previous_of_new(s, [memory])[0]  # its conversation is new to it: as if it were new


def previous_of_new(s: Session, memories: Sequence[Memory]) -> list[str | None]:
    """``previous_in_conversation`` of each of these memories, new to the index and indexed in this
    order: a memory's predecessor is the one before it here in its conversation, else the database's."""
    last: dict[tuple[str, str | None], tuple[str, datetime] | None] = {}
    out: list[str | None] = []
    for memory in memories:
        key = (memory.user_id, conversation_of(memory))
        if key not in last:
            last[key] = _last_indexed(s, memory.user_id, key[1])
        before = last[key]
        near = before is not None and (key[1] is not None or abs(before[1] - memory.occurred_at) <= IMPLICIT_GAP)
        out.append(before[0] if before is not None and near else None)
        last[key] = (memory.id, memory.occurred_at)
    return out


def _last_indexed(s: Session, user_id: str, conversation: str | None) -> tuple[str, datetime] | None:
    """The user's memory indexed last in ``conversation`` (None: among those without one), and when it happened."""
    same = "= ?" if conversation is not None else "IS NULL"  # IS NOT DISTINCT FROM would use no index
    last = s.one(
        f"SELECT memory_id FROM memory_index WHERE user_id = ? AND conversation_id {same} "
        "ORDER BY conversation_id DESC, seq DESC LIMIT 1",
        (user_id, conversation) if conversation is not None else (user_id,),
    )
    if last is None:
        return None
    # Read by its key on its own: joined, SQLite planned by statistics taken when the table was small scans
    # every memory for it (minutes a thousand memories past ~76,000).
    found = s.one("SELECT occurred_at FROM memories WHERE user_id = ? AND id = ?", (user_id, last[0]))
    return None if found is None else (str(last[0]), s.dialect.from_moment(found[0]))
