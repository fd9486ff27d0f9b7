"""SQLite's search engine: the index written with each memory, keyword and vector search, pages of memories.

Built from the backend's connections (``db``, and ``vector_db`` the vector side of
a search reads through beside it); the store's parts call it inside their
transactions (``store/sql/memories.py``'s hooks) and the services search through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN
from remember.models import Memory
from remember.store.sql.session import Session
from remember.store.sqlite import field_values
from remember.store.sqlite.connection import Database
from remember.store.sqlite.dialect import DIALECT
from remember.store.sqlite.listing import ListingTables
from remember.store.sqlite.search import SearchTables

BULK = 500  # a batch this large refreshes the planner's statistics


@dataclass(frozen=True)
class IndexSizes:
    """From how many indexed memories a user's searches go through each index beside the database (None: never)."""

    vectors: int | None = VECTOR_INDEX_MIN  # the approximate vector index (ann.py)
    keywords: int | None = KEYWORD_INDEX_MIN  # the ranked keyword index (store/index_files/)


class SqliteSearch(ListingTables, SearchTables):
    """The search index of one SQLite database (``SearchIndex``, ``IndexMaintenance``, the write hooks)."""

    def __init__(self, db: Database, vector_db: Database, sizes: IndexSizes | None = None) -> None:
        sizes = sizes or IndexSizes()
        super().__init__(db, DIALECT, sizes.keywords)
        self.vector_db = vector_db
        self.vector_index_min = sizes.vectors
        self._stem_cache = {}

    def write_fields(self, s: Session, memory: Memory) -> None:
        field_values.write_fields(s.raw, memory)

    def bulk_written(self, count: int) -> None:
        if count >= BULK:
            self.db.optimize()

    def close(self) -> None:
        self.close_search()
