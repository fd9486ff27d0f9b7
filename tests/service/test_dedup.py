"""Dedup on write on both backends, with the real embedding model."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from conftest import TickingClock
from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.service import Services, dedup
from remember.store import open_store

ALICE, BOB = "alice", "bob"
FACT = "Sarah is a product manager at Google."
PARAPHRASE = "Sarah works at Google as a product manager."


def count(services: Services, user: str = ALICE) -> int:
    return services.memories.list(Caller(user)).total


def test_a_retried_call_is_stored_once(services: Services) -> None:
    call = {"content": FACT, "tags": ["work"], "context": {"timestamp": "2026-01-05", "source": "chat"}}
    first = services.memories.store_new(Caller(ALICE), call)
    again = services.memories.store_new(Caller(ALICE), call)
    assert first.duplicate is None
    assert again.memory.id == first.memory.id
    assert again.duplicate is not None
    assert again.duplicate.as_dict() == {
        "memory_id": first.memory.id, "match": "repeat", "similarity": 1.0, "action": "skipped",
    }  # fmt: skip
    assert count(services) == 1


def test_a_retry_is_never_stored_twice_whatever_the_preference(services: Services) -> None:
    facts = {"keep": FACT, "skip": "The garage door code is 7391.", "merge": "Tom's birthday is on 14 July."}
    for mode, fact in facts.items():
        services.preferences.update(Caller(ALICE), "memory.on_duplicate", mode)
        services.memories.create(Caller(ALICE), {"content": fact})
        again = services.memories.store_new(Caller(ALICE), {"content": fact})
        assert again.duplicate is not None and again.duplicate.action == "skipped"
    assert count(services) == 3


def test_the_same_note_made_again_the_next_day_is_another_memory(services: Services, clock: TickingClock) -> None:
    first = services.memories.create(Caller(ALICE), {"content": "Took my vitamins"})
    retry = services.memories.store_new(Caller(ALICE), {"content": "Took my vitamins"})  # a second later: a retry
    assert retry.memory.id == first.id
    clock.start += dedup.RETRY_WINDOW + timedelta(seconds=5)
    later = services.memories.store_new(Caller(ALICE), {"content": "Took my vitamins"})
    assert later.memory.id != first.id
    assert later.duplicate is not None
    assert (later.duplicate.memory_id, later.duplicate.match, later.duplicate.action) == (first.id, "same", "stored")
    assert count(services) == 2


def test_the_same_text_with_other_fields_is_kept_and_named(services: Services) -> None:
    first = services.memories.create(Caller(ALICE), {"content": FACT, "weight": 0.2})
    second = services.memories.store_new(
        Caller(ALICE), {"content": "sarah is a product manager at google", "weight": 0.9}
    )
    assert second.memory.id != first.id
    assert second.duplicate is not None
    assert (second.duplicate.memory_id, second.duplicate.match, second.duplicate.action) == (first.id, "same", "stored")
    assert count(services) == 2


def test_a_paraphrase_is_kept_by_default_and_named(services: Services) -> None:
    first = services.memories.create(Caller(ALICE), {"content": FACT})
    second = services.memories.store_new(Caller(ALICE), {"content": PARAPHRASE})
    assert second.duplicate is not None
    assert (second.duplicate.memory_id, second.duplicate.match, second.duplicate.action) == (
        first.id, "similar", "stored",
    )  # fmt: skip
    assert 0.8 <= second.duplicate.similarity < 1
    assert count(services) == 2


def test_skip_stores_nothing_and_answers_the_existing_memory(services: Services) -> None:
    services.preferences.update(Caller(ALICE), "memory.on_duplicate", "skip")
    first = services.memories.create(Caller(ALICE), {"content": FACT})
    second = services.memories.store_new(Caller(ALICE), {"content": PARAPHRASE, "tags": ["new"]})
    assert second.memory == services.memories.get(Caller(ALICE), first.id, record_access=False)
    assert second.duplicate is not None and second.duplicate.action == "skipped"
    assert count(services) == 1


def test_merge_updates_the_existing_memory_with_history(services: Services) -> None:
    services.preferences.update(Caller(ALICE), "memory.on_duplicate", "merge")
    first = services.memories.create(Caller(ALICE), {"content": FACT, "tags": ["work"], "weight": 0.3})
    merged = services.memories.store_new(Caller(ALICE), {"content": PARAPHRASE, "tags": ["people"], "weight": 0.8})
    assert merged.duplicate is not None and merged.duplicate.action == "merged"
    memory = merged.memory
    assert (memory.id, memory.content, memory.tags, memory.weight, memory.version) == (
        first.id, PARAPHRASE, ("work", "people"), 0.8, 2,
    )  # fmt: skip
    [entry] = services.memories.history(Caller(ALICE), first.id)
    assert entry.previous == {"content": FACT, "tags": ["work"], "weight": 0.3}
    again = services.memories.store_new(Caller(ALICE), {"content": PARAPHRASE, "tags": ["people"], "weight": 0.8})
    assert again.memory.version == 2  # merging the same thing again changes nothing
    assert count(services) == 1


def test_distinct_memories_are_not_duplicates(services: Services) -> None:
    services.memories.create(Caller(ALICE), {"content": FACT})
    for text in ("Sarah's brother is a nurse in Leeds.", "Google's office in Zurich has a slide.", "Sarah"):
        assert services.memories.store_new(Caller(ALICE), {"content": text}).duplicate is None
    assert count(services) == 4


def test_other_users_and_trashed_memories_are_never_duplicates(services: Services) -> None:
    services.memories.create(Caller(BOB), {"content": FACT})
    trashed = services.memories.create(Caller(ALICE), {"content": FACT})
    services.memories.delete(Caller(ALICE), trashed.id)
    again = services.memories.store_new(Caller(ALICE), {"content": FACT})
    assert again.duplicate is None and again.memory.id != trashed.id


def test_a_memory_above_the_callers_trust_is_not_named(services: Services) -> None:
    secret = services.memories.create(Caller(ALICE), {"content": FACT, "trust": 0.9})
    for text in (FACT, PARAPHRASE):
        stored = services.memories.store_new(Caller(ALICE, 0.5), {"content": text, "trust": 0.5})
        assert stored.memory.id != secret.id
        assert stored.duplicate is None or stored.duplicate.memory_id != secret.id


def test_identical_creates_at_once_store_one_memory(services: Services) -> None:
    results: list[str] = []
    barrier = threading.Barrier(4)

    def create() -> None:
        barrier.wait()
        results.append(services.memories.store_new(Caller(ALICE), {"content": FACT, "tags": ["x"]}).memory.id)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1
    assert count(services) == 1


def test_an_unknown_mode_is_refused_and_changes_nothing(services: Services) -> None:
    with pytest.raises(ValidationFailed, match="must be one of keep, skip, merge"):
        services.preferences.update(Caller(ALICE), "memory.on_duplicate", "replace")
    assert services.preferences.effective(Caller(ALICE))["memory.on_duplicate"] == "keep"


def test_the_migration_hashes_memories_stored_before_it(tmp_path: Path, services: Services) -> None:
    path = tmp_path / "old.db"
    store = open_store(str(path))
    before = Services.over(store, embedder=services.indexer.embedder)
    made = before.memories.create(Caller(ALICE), {"content": FACT})
    store.close()
    with sqlite3.connect(path) as conn:  # the database as 0007 left it
        conn.execute("DROP INDEX memories_content_hash")
        conn.execute("ALTER TABLE memories DROP COLUMN content_hash")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0009_content_hash'")
    after = Services.over(open_store(str(path)), embedder=services.indexer.embedder)
    again = after.memories.store_new(Caller(ALICE), {"content": FACT})
    assert again.duplicate is not None and again.memory.id == made.id
    after.close()
