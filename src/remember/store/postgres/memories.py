"""Memories in PostgreSQL: rows, tags, history, listing with filters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg import errors as pgerrors

from remember.errors import Conflict, NotFound, StoreError
from remember.models import HistoryEntry, IndexEntry, Memory, MemoryChange, MemoryQuery, Page
from remember.store.postgres import filtersql
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.rows import (
    COLUMN_NAMES,
    HISTORY_COLUMNS,
    MEMORY_COLUMNS,
    PLACEHOLDERS,
    history_from_row,
    history_params,
    memory_from_row,
    memory_params,
)
from remember.store.postgres.search import forget_index, lock_users, touch_index, write_index

# Every column but the key (user_id, id), in MEMORY_COLUMNS order.
_ASSIGNMENTS = ", ".join(f"{c} = %s" for c in COLUMN_NAMES[2:])
_PREFIXED = ", ".join(f"m.{c}" for c in COLUMN_NAMES)
_SORT_COLUMNS = {"created_at", "updated_at", "weight", "occurred_at"}
_DELETED = {"exclude": "m.deleted_at IS NULL", "include": "TRUE", "only": "m.deleted_at IS NOT NULL"}


class MemoryTables:
    db: Database

    def insert_memory(self, memory: Memory, index: IndexEntry | None = None) -> None:
        self.insert_memories([(memory, index)])

    def insert_memories(self, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        """Insert many memories (and their index entries) in one transaction: all or none."""
        if not batch:
            return
        try:
            with self.db.write() as conn:
                lock_users(conn, (m.user_id for m, index in batch if index is not None))
                for memory, index in batch:
                    insert(conn, memory, index)
        except StoreError as exc:
            if isinstance(exc.__cause__, pgerrors.UniqueViolation):
                which = f"Memory {batch[0][0].id}" if len(batch) == 1 else "One of these memories"
                raise StoreError(f"{which} already exists; give the new memory another id.") from exc
            raise

    def get_memory(self, user_id: str, memory_id: str) -> Memory | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = %s AND id = %s", (user_id, memory_id)
            ).fetchone()
        return memory_from_row(row) if row else None

    def replace_memory(
        self, memory: Memory, *, expected_version: int, history: HistoryEntry, index: IndexEntry | None = None
    ) -> None:
        with self.db.write() as conn:
            write_change(conn, MemoryChange(memory, expected_version, history), index)

    def purge_memory(self, user_id: str, memory_id: str) -> bool:
        with self.db.write() as conn:
            lock_users(conn, [user_id])
            forget_index(conn, user_id, memory_id)
            cursor = conn.execute("DELETE FROM memories WHERE user_id = %s AND id = %s", (user_id, memory_id))
            return cursor.rowcount > 0

    def list_memories(self, user_id: str, query: MemoryQuery) -> Page:
        params: list[Any] = [user_id]
        where = f"m.user_id = %s AND {_DELETED[query.deleted]}"
        if query.filter is not None:
            where += " AND " + filtersql.render(query.filter, params)
        # One statement, so that the total and the page come from the same snapshot.
        sql = (
            f"SELECT c.total, p.* FROM (SELECT count(*) AS total FROM memories m WHERE {where}) c "
            f"LEFT JOIN LATERAL (SELECT {_PREFIXED} FROM memories m WHERE {where} "
            f"ORDER BY {_order(query)} LIMIT %s OFFSET %s) p ON TRUE"
        )
        with self.db.read() as conn:
            rows = conn.execute(sql, [*params, *params, query.limit, query.offset]).fetchall()
        total = rows[0][0] if rows else 0
        items = tuple(memory_from_row(r[1:]) for r in rows if r[2] is not None)
        return Page(items, total, query.limit, query.offset)

    def memory_history(self, user_id: str, memory_id: str) -> list[HistoryEntry]:
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {HISTORY_COLUMNS} FROM memory_history "
                "WHERE user_id = %s AND memory_id = %s ORDER BY version DESC",
                (user_id, memory_id),
            ).fetchall()
        return [history_from_row(r) for r in rows]

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        if not memory_ids:
            return
        with self.db.write() as conn:
            # Lock the rows in id order, so that two overlapping calls cannot deadlock.
            conn.execute(
                "UPDATE memories m SET access_count = m.access_count + 1, last_accessed_at = %s "
                "FROM (SELECT id FROM memories WHERE user_id = %s AND id = ANY(%s) ORDER BY id FOR UPDATE) locked "
                "WHERE m.user_id = %s AND m.id = locked.id",
                (at, user_id, list(memory_ids), user_id),
            )


def insert(conn: Connection, memory: Memory, index: IndexEntry | None) -> None:
    """Insert one memory, its tags and its index entry (the caller holds the user's index lock)."""
    conn.execute(f"INSERT INTO memories ({MEMORY_COLUMNS}) VALUES ({PLACEHOLDERS})", memory_params(memory))
    write_tags(conn, memory)
    if index is not None:
        write_index(conn, memory, index)


def write_change(conn: Connection, change: MemoryChange, index: IndexEntry | None = None) -> None:
    """Write a memory's new state and its history entry, if it is still at the expected version.

    With ``index`` the memory is re-indexed; without, its index row only learns that it changed.
    """
    memory = change.memory
    # The user's index lock first, then the row: every index writer takes them in this order.
    lock_users(conn, [memory.user_id])
    # FOR UPDATE makes a concurrent writer wait here, then see the version written before it.
    row = conn.execute(
        "SELECT version FROM memories WHERE user_id = %s AND id = %s FOR UPDATE", (memory.user_id, memory.id)
    ).fetchone()
    if row is None:
        raise NotFound(f"Memory {memory.id} no longer exists.")
    if row[0] != change.expected_version:
        raise Conflict(
            f"Memory {memory.id} was changed by someone else (now version {row[0]}, "
            f"expected {change.expected_version}); fetch it again and reapply your change."
        )
    conn.execute("DELETE FROM memory_tags WHERE user_id = %s AND memory_id = %s", (memory.user_id, memory.id))
    conn.execute(
        f"UPDATE memories SET {_ASSIGNMENTS} WHERE user_id = %s AND id = %s",
        (*memory_params(memory)[2:], memory.user_id, memory.id),
    )
    write_tags(conn, memory)
    conn.execute(
        f"INSERT INTO memory_history ({HISTORY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        history_params(change.history),
    )
    if index is not None:
        write_index(conn, memory, index)
    else:
        touch_index(conn, memory)


def write_tags(conn: Connection, memory: Memory) -> None:
    if memory.tags:
        conn.execute(
            "INSERT INTO memory_tags (user_id, memory_id, tag) SELECT %s, %s, unnest(%s::text[])",
            (memory.user_id, memory.id, list(memory.tags)),
        )


def _order(query: MemoryQuery) -> str:
    if query.sort_by not in _SORT_COLUMNS:
        raise StoreError(f"cannot sort by {query.sort_by!r}")
    direction = "DESC" if query.descending else "ASC"
    return f"m.{query.sort_by} {direction}, m.id {direction}"  # id is COLLATE "C": byte order, as in SQLite
