"""The advice given at start when PostgreSQL's buffers cannot hold the vector index (docs/postgres.md)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import numpy as np
import pytest

from conftest import EmbeddedPostgres
from remember.models import IndexEntry, Memory
from remember.service.indexer import Indexer
from remember.store import Store, open_store
from remember.store.postgres import PostgresBackend, sizing

pytestmark = pytest.mark.postgres

MB = 2**20
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def fill(store: Store, count: int) -> None:
    """``count`` memories with random unit vectors of 384 dimensions (the HNSW index built as they go)."""
    store.index.set_index_settings({"embedding_model": "test", "embedding_dimension": "384"})
    vectors = np.random.default_rng(0).normal(size=(count, 384)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    made = [
        (
            Memory(id=f"m{i:05d}", user_id="alice", content=f"memory {i}", type="note", weight=0.5, trust=0.5,
                   created_at=T0, updated_at=T0, occurred_at=T0),
            IndexEntry(f"memory {i}", "1 March 2026", vectors[i].tobytes()),
        )
        for i in range(count)
    ]  # fmt: skip
    store.memories.insert_many(made)


def test_an_index_that_fits_in_the_buffers_gets_no_advice() -> None:
    assert sizing.advice(128 * MB, 128 * MB) == []
    assert sizing.advice(6 * 1024 * MB, 1953 * MB) == []


def test_an_index_larger_than_the_buffers_gets_a_value_to_set_and_where_to_read_why() -> None:
    (message,) = sizing.advice(128 * MB, 1953 * MB)
    assert "shared_buffers (128 MB)" in message
    assert "vector index (1.9 GB)" in message
    assert "ALTER SYSTEM SET shared_buffers = '4GB'" in message  # twice the index, rounded up
    assert "docs/postgres.md#sizing-the-server" in message


@contextmanager
def filled(url: str, count: int) -> Iterator[tuple[Store, int, int]]:
    """A store holding ``count`` vectors, the server's shared_buffers and the vector index's size."""
    store = open_store(url)
    assert isinstance(store.backend, PostgresBackend)
    try:
        fill(store, count)
        with store.backend.db.read() as conn:
            yield (store, *sizing.buffers_and_index(conn))
    finally:
        store.close()


def test_a_small_database_on_the_default_buffers_gets_no_advice(postgres_url: str) -> None:
    with filled(postgres_url, 300) as (store, buffers, index):
        assert buffers == 128 * MB  # PostgreSQL's default
        assert 0 < index < buffers  # the HNSW index is found and measured
        assert store.index.sizing_advice() == []


@pytest.mark.slow
def test_a_server_whose_buffers_cannot_hold_the_index_is_told_so_at_start(
    own_postgres_server: EmbeddedPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    with own_postgres_server.admin() as conn:
        conn.execute("ALTER SYSTEM SET shared_buffers = '1MB'")
    own_postgres_server.stop()
    own_postgres_server.start()
    with filled(own_postgres_server.url(own_postgres_server.create_database()), 1500) as (store, buffers, index):
        assert buffers == 1 * MB and index > buffers
        with caplog.at_level(logging.WARNING, logger="remember"):
            Indexer(store, embedder=None).warn_at_start()
    (record,) = [r for r in caplog.records if "shared_buffers" in r.getMessage()]
    assert "shared_buffers (1 MB) is smaller than the vector index" in record.getMessage()
