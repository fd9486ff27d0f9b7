"""`reindex` beside a live writer: an index entry is never replaced by an older one."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from remember.caller import Caller
from remember.search.embedders import HashEmbedder, MiniLMEmbedder
from remember.service import Services
from remember.service.reindex import BATCH, reindex
from remember.store import Store, open_store

ALICE = "alice"


@pytest.fixture
def two_stores(store_url: str) -> Iterator[tuple[Store, Store]]:
    """Two connections to one database, as a server and a `remember reindex` beside it have."""
    first, second = open_store(store_url), open_store(store_url)
    yield first, second
    first.close()
    second.close()


class UpdatingWhileEmbedding(HashEmbedder):
    """An embedder during whose first batch another writer changes memories of that batch."""

    def __init__(self, change: Any) -> None:
        super().__init__()
        self.change = change

    def embed(self, texts: Sequence[str]) -> Any:
        if self.change is not None and len(texts) > 1:
            change, self.change = self.change, None
            change()
        return super().embed(texts)


def found_by(services: Services, word: str) -> set[str]:
    return {h.memory.id for h in services.search.search(Caller(ALICE), word, alpha=0.0, limit=100).hits}


def test_reindex_keeps_the_entries_of_changes_made_while_it_embeds(two_stores: tuple[Store, Store]) -> None:
    server_store, reindex_store = two_stores
    server = Services.over(server_store, embedder=HashEmbedder())
    made = server.memories.create_many(
        Caller(ALICE),
        [{"content": f"old wording number {i}", "context": {"conversation_id": f"c{i}"}} for i in range(40)],
    )
    changed = [m.id for m in made[::4]]

    def change() -> None:  # the server, on its own connection, while the reindex holds its snapshot
        for memory_id in changed:
            server.memories.update(Caller(ALICE), memory_id, {"content": "fresh wording"})

    beside = Services.over(reindex_store, embedder=UpdatingWhileEmbedding(change))
    assert reindex(beside.store, beside.indexer, beside.templates) == len(made)
    assert found_by(server, "fresh") == set(changed)
    assert found_by(server, "old") == {m.id for m in made} - set(changed)


class OvertakenWhileEmbedding:
    """The real model, whose every batch waits until another writer has finished one more round of
    updates since the batch began: each batch is overtaken, however fast the machine."""

    def __init__(self, model: MiniLMEmbedder) -> None:
        self.model = model
        self.rounds = 0
        self.changed = threading.Condition()

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dimension(self) -> int:
        return self.model.dimension

    def round_done(self) -> None:
        with self.changed:
            self.rounds += 1
            self.changed.notify_all()

    def embed(self, texts: Sequence[str]) -> Any:
        with self.changed:
            began = self.rounds
            assert self.changed.wait_for(lambda: self.rounds > began, timeout=120), "the writer stopped"
        return self.model.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.model.embed_query(text)


def test_reindex_under_a_stream_of_updates_leaves_no_stale_entry(
    two_stores: tuple[Store, Store], embedder: MiniLMEmbedder
) -> None:
    server_store, reindex_store = two_stores
    server = Services.over(server_store, embedder=embedder)
    made = server.memories.create_many(
        Caller(ALICE),
        [{"content": f"first text r0x{i}", "context": {"conversation_id": f"c{i}"}} for i in range(2 * BATCH + 50)],
    )
    done = threading.Event()
    overtaken = OvertakenWhileEmbedding(embedder)
    rounds: list[int] = [0]

    def keep_updating() -> None:
        while not done.is_set():
            rounds[0] += 1
            for index in range(rounds[0] % 7, len(made), 7):
                server.memories.update(Caller(ALICE), made[index].id, {"content": f"later text r{rounds[0]}x{index}"})
            overtaken.round_done()

    writer = threading.Thread(target=keep_updating)
    writer.start()
    beside = Services.over(reindex_store, embedder=overtaken)
    try:
        reindex(beside.store, beside.indexer, beside.templates)
    finally:
        done.set()
        writer.join()
    assert rounds[0] >= 3  # a round of updates ran during each of the three batches
    now = [server.memories.get(Caller(ALICE), m.id, record_access=False) for m in made]
    stale = [m.id for m in now if found_by(server, m.content.split()[-1]) != {m.id}]
    assert stale == [], f"{len(stale)} of {len(made)} memories kept a stale entry after {rounds[0]} rounds of updates"
