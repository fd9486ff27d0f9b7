"""Memories: rows, tags, history, access counts, and the memories of templates.

A memory's search index entry is written in the transaction that writes the
memory, by the backend's search engine (``IndexHooks``), so that the two never
disagree; pages of memories are read through the engine too (``Listing``: the
filters render per backend).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from remember.errors import Conflict, StoreError, excerpt
from remember.models import HistoryEntry, IndexEntry, Memory, MemoryChange, MemoryQuery, Page
from remember.store.sql.base import Sql
from remember.store.sql.dialect import Dialect, chunks
from remember.store.sql.fingerprint import content_hash
from remember.store.sql.prefixes import ids_with_prefix
from remember.store.sql.relationship_rows import drop_lonely, unlink_purged
from remember.store.sql.rows import (
    HISTORY_COLUMNS,
    MEMORY_ASSIGNMENTS,
    MEMORY_COLUMN_NAMES,
    MEMORY_COLUMNS,
    MEMORY_PLACEHOLDERS,
    history_from_row,
    memory_from_row,
    memory_history_params,
    memory_params,
)
from remember.store.sql.session import Row, Session, check_version

SORT_COLUMNS = frozenset({"created_at", "updated_at", "weight", "occurred_at"})
CHUNK = 500  # ids bound in one statement
_CREATED, _ID = MEMORY_COLUMN_NAMES.index("created_at"), MEMORY_COLUMN_NAMES.index("id")
TWINS = 20  # memories of one text compared with a new one (a text stored more often is rare)
Repeat = Callable[[Memory, Memory], bool]
HISTORY_INSERT = f"INSERT INTO memory_history ({HISTORY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"


class IndexHooks(Protocol):
    """Where a backend's search engine joins the transaction that writes a memory."""

    def write_index(self, s: Session, memory: Memory, entry: IndexEntry) -> None:
        """(Re)index one memory."""

    def write_new_index(self, s: Session, batch: Sequence[tuple[Memory, IndexEntry]]) -> None:
        """Index memories inserted in this transaction, in this order."""

    def touch_index(self, s: Session, memory: Memory) -> None:
        """A memory changed without a new index entry (soft delete, restore, compliance)."""

    def forget_index(self, s: Session, user_id: str, memory_id: str) -> None:
        """A memory is about to be purged."""

    def write_fields(self, s: Session, memory: Memory) -> None:
        """A memory's structured content was written (a backend may keep a value index of it)."""

    def bulk_written(self, count: int) -> None:
        """``count`` memories were just inserted at once (a backend may refresh its planner's statistics)."""


class Listing(Protocol):
    """Pages of a user's memories, the filter rendered in the backend's SQL."""

    def list_memories(self, user_id: str, query: MemoryQuery) -> Page: ...

    def list_memories_after(self, user_id: str, query: MemoryQuery) -> list[Memory]: ...


class MemoryEngine(IndexHooks, Listing, Protocol):
    """What the memories part needs of a backend's search engine."""


