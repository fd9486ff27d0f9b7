"""Bulk writes on PostgreSQL: the HNSW index built afresh after a large load instead of grown row by row.

Inserting a vector into an HNSW graph costs about as much as the rest of a
memory's write together, and a graph built once from all the rows costs far less
than one grown row by row (docs/postgres.md has the figures). A load
that at least doubles the stored vectors (``REBUILD_AT_LEAST`` or more) drops the
index for its duration and builds it at the end, with room for the graph in
memory. Meanwhile semantic searches (of every user) read the table exactly:
slower, never wrong. Should the process die during the load, opening the store
builds the missing index (``store.py``). A large load ends with ``ANALYZE``, so
that the planner and keyword search (``common_terms.py``) see what it brought.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.search import ensure_vector_index, recorded_dimension, vector_index_name

REBUILD_AT_LEAST = 20_000  # vectors a load must bring before the index is dropped for it
GRAPH_BYTES_PER_ROW = 512  # an HNSW graph's own memory per vector (m = 16), besides the vector
MAX_BUILD_MEMORY = 4 << 30  # bytes: maintenance_work_mem of a build, at most


@contextmanager
def bulk_vectors(db: Database, pgvector: tuple[int, ...], expected: int) -> Iterator[bool]:
    """A block of writes of about ``expected`` vectors, the HNSW index dropped during it when that pays
    (it yields whether it was)."""
    dimension = _dropped_for(db, expected)
    try:
        yield dimension is not None
    finally:
        if expected >= REBUILD_AT_LEAST:
            with db.direct() as conn:
                if dimension is not None:
                    build(conn, dimension, pgvector)
                # fresh statistics for the planner and for the common terms of keyword search
                conn.execute("ANALYZE memories, memory_index, memory_vectors")


def _dropped_for(db: Database, expected: int) -> int | None:
    """Drop the index if a load of ``expected`` vectors should rebuild it; the dimension it was for."""
    if expected < REBUILD_AT_LEAST:
        return None
    with db.direct() as conn:
        dimension = recorded_dimension(conn)
        if dimension is None:
            return None
        stored = conn.execute("SELECT count(*) FROM memory_vectors").fetchone()
        if stored is None or int(stored[0]) > expected:
            return None
        conn.execute(f"DROP INDEX IF EXISTS {vector_index_name(dimension)}")
    return dimension


def build(conn: Connection, dimension: int, pgvector: tuple[int, ...]) -> None:
    """The HNSW index of ``dimension`` built (if missing) with room for its graph in memory."""
    stored = conn.execute("SELECT count(*) FROM memory_vectors").fetchone()
    rows = int(stored[0]) if stored else 0
    wanted = min(MAX_BUILD_MEMORY, rows * (4 * dimension + GRAPH_BYTES_PER_ROW))
    with conn.transaction():
        conn.execute(
            "SELECT set_config('maintenance_work_mem', greatest(pg_size_bytes(current_setting('maintenance_work_mem')),"
            " %s)::text || 'B', true)",
            (wanted,),
        )
        ensure_vector_index(conn, dimension, pgvector)
