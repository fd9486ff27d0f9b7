"""SQLite's search engine: the index written with each memory, keyword and vector search, pages of memories.

Built from the backend's connections (``db``, and ``vector_db`` the vector side of
a search reads through beside it); the store's parts call it inside their
transactions (``store/sql/memories.py``'s hooks) and the services search through it.
"""

from __future__ import annotations

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN
from remember.models import Memory
from remember.store.sql.session import Session
from remember.store.sqlite import field_values
from remember.store.sqlite.connection import Database
from remember.store.sqlite.dialect import DIALECT
from remember.store.sqlite.listing import ListingTables
from remember.store.sqlite.search import SearchTables

BULK = 500  # a batch this large refreshes the planner's statistics


class SqliteSearch(ListingTables, SearchTables):
    """The search index of one SQLite database (``SearchIndex``, ``IndexMaintenance``, the write hooks)."""

    def __init__(
        self,
        db: Database,
        vector_db: Database,
        *,
        vector_index_min: int | None = VECTOR_INDEX_MIN,
        keyword_index_min: int | None = KEYWORD_INDEX_MIN,
    ) -> None:
        super().__init__(db, DIALECT, keyword_index_min)
        self.vector_db = vector_db
        self.vector_index_min = vector_index_min
        self._stem_cache = {}

    def write_fields(self, s: Session, memory: Memory) -> None:
        field_values.write_fields(s.raw, memory)

    def bulk_written(self, count: int) -> None:
        if count >= BULK:
            self.db.optimize()

    def close(self) -> None:
        self.close_search()