class MemoryTables:
    """A user's memories: written with their tags, history and index entry; read, listed, purged."""

    def __init__(self, sql: Sql, engine: MemoryEngine) -> None:
        self.sql = sql
        self.dialect = sql.dialect
        self.engine = engine

    def insert(self, memory: Memory, index: IndexEntry | None = None) -> None:
        self.insert_many([(memory, index)])

    def insert_many(self, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        """Insert many memories (and their index entries) in one transaction: all or none."""
        if not batch:
            return
        try:
            with self.sql.writing() as s:
                s.lock_users(m.user_id for m, index in batch if index is not None)
                self.insert_rows(s, batch)
        except StoreError as exc:
            if isinstance(exc.__cause__, self.dialect.unique_violation):
                which = f"Memory {batch[0][0].id}" if len(batch) == 1 else "One of these memories"
                raise StoreError(f"{which} already exists; give the new memory another id.") from exc
            raise
        self.engine.bulk_written(len(batch))

    def page(self, user_id: str, query: MemoryQuery) -> Page:
        """One page of the user's memories matching ``query``, and the total."""
        return self.engine.list_memories(user_id, query)

    def page_after(self, user_id: str, query: MemoryQuery) -> list[Memory]:
        """Up to ``query.limit`` memories matching ``query`` after ``query.after`` in its order (a keyset page)."""
        return self.engine.list_memories_after(user_id, query)

    def insert_new(
        self, batch: Sequence[tuple[Memory, IndexEntry | None]], *, max_trust: float, repeat: Repeat
    ) -> list[Memory | None]:
        """Insert each memory unless it repeats a live memory of its user: one with the same
        normalised text, trust at most ``max_trust``, and ``repeat(stored, new)`` true. Per memory,
        the memory it repeats (nothing written) or None (inserted).

        One transaction under the users' locks: two identical creates at once store one memory,
        and a memory earlier in the batch counts.
        """
        found: list[Memory | None] = []
        with self.sql.writing() as s:
            s.lock_users(sorted({m.user_id for m, _ in batch}))
            for memory, index in batch:
                twins = self._twins(s, memory.user_id, content_hash(memory.content), max_trust)
                repeated = next((t for t in twins if repeat(t, memory)), None)
                if repeated is None:
                    self.insert_row(s, memory, index)
                found.append(repeated)
        return found

    def by_text(self, user_id: str, texts: Sequence[str], *, max_trust: float) -> dict[str, list[Memory]]:
        """Of these texts, the ones live memories of the user already hold (same normalised text):
        text -> those memories, oldest first (at most TWINS each)."""
        by_hash: dict[str, list[str]] = {}
        for text in texts:
            by_hash.setdefault(content_hash(text), []).append(text)
        out: dict[str, list[Memory]] = {}
        with self.sql.reading() as s:
            for chunk in chunks(sorted(by_hash), CHUNK):
                params: list[object] = [user_id, max_trust]
                where = s.any_of("content_hash", chunk, params)
                rows = s.all(
                    f"SELECT {MEMORY_COLUMNS}, content_hash FROM memories WHERE user_id = ? AND deleted_at IS NULL "
                    f"AND trust <= ? AND {where}",
                    params,
                )
                for row in _oldest_first(rows):
                    for text in by_hash[row[-1]]:
                        found = out.setdefault(text, [])
                        if len(found) < TWINS:
                            found.append(memory_from_row(self.dialect, row[:-1]))
        return out

    def _twins(self, s: Session, user_id: str, key: str, max_trust: float) -> list[Memory]:
        rows = s.all(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND content_hash = ? AND deleted_at IS NULL "
            "AND trust <= ?",
            (user_id, key, max_trust),
        )
        return [memory_from_row(self.dialect, r) for r in _oldest_first(rows)[:TWINS]]

    def get(self, user_id: str, memory_id: str) -> Memory | None:
        with self.sql.reading() as s:
            row = s.one(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id))
        return memory_from_row(self.dialect, row) if row else None

    def same_identity(self, user_id: str, template_id: str, key: str, *, max_trust: float) -> list[Memory]:
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND template_id = ? AND identity_key = ? "
                "AND deleted_at IS NULL AND valid_until IS NULL AND trust <= ?",
                (user_id, template_id, key, max_trust),
            )
        return [memory_from_row(self.dialect, r) for r in _oldest_first(rows)]

    def link_successors(self, user_id: str, pairs: Sequence[tuple[str, str]]) -> int:
        """Record that each (successor, predecessor) of ``pairs`` replaced the other, as an export said: the
        predecessor's ``superseded_by`` where it names none, and the predecessor among the successor's
        ``supersedes``. The versions stay (nothing the user changed). How many links were added."""
        added = 0
        with self.sql.writing() as s:
            for successor, old in pairs:
                row = s.one("SELECT supersedes FROM memories WHERE user_id = ? AND id = ?", (user_id, successor))
                if row is None:
                    continue
                replaced = self.dialect.from_texts(row[0])
                if old not in replaced:
                    s.run(
                        "UPDATE memories SET supersedes = ? WHERE user_id = ? AND id = ?",
                        (self.dialect.texts([*replaced, old]), user_id, successor),
                    )
                    added += 1
                s.run(
                    "UPDATE memories SET superseded_by = ? WHERE user_id = ? AND id = ? AND superseded_by IS NULL",
                    (successor, user_id, old),
                )
        return added

    def has_ended(self, user_id: str) -> bool:
        with self.sql.reading() as s:
            row = s.one("SELECT 1 FROM memories WHERE user_id = ? AND valid_until IS NOT NULL LIMIT 1", (user_id,))
        return row is not None

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int, max_trust: float) -> list[str]:
        """Up to ``limit`` ids of the user's memories (in the trash too) of trust at most ``max_trust`` that
        start with ``prefix``, in id order."""
        with self.sql.reading() as s:
            return ids_with_prefix(s, "memories", user_id, prefix, limit, where="r.trust <= ?", params=[max_trust])

    def get_many(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids (in no particular order); unknown ids are skipped."""
        found: list[Memory] = []
        with self.sql.reading() as s:
            for chunk in chunks(memory_ids, CHUNK):
                params: list[object] = [user_id]
                where = s.any_of("id", chunk, params)
                rows = s.all(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND {where}", params)
                found += [memory_from_row(self.dialect, r) for r in rows]
        return found

    def replace(
        self, memory: Memory, *, expected_version: int, history: HistoryEntry, index: IndexEntry | None = None
    ) -> None:
        with self.sql.writing() as s:
            self.write_change(s, MemoryChange(memory, expected_version, history), index)

    def purge(self, user_id: str, memory_id: str) -> bool:
        with self.sql.writing() as s:
            s.lock_users([user_id])
            self.engine.forget_index(s, user_id, memory_id)
            linked = unlink_purged(s, user_id, memory_id)
            gone = int(s.run("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)).rowcount) > 0
            drop_lonely(s, user_id, linked)  # a link needs two members
            return gone

    def move(self, source: str, moved: Memory, *, expected_version: int, history: Sequence[HistoryEntry],
             index: IndexEntry) -> None:  # fmt: skip
        """Move a memory from the owner ``source`` to ``moved.user_id`` with all of its ``history`` (rekeyed to
        it), in one transaction: refused (Conflict) if it changed meanwhile or belongs to a relationship."""
        with self.sql.writing() as s:
            s.lock_users(sorted({source, moved.user_id}))
            check_version(s, "memories", "Memory", source, moved.id, expected_version)
            if unlink_purged(s, source, moved.id):
                raise Conflict(f"Memory {moved.id} belongs to a relationship now: it stays where it is.")
            self.engine.forget_index(s, source, moved.id)
            s.run("DELETE FROM memories WHERE user_id = ? AND id = ?", (source, moved.id))
            self.insert_row(s, moved, index)
            s.many(HISTORY_INSERT, [memory_history_params(self.dialect, h) for h in history])

    def add_history(self, entry: HistoryEntry) -> None:
        """Add an entry that changes nothing of the memory (where a copy came from)."""
        with self.sql.writing() as s:
            s.run(HISTORY_INSERT, memory_history_params(self.dialect, entry))

    def history(self, user_id: str, memory_id: str) -> list[HistoryEntry]:
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {HISTORY_COLUMNS} FROM memory_history WHERE user_id = ? AND memory_id = ? "
                "ORDER BY version DESC",
                (user_id, memory_id),
            )
        return [history_from_row(self.dialect, r) for r in rows]

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        if not memory_ids:
            return
        ids = sorted(set(memory_ids))
        with self.sql.writing() as s:
            for chunk in chunks(ids, CHUNK):
                params: list[object] = [user_id]
                where = s.any_of("id", chunk, params)
                # Rows locked in id order first: two overlapping calls cannot deadlock.
                s.run(
                    f"SELECT id FROM memories WHERE user_id = ? AND {where} ORDER BY id{self.dialect.for_update}",
                    params,
                )
                s.run(
                    f"UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
                    f"WHERE user_id = ? AND {where}",
                    [self.dialect.moment(at), *params],
                )

    def of_templates(self, user_id: str, template_ids: Sequence[str], *, include_deleted: bool) -> list[Memory]:
        """The user's memories made with any of these templates, oldest first."""
        if not template_ids:
            return []
        params: list[object] = [user_id]
        where = self.dialect.any_of("template_id", template_ids, params)
        deleted = "" if include_deleted else " AND deleted_at IS NULL"
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND {where}{deleted} ORDER BY created_at, id",
                params,
            )
        return [memory_from_row(self.dialect, r) for r in rows]

    def count(self) -> int:
        with self.sql.reading() as s:
            return int(s.value("SELECT count(*) FROM memories") or 0)

    def ids_page(self, after: tuple[str, str] | None, limit: int) -> list[tuple[str, str]]:
        """(user_id, memory_id) of every memory, all users, in key order: for reindexing."""
        with self.sql.reading() as s:
            if after is None:
                rows = s.all("SELECT user_id, id FROM memories ORDER BY user_id, id LIMIT ?", (limit,))
            else:
                rows = s.all(
                    "SELECT user_id, id FROM memories WHERE (user_id, id) > (?, ?) ORDER BY user_id, id LIMIT ?",
                    (*after, limit),
                )
        return [(r[0], r[1]) for r in rows]

    # inside a transaction (also used by templates and transfer)

    def insert_row(self, s: Session, memory: Memory, index: IndexEntry | None) -> None:
        """Insert one memory, its tags and its index entry (the caller holds the user's index lock)."""
        s.run(
            f"INSERT INTO memories ({MEMORY_COLUMNS}, content_hash) VALUES ({MEMORY_PLACEHOLDERS}, ?)",
            (*memory_params(self.dialect, memory), content_hash(memory.content)),
        )
        _write_tags(s, memory)
        self.engine.write_fields(s, memory)
        if index is not None:
            self.engine.write_index(s, memory, index)

    def insert_rows(self, s: Session, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        """Insert new memories, their tags and index entries, a statement per table where the backend
        can send them together (the caller holds the users' index locks)."""
        d = self.dialect
        s.many(
            f"INSERT INTO memories ({MEMORY_COLUMNS}, content_hash) VALUES ({MEMORY_PLACEHOLDERS}, ?)",
            [(*memory_params(d, m), content_hash(m.content)) for m, _ in batch],
        )
        s.many(
            "INSERT INTO memory_tags (user_id, memory_id, tag) VALUES (?, ?, ?)",
            [(m.user_id, m.id, tag) for m, _ in batch for tag in m.tags],
        )
        for memory, _ in batch:
            self.engine.write_fields(s, memory)
        self.engine.write_new_index(s, [(m, index) for m, index in batch if index is not None])

    def write_change(self, s: Session, change: MemoryChange, index: IndexEntry | None = None) -> None:
        """Write a memory's new state and its history entry, if it is still at the expected version.

        With ``index`` the memory is re-indexed; without, its index only learns that it changed.
        """
        memory = change.memory
        # The user's index lock first, then the row: every index writer takes them in this order.
        s.lock_users([memory.user_id])
        check_version(s, "memories", "Memory", memory.user_id, memory.id, change.expected_version)
        s.run(HISTORY_INSERT, memory_history_params(self.dialect, change.history))
        self.overwrite_row(s, memory, index)

    def overwrite_row(self, s: Session, memory: Memory, index: IndexEntry | None) -> None:
        """Write a stored memory's new state, its tags and fields (the caller holds the user's index lock).

        With ``index`` the memory is re-indexed; without, its index only learns that it changed.
        """
        s.run("DELETE FROM memory_tags WHERE user_id = ? AND memory_id = ?", (memory.user_id, memory.id))
        s.run(
            f"UPDATE memories SET {MEMORY_ASSIGNMENTS}, content_hash = ? WHERE user_id = ? AND id = ?",
            (*memory_params(self.dialect, memory)[2:], content_hash(memory.content), memory.user_id, memory.id),
        )
        _write_tags(s, memory)
        self.engine.write_fields(s, memory)
        if index is not None:
            self.engine.write_index(s, memory, index)
        else:
            self.engine.touch_index(s, memory)


def _write_tags(s: Session, memory: Memory) -> None:
    s.many(
        "INSERT INTO memory_tags (user_id, memory_id, tag) VALUES (?, ?, ?)",
        [(memory.user_id, memory.id, tag) for tag in memory.tags],
    )


def after_condition(query: MemoryQuery, dialect: Dialect, params: list[object], mark: str = "?") -> str:
    """`` AND …`` keeping the memories (``m``) after ``query.after`` in the page's order; empty without one."""
    if query.after is None:
        return ""
    if query.sort_by not in SORT_COLUMNS:
        raise StoreError(f"cannot sort by {excerpt(query.sort_by)}")
    value, last_id = query.after
    bound = dialect.moment(value) if isinstance(value, datetime) else float(value)
    params.extend([bound, bound, last_id])
    beyond = "<" if query.descending else ">"
    column = f"m.{query.sort_by}"
    return f" AND ({column} {beyond} {mark} OR ({column} = {mark} AND m.id {beyond} {mark}))"


def order_by(sort_by: str, descending: bool) -> str:
    """ORDER BY of a page of memories (``m``); the id breaks ties (byte order on both backends)."""
    if sort_by not in SORT_COLUMNS:
        raise StoreError(f"cannot sort by {excerpt(sort_by)}")
    direction = "DESC" if descending else "ASC"
    return f"m.{sort_by} {direction}, m.id {direction}"


def _oldest_first(rows: Sequence[Row]) -> list[Row]:
    """Memory rows in (created_at, id) order, as ``ORDER BY created_at, id`` gives them. Sorted here: with the
    ORDER BY in a lookup by text, SQLite without statistics walks all of the user's memories in that order
    rather than looking the text up by its index."""
    return sorted(rows, key=lambda row: (row[_CREATED], row[_ID]))
