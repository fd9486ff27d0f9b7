"""Moving users from SQLite to PostgreSQL and back loses nothing, vectors included; search works on arrival."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TickingClock
from remember.caller import Caller
from remember.cli import main
from remember.models import SuggestionEvent
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.store import open_store

pytestmark = pytest.mark.postgres


def records(url: str) -> list[Any]:
    store = open_store(url)
    try:
        found = list(export_records(store))
    finally:
        store.close()
    return found[1:]  # the header says when, and with which embedder (recorded on the target's first use)


def copy(capsys: pytest.CaptureFixture[str], source: str, target: str) -> Any:
    code = main(["db", "copy", source, target, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_sqlite_to_postgres_and_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    source = f"sqlite:///{tmp_path / 'source.db'}"
    services = Services.over(open_store(source), TickingClock(), embedder)
    chat = {"conversation_id": "chat-1"}
    question = services.memories.create(
        Caller("alice"), {"content": "Tom: how long have you had your guitar?", "context": chat}
    )
    services.memories.create(Caller("alice"), {"content": "Me: about seven years now.", "context": chat})
    kept = services.memories.create(
        Caller("alice"), {"content": "Dune by Frank Herbert", "tags": ["books"], "weight": 0.8}
    )
    services.memories.update(Caller("alice"), kept.id, {"content": "Dune by Frank Herbert; five stars"})
    gone = services.memories.create(Caller("alice"), {"content": "an old note"})
    services.memories.delete(Caller("alice"), gone.id)
    services.memories.create(Caller("bob"), {"content": "Bob's note", "structured_content": None})
    services.preferences.update(Caller("alice"), "search.default_limit", 30)
    services.store.suggestions.log(
        "alice", [SuggestionEvent("builtin:book_review", "shown", question.created_at, kept.id, 0.7)]
    )
    services.close()

    assert copy(capsys, source, postgres_url)["memories"] == 5
    back = f"sqlite:///{tmp_path / 'back.db'}"
    assert copy(capsys, postgres_url, back)["memories"] == 5
    assert records(postgres_url) == records(source)
    assert records(back) == records(source)

    arrived = Services.over(open_store(postgres_url), TickingClock(), embedder)
    try:
        reply = arrived.search.search(Caller("alice"), "guitar", alpha=0.0).hits
        assert len(reply) == 2  # the question, and the reply through its context
        assert arrived.search.search(Caller("alice"), "science fiction novel", alpha=1.0).hits[0].memory.id == kept.id
        assert arrived.search.search(Caller("alice"), "old note", deleted="only").hits[0].memory.id == gone.id
        assert arrived.store.index.index_settings()["embedding_dimension"] == "384"
    finally:
        arrived.close()


def test_a_large_copy_builds_the_hnsw_index_once_at_its_end(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    postgres_url: str,
    embedder: MiniLMEmbedder,
) -> None:
    import sys

    import psycopg

    from remember.store.postgres import bulk

    source = f"sqlite:///{tmp_path / 'source.db'}"
    services = Services.over(open_store(source), TickingClock(), embedder)
    services.memories.create_many(Caller("alice"), [{"content": f"errand {i} of the week"} for i in range(30)])
    services.close()
    monkeypatch.setattr(bulk, "REBUILD_AT_LEAST", 10)  # 30 memories are "large"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code = main(["db", "copy", source, postgres_url])
    _, err = capsys.readouterr()
    assert code == 0 and "building the vector index of about 30 memories" in err
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'memory_vectors'")]
    assert "memory_vectors_hnsw_384" in names
    arrived = Services.over(open_store(postgres_url), TickingClock(), embedder)
    try:
        assert (
            arrived.search.search(Caller("alice"), "errand 17", alpha=1.0).hits[0].memory.content
            == "errand 17 of the week"
        )
    finally:
        arrived.close()
