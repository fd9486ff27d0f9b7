"""The PostgreSQL backend (the scale-out one): psycopg 3, a connection pool, pgvector.

Imported only when a ``postgresql://`` URL is opened, so SQLite users never load psycopg.
"""

from remember.store.postgres.migrations import MIGRATIONS, migrate
from remember.store.postgres.store import PostgresBackend, upgrade

__all__ = ["MIGRATIONS", "PostgresBackend", "migrate", "upgrade"]
