"""The embedded default backend: one SQLite file."""

from __future__ import annotations

import sqlite3

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN
from remember.store.sqlite import health
from remember.store.sqlite.connection import Database, translated
from remember.store.sqlite.dialect import DIALECT
from remember.store.sqlite.engine import IndexSizes, SqliteSearch
from remember.store.sqlite.migrations import migrate, pending
from remember.store.sqlite.search import create_scratch


class SqliteBackend:
    """One SQLite file: its connections (migrated when opened) and its search engine."""

    def __init__(
        self,
        path: str,
        *,
        url: str | None = None,
        vector_index_min: int | None = VECTOR_INDEX_MIN,
        keyword_index_min: int | None = KEYWORD_INDEX_MIN,
    ) -> None:
        self.url = url or f"sqlite:///{path}"
        self.dialect = DIALECT
        self.db = Database(path)
        try:
            self._migrate(path)
            create_scratch(self.db.connection)
            vector_db = self.db.companion()
        except BaseException:
            self.db.close()
            raise
        self.search = SqliteSearch(self.db, vector_db, IndexSizes(vector_index_min, keyword_index_min))

    def close(self) -> None:
        self.search.close()
        self.db.close()

    def _migrate(self, path: str) -> None:
        """Apply pending migrations; a database that cannot be written must need none."""
        try:
            steps = pending(self.db.connection, path)
        except sqlite3.DatabaseError as exc:
            raise translated(path, exc) if not health.is_damage(exc) else health.damaged(path, str(exc)) from exc
        if steps:
            self.db.refuse_writes()
            migrate(self.db.connection, path)
