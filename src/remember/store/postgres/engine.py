"""PostgreSQL's search engine: the index written with each memory, keyword and vector search, pages of memories.

Built from the backend's pool; the store's parts call it inside their transactions
(``store/sql/memories.py``'s hooks) and the services search through it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from remember.config import KEYWORD_INDEX_MIN
from remember.models import Memory, Progress
from remember.store.postgres import bulk, sizing
from remember.store.postgres.common_terms import CommonTerms
from remember.store.postgres.connection import Database
from remember.store.postgres.dialect import DIALECT
from remember.store.postgres.listing import ListingTables
from remember.store.postgres.search import SearchTables
from remember.store.sql.session import Session


class PostgresSearch(ListingTables, SearchTables):
    """The search index of one PostgreSQL database (``SearchIndex``, ``IndexMaintenance``, the write hooks).

    Users with at least ``keyword_index_min`` memories get a ranked keyword index, kept under
    ``keywords_home`` (none without it) in a folder named after ``location``.
    """

    def __init__(
        self,
        db: Database,
        *,
        location: str,
        pgvector: tuple[int, ...],
        keyword_index_min: int | None = KEYWORD_INDEX_MIN,
        keywords_home: Path | None = None,
    ) -> None:
        super().__init__(db, DIALECT, keyword_index_min)
        self.location = location
        self.pgvector = pgvector
        self.keywords_home = keywords_home
        self.common_terms = CommonTerms()

    def write_fields(self, s: Session, memory: Memory) -> None:
        """Nothing to write: filters on template fields read the JSON, through a GIN index."""

    def bulk_written(self, count: int) -> None:
        """Nothing to refresh: PostgreSQL's autovacuum analyses the table."""

    def build_vector_index(self, user_id: str, dimension: int, progress: Progress | None = None) -> bool:  # noqa: ARG002
        """Nothing to build per user: PostgreSQL keeps its HNSW index up to date as rows are written."""
        return False

    def forget_owner(self, user_id: str) -> None:
        """Remove the owner's ranked keyword index files (its vectors are rows, gone with its memories)."""
        self._forget_ranked(user_id)

    def bulk_vectors(self, expected: int) -> AbstractContextManager[bool]:
        """A block of bulk writes: the HNSW index is built afresh at its end when that pays (bulk.py)."""
        return bulk.bulk_vectors(self.db, self.pgvector, expected)

    def sizing_advice(self) -> list[str]:
        with self.db.read() as conn:
            return sizing.advice(*sizing.buffers_and_index(conn))

    def close(self) -> None:
        self._close_ranked()
