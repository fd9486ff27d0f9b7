"""The load and fault runs of ``bench/remote.py`` at a reduced size: concurrent clients with idle
sessions open, on SQLite and PostgreSQL (zero errors, zero lost writes), and ``kill -9`` of the
server during ingest (every acknowledged write kept, the file intact, the index agreeing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.remote import kill_run, load_run
from remember.store import Store

pytestmark = pytest.mark.slow


def test_concurrent_clients_lose_nothing(store: Store, tmp_path: Path) -> None:
    found = load_run(store.url, tmp_path / "home", clients=6, ops=30, idle=10, users=3, REMEMBER_EMBEDDER="hash")
    assert found["errors"] == 0, found["first_errors"]
    assert found["lost_writes"] == []
    assert found["operations"] == 6 * 30
    assert found["all"]["p99"] > 0


def test_kill_9_during_ingest_loses_no_acknowledged_write(db_path: Path, tmp_path: Path) -> None:
    found = kill_run(f"sqlite:///{db_path}", tmp_path / "home", kills=3, REMEMBER_EMBEDDER="hash")
    assert found["acknowledged"] > 0
    assert found["missing"] == []
    assert found["integrity"] == "ok"
    assert found["index_agrees"] is True
