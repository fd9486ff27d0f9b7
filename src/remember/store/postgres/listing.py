"""Pages of memories in PostgreSQL: the total and the page in one statement (one snapshot)."""

from __future__ import annotations

from typing import Any

from remember.models import Memory, MemoryQuery, Page
from remember.store.postgres import filtersql
from remember.store.sql.base import IN_TRASH, SqlBase
from remember.store.sql.memories import after_condition, order_by
from remember.store.sql.rows import MEMORY_COLUMNS_OF_M, memory_from_row


class ListingTables(SqlBase):
    def list_memories(self, user_id: str, query: MemoryQuery) -> Page:
        params: list[Any] = [user_id]
        where = f"m.user_id = %s AND {IN_TRASH[query.deleted]}"
        if query.filter is not None:
            where += " AND " + filtersql.render(query.filter, params)
        sql = (
            f"SELECT c.total, p.* FROM (SELECT count(*) AS total FROM memories m WHERE {where}) c "
            f"LEFT JOIN LATERAL (SELECT {MEMORY_COLUMNS_OF_M} FROM memories m WHERE {where} "
            f"ORDER BY {order_by(query.sort_by, query.descending)} LIMIT %s OFFSET %s) p ON TRUE"
        )
        with self.db.read() as conn:
            rows = conn.execute(sql, [*params, *params, query.limit, query.offset]).fetchall()
        total = rows[0][0] if rows else 0
        items = tuple(memory_from_row(self.dialect, r[1:]) for r in rows if r[2] is not None)
        return Page(items, total, query.limit, query.offset)

    def list_memories_after(self, user_id: str, query: MemoryQuery) -> list[Memory]:
        params: list[Any] = [user_id]
        where = f"m.user_id = %s AND {IN_TRASH[query.deleted]}"
        if query.filter is not None:
            where += " AND " + filtersql.render(query.filter, params)
        where += after_condition(query, self.dialect, params, "%s")
        sql = (
            f"SELECT {MEMORY_COLUMNS_OF_M} FROM memories m WHERE {where} "
            f"ORDER BY {order_by(query.sort_by, query.descending)} LIMIT %s"
        )
        with self.db.read() as conn:
            rows = conn.execute(sql, [*params, query.limit]).fetchall()
        return [memory_from_row(self.dialect, r) for r in rows]
