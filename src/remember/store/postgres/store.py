"""The scale-out backend: PostgreSQL (with pgvector), through a connection pool."""

from __future__ import annotations

from pathlib import Path

from remember.config import KEYWORD_INDEX_MIN
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.dialect import DIALECT
from remember.store.postgres.engine import PostgresSearch
from remember.store.postgres.filtersql import choose_fold_collation
from remember.store.postgres.migrations import migrate
from remember.store.postgres.search import (
    ensure_vector_index,
    pgvector_version,
    recorded_dimension,
    vector_index_name,
)
from remember.store.postgres.url import parse_url, redact


class PostgresBackend:
    """A PostgreSQL database (with pgvector): its pool (migrated when opened) and its search engine.

    ``url`` is a libpq URL (``postgresql://user:password@host:5432/db``) and may carry the pool
    settings of ``remember.store.postgres.url``. Users with at least ``keyword_index_min`` memories
    get a ranked keyword index, kept under ``keywords_home`` (none without it).
    """

    def __init__(
        self, url: str, *, keyword_index_min: int | None = KEYWORD_INDEX_MIN, keywords_home: Path | None = None
    ) -> None:
        self.url = redact(url)
        self.dialect = DIALECT
        target = parse_url(url)
        self.location = target.location
        self.db = Database(target)
        with self.db.direct() as conn:
            self.applied_migrations = migrate(conn, target.location)
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            self.pgvector = pgvector_version(row[0] if row else None)
            _ensure_vector_index(conn, self.pgvector)
            names = {r[0] for r in conn.execute("SELECT collname FROM pg_collation").fetchall()}
            self.fold_collation = choose_fold_collation(names)
        self.db.open()
        self.search = PostgresSearch(
            self.db,
            location=self.location,
            pgvector=self.pgvector,
            keyword_index_min=keyword_index_min,
            keywords_home=keywords_home,
        )

    def close(self) -> None:
        self.search.close()
        self.db.close()


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
