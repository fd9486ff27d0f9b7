"""Memories in SQLite: rows, tags, history, listing with filters."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remember.clock import to_text
from remember.errors import Conflict, NotFound, StoreError
from remember.models import HistoryEntry, IndexEntry, Memory, MemoryChange, MemoryQuery, Page
from remember.store.sqlite import filtersql
from remember.store.sqlite.connection import Database
from remember.store.sqlite.fields import write_fields
from remember.store.sqlite.rows import (
    MEMORY_COLUMNS,
    PLACEHOLDERS,
    history_from_row,
    history_params,
    memory_from_row,
    memory_params,
)
from remember.store.sqlite.search import forget_index, touch_index, write_index

# Every column but the key (user_id, id), in MEMORY_COLUMNS order.
_ASSIGNMENTS = ", ".join(f"{c.strip()} = ?" for c in MEMORY_COLUMNS.split(",")[2:])
SPARSE_MATCHES = 2_000
BULK = 500  # a batch this large refreshes the planner's statistics
_SORT_COLUMNS = {"created_at", "updated_at", "weight", "occurred_at"}
_DELETED = {"exclude": "m.deleted_at IS NULL", "include": "1", "only": "m.deleted_at IS NOT NULL"}


class MemoryTables:
    db: Database

    def insert_memory(self, memory: Memory, index: IndexEntry | None = None) -> None:
        with self.db.write() as conn:
            insert(conn, memory, index)

    def insert_memories(self, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        """Insert many memories in one transaction: all or none."""
        with self.db.write() as conn:
            for memory, index in batch:
                insert(conn, memory, index)
        if len(batch) >= BULK:
            self.db.optimize()

    def get_memory(self, user_id: str, memory_id: str) -> Memory | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)
            ).fetchone()
        return memory_from_row(row) if row else None

    def replace_memory(
        self, memory: Memory, *, expected_version: int, history: HistoryEntry, index: IndexEntry | None = None
    ) -> None:
        with self.db.write() as conn:
            write_change(conn, MemoryChange(memory, expected_version, history), index)

    def purge_memory(self, user_id: str, memory_id: str) -> bool:
        with self.db.write() as conn:
            forget_index(conn, user_id, memory_id)
            cursor = conn.execute("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id))
            return cursor.rowcount > 0

    def list_memories(self, user_id: str, query: MemoryQuery) -> Page:
        with self.db.read() as conn:
            where, params = _where(query, user_id, indexed=True)
            total = conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]
            # A dense match is found fastest by walking the memories in order and stopping
            # at the page's end; a sparse one by starting from the value index's matches.
            where, params = _where(query, user_id, indexed=total <= SPARSE_MATCHES)
            rows = conn.execute(
                f"SELECT {_prefixed(MEMORY_COLUMNS)} FROM memories m WHERE {where} "
                f"ORDER BY {_order(query)} LIMIT ? OFFSET ?",
                [*params, query.limit, query.offset],
            ).fetchall()
        return Page(tuple(memory_from_row(r) for r in rows), total, query.limit, query.offset)

    def memory_history(self, user_id: str, memory_id: str) -> list[HistoryEntry]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT user_id, memory_id, version, action, previous, reason, at FROM memory_history "
                "WHERE user_id = ? AND memory_id = ? ORDER BY version DESC",
                (user_id, memory_id),
            ).fetchall()
        return [history_from_row(r) for r in rows]

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        if not memory_ids:
            return
        marks = ", ".join("?" for _ in memory_ids)
        with self.db.write() as conn:
            conn.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
                f"WHERE user_id = ? AND id IN ({marks})",
                [to_text(at), user_id, *memory_ids],
            )


def insert(conn: sqlite3.Connection, memory: Memory, index: IndexEntry | None) -> None:
    conn.execute(f"INSERT INTO memories ({MEMORY_COLUMNS}) VALUES ({PLACEHOLDERS})", memory_params(memory))
    write_tags(conn, memory)
    write_fields(conn, memory)
    if index is not None:
        write_index(conn, memory, index)


def _where(query: MemoryQuery, user_id: str, *, indexed: bool) -> tuple[str, list[Any]]:
    params: list[Any] = [user_id]
    where = f"m.user_id = ? AND {_DELETED[query.deleted]}"
    if query.filter is not None:
        where += " AND " + filtersql.render(query.filter, params, user_id, indexed=indexed)
    return where, params


def write_change(conn: sqlite3.Connection, change: MemoryChange, index: IndexEntry | None = None) -> None:
    """Write a memory's new state and its history entry, if it is still at the expected version.

    With ``index`` the memory is re-indexed; without, its index rows only learn that it changed.
    """
    memory = change.memory
    row = conn.execute(
        "SELECT version FROM memories WHERE user_id = ? AND id = ?", (memory.user_id, memory.id)
    ).fetchone()
    if row is None:
        raise NotFound(f"Memory {memory.id} no longer exists.")
    if row[0] != change.expected_version:
        raise Conflict(
            f"Memory {memory.id} was changed by someone else (now version {row[0]}, "
            f"expected {change.expected_version}); fetch it again and reapply your change."
        )
    conn.execute("DELETE FROM memory_tags WHERE user_id = ? AND memory_id = ?", (memory.user_id, memory.id))
    conn.execute(
        f"UPDATE memories SET {_ASSIGNMENTS} WHERE user_id = ? AND id = ?",
        [*memory_params(memory)[2:], memory.user_id, memory.id],
    )
    write_tags(conn, memory)
    write_fields(conn, memory)
    conn.execute("INSERT INTO memory_history VALUES (?, ?, ?, ?, ?, ?, ?)", history_params(change.history))
    if index is not None:
        write_index(conn, memory, index)
    else:
        touch_index(conn, memory)


def write_tags(conn: sqlite3.Connection, memory: Memory) -> None:
    conn.executemany(
        "INSERT INTO memory_tags (user_id, memory_id, tag) VALUES (?, ?, ?)",
        [(memory.user_id, memory.id, tag) for tag in memory.tags],
    )


def _order(query: MemoryQuery) -> str:
    if query.sort_by not in _SORT_COLUMNS:
        raise StoreError(f"cannot sort by {query.sort_by!r}")
    direction = "DESC" if query.descending else "ASC"
    return f"m.{query.sort_by} {direction}, m.id {direction}"


def _prefixed(columns: str) -> str:
    return ", ".join(f"m.{c.strip()}" for c in columns.split(","))
