"""The scale-out backend: PostgreSQL (with pgvector), through a connection pool."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from remember.config import KEYWORD_INDEX_MIN
from remember.models import Progress
from remember.store.postgres import bulk, sizing
from remember.store.postgres.common_terms import CommonTerms
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.dialect import DIALECT
from remember.store.postgres.filtersql import choose_fold_collation
from remember.store.postgres.listing import ListingTables
from remember.store.postgres.migrations import migrate
from remember.store.postgres.search import (
    SearchTables,
    ensure_vector_index,
    pgvector_version,
    recorded_dimension,
    vector_index_name,
)
from remember.store.postgres.url import parse_url, redact
from remember.store.sql.analytics import AnalyticsTables
from remember.store.sql.base import Sql
from remember.store.sql.preferences import PreferenceTables
from remember.store.sql.relationship_search import RelationshipVectors
from remember.store.sql.relationships import RelationshipTables
from remember.store.sql.suggestions import SuggestionTables
from remember.store.sql.terms import TermStatistics
from remember.store.sql.tokens import TokenTables
from remember.store.sql.transfer import TransferTables


class PostgresStore(TransferTables, ListingTables, SearchTables):
    """``Store`` over a PostgreSQL database; migrates it on open.

    ``url`` is a libpq URL (``postgresql://user:password@host:5432/db``) and may
    carry the pool settings of ``remember.store.postgres.url``. Users with at least
    ``keyword_index_min`` memories get a ranked keyword index, kept under ``keywords_home``
    (none without it).
    """

    def __init__(
        self, url: str, *, keyword_index_min: int | None = KEYWORD_INDEX_MIN, keywords_home: Path | None = None
    ) -> None:
        self.url = redact(url)
        self.keyword_index_min = keyword_index_min
        self.keywords_home = keywords_home
        self.dialect = DIALECT
        self.term_stats = TermStatistics()
        self.common_terms = CommonTerms()
        target = parse_url(url)
        self.location = target.location
        self.db = Database(target)
        self.sql = Sql(self.db, DIALECT)
        self.preferences = PreferenceTables(self.sql)
        self.tokens = TokenTables(self.sql)
        self.suggestions = SuggestionTables(self.sql)
        self.analytics = AnalyticsTables(self.sql)
        self.relationships = RelationshipTables(self.sql, RelationshipVectors())
        with self.db.direct() as conn:
            self.applied_migrations = migrate(conn, target.location)
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            self.pgvector = pgvector_version(row[0] if row else None)
            _ensure_vector_index(conn, self.pgvector)
            names = {r[0] for r in conn.execute("SELECT collname FROM pg_collation").fetchall()}
            self.fold_collation = choose_fold_collation(names)
        self.db.open()

    def close(self) -> None:
        self._close_ranked()
        self.db.close()

    def build_vector_index(self, user_id: str, dimension: int, progress: Progress | None = None) -> bool:  # noqa: ARG002
        """Nothing to build per user: PostgreSQL keeps its HNSW index up to date as rows are written."""
        return False

    def bulk_vectors(self, expected: int) -> AbstractContextManager[bool]:
        """A block of bulk writes: the HNSW index is built afresh at its end when that pays (bulk.py)."""
        return bulk.bulk_vectors(self.db, self.pgvector, expected)

    def sizing_advice(self) -> list[str]:
        with self.db.read() as conn:
            return sizing.advice(*sizing.buffers_and_index(conn))


def _ensure_vector_index(conn: Connection, pgvector: tuple[int, ...]) -> None:
    """The HNSW index of the recorded dimension, should it be missing (e.g. a restored dump without it)."""
    dimension = recorded_dimension(conn)
    if dimension is None:
        return
    found = conn.execute("SELECT to_regclass(%s)", (vector_index_name(dimension),)).fetchone()
    if found is None or found[0] is None:
        with conn.transaction():
            ensure_vector_index(conn, dimension, pgvector)


def upgrade(url: str) -> list[str]:
    """Apply pending migrations to the database at ``url`` without opening a pool; the names applied."""
    target = parse_url(url)
    with Database(target).direct() as conn:
        return migrate(conn, target.location)
