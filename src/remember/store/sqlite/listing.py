"""Pages of memories in SQLite: the total and the page from one snapshot, the filter pushed into SQL."""

from __future__ import annotations

from typing import Any

from remember.models import Memory, MemoryQuery, Page
from remember.store.sql.base import IN_TRASH, SqlBase
from remember.store.sql.memories import after_condition, order_by
from remember.store.sql.rows import MEMORY_COLUMNS_OF_M, memory_from_row
from remember.store.sqlite import filtersql

# A filter matching at most this many memories is answered from the value index's
# matches; a denser one by walking the memories in order and stopping at the page's end.
SPARSE_MATCHES = 2_000


class ListingTables(SqlBase):
    def list_memories(self, user_id: str, query: MemoryQuery) -> Page:
        with self.reading() as s:
            where, params = _where(query, user_id, indexed=True)
            total = int(s.value(f"SELECT count(*) FROM memories m WHERE {where}", params))
            where, params = _where(query, user_id, indexed=total <= SPARSE_MATCHES)
            rows = s.all(
                f"SELECT {MEMORY_COLUMNS_OF_M} FROM memories m WHERE {where} "
                f"ORDER BY {order_by(query.sort_by, query.descending)} LIMIT ? OFFSET ?",
                [*params, query.limit, query.offset],
            )
        return Page(tuple(memory_from_row(self.dialect, r) for r in rows), total, query.limit, query.offset)

    def list_memories_after(self, user_id: str, query: MemoryQuery) -> list[Memory]:
        with self.reading() as s:
            where, params = _where(query, user_id, indexed=True)
            if query.filter is not None:
                # A bounded probe, not a count: are the matches few enough to drive the page from the index?
                probe = f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {where} LIMIT ?) AS few"
                matches = int(s.value(probe, [*params, SPARSE_MATCHES + 1]))
                where, params = _where(query, user_id, indexed=matches <= SPARSE_MATCHES)
            where += after_condition(query, self.dialect, params)
            rows = s.all(
                f"SELECT {MEMORY_COLUMNS_OF_M} FROM memories m WHERE {where} "
                f"ORDER BY {order_by(query.sort_by, query.descending)} LIMIT ?",
                [*params, query.limit],
            )
        return [memory_from_row(self.dialect, r) for r in rows]


def _where(query: MemoryQuery, user_id: str, *, indexed: bool) -> tuple[str, list[Any]]:
    params: list[Any] = [user_id]
    where = f"m.user_id = ? AND {IN_TRASH[query.deleted]}"
    if query.filter is not None:
        where += " AND " + filtersql.render(query.filter, params, user_id, indexed=indexed)
    return where, params
