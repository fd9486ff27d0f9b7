"""Whether the server's buffers can hold the vector index (docs/postgres.md#sizing-the-server).

A semantic search walks the HNSW index, a few thousand of its pages at random;
pages outside PostgreSQL's ``shared_buffers`` are copied in from the operating
system at every search, which makes the vector query several times slower than
with the index in the buffers.
"""

from __future__ import annotations

from remember.store.postgres.connection import Connection
from remember.store.postgres.search import VECTOR_INDEX_PREFIX

MB = 2**20
GB = 2**30


def buffers_and_index(conn: Connection) -> tuple[int, int]:
    """The server's ``shared_buffers`` and the size of this schema's vector index, in bytes."""
    row = conn.execute(
        "SELECT pg_size_bytes(current_setting('shared_buffers')), coalesce(("
        "SELECT sum(pg_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind = 'i' AND starts_with(c.relname, %s)), 0)",
        (VECTOR_INDEX_PREFIX,),
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def advice(buffers: int, index: int) -> list[str]:
    """What to tell the operator when the index does not fit in the buffers; nothing when it does."""
    if index <= buffers:
        return []
    wanted = -(-index * 2 // GB)  # twice the index, in whole GB: the tables searched need room too
    return [
        f"PostgreSQL's shared_buffers ({_size(buffers)}) is smaller than the vector index ({_size(index)}): "
        "semantic search copies much of the index in from the operating system at every search. "
        f"Give the server more (ALTER SYSTEM SET shared_buffers = '{wanted}GB', then restart it; "
        "a quarter of the machine's memory is the usual start): see docs/postgres.md#sizing-the-server."
    ]


def _size(n: int) -> str:
    return f"{n / GB:.1f} GB" if n >= GB else f"{n // MB} MB"
