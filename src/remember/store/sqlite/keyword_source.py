"""What the ranked keyword index (store/index_files/) reads of a SQLite database.

Documents are keyed by the ``memories`` rowid; their text is the memory's FTS5
row (content, date, context).
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from remember.filters import Filter
from remember.store.sql.keyword_source import ROW_CHUNK, SqlKeywords
from remember.store.sqlite import approximate, filtersql
from remember.store.sqlite.connection import Database
from remember.store.sqlite.dialect import DIALECT


def keyword_directory(db: Database) -> Path | None:
    """Where a file database keeps its users' keyword indexes (None for an in-memory database)."""
    return None if db.path in ("", ":memory:") else Path(db.path + ".keywords")


class SqliteKeywords(SqlKeywords):
    """The ``KeywordSource`` of a SQLite database."""

    db: Database
    dialect = DIALECT
    key = "m.rowid"
    texts = "f.content, f.date, f.context"
    joins = "LEFT JOIN memory_fts f ON f.rowid = m.rowid "

    def _changed(self, user_id: str, after_seq: int) -> Generator[list[Any]]:
        columns = f"{self.key}, mi.seq, mi.memory_id, m.deleted_at IS NULL, {self.texts}"
        return approximate.index_changes(self.db, user_id, after_seq, columns, ROW_CHUNK, self.joins)

    def owned(self, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
        return approximate.owned(self.db, user_id, keys)

    def _condition(self, filter: Filter, user_id: str, params: list[Any]) -> str:
        return filtersql.render(filter, params, user_id)

    def max_seq(self, user_id: str) -> int:
        return approximate.max_seq(self.db, user_id)

    @contextlib.contextmanager
    def apart(self) -> Iterator[SqliteKeywords]:
        """The same database on a connection of its own (a background build's: the store's stays free)."""
        own = Database(self.db.path)
        try:
            yield SqliteKeywords(own)
        finally:
            own.close()
