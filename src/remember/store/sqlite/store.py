"""The embedded default backend: one SQLite file."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN
from remember.models import IndexEntry, Memory
from remember.store.sql.analytics import AnalyticsTables
from remember.store.sql.base import Sql
from remember.store.sql.preferences import PreferenceTables
from remember.store.sql.relationship_search import RelationshipVectors
from remember.store.sql.relationships import RelationshipTables
from remember.store.sql.session import Session
from remember.store.sql.suggestions import SuggestionTables
from remember.store.sql.terms import TermStatistics
from remember.store.sql.tokens import TokenTables
from remember.store.sql.transfer import TransferTables
from remember.store.sqlite import fields, health
from remember.store.sqlite.connection import Database, translated
from remember.store.sqlite.dialect import DIALECT
from remember.store.sqlite.listing import ListingTables
from remember.store.sqlite.migrations import migrate, pending
from remember.store.sqlite.search import SearchTables, create_scratch

BULK = 500  # a batch this large refreshes the planner's statistics


class SqliteStore(TransferTables, ListingTables, SearchTables):
    def __init__(
        self,
        path: str,
        *,
        url: str | None = None,
        vector_index_min: int | None = VECTOR_INDEX_MIN,
        keyword_index_min: int | None = KEYWORD_INDEX_MIN,
    ) -> None:
        self.url = url or f"sqlite:///{path}"
        self.vector_index_min = vector_index_min
        self.keyword_index_min = keyword_index_min
        self.dialect = DIALECT
        self.db = Database(path)
        self.sql = Sql(self.db, DIALECT)
        self.preferences = PreferenceTables(self.sql)
        self.tokens = TokenTables(self.sql)
        self.suggestions = SuggestionTables(self.sql)
        self.analytics = AnalyticsTables(self.sql)
        self.relationships = RelationshipTables(self.sql, RelationshipVectors())
        self.term_stats = TermStatistics()
        self._stem_cache = {}
        try:
            self._migrate(path)
            create_scratch(self.db.connection)
            self.vector_db = self.db.companion()
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        self.close_search()
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

    def insert_memories(self, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        super().insert_memories(batch)
        if len(batch) >= BULK:
            self.db.optimize()

    def write_fields(self, s: Session, memory: Memory) -> None:
        fields.write_fields(s.raw, memory)
