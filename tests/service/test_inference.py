"""Template inference reads the memories' stored vectors and embeds only the memories without one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.infer import TODAY, mix
from conftest import TickingClock
from remember.caller import Caller
from remember.search import text
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.service.indexer import DIMENSION_KEY, MODEL_KEY
from remember.store import Store
from remember.templates.infer import Note, propose

ALICE = Caller("alice")


class Counting:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.dimension, self.texts = inner, inner.name, inner.dimension, 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)

    def embed_query(self, query: str) -> Any:
        return self.embed([query])[0]


def _stored(services: Services, rows: list[tuple[str, str | None]]) -> None:
    services.memories.create_many(ALICE, [{"content": content} for content, _ in rows])


def test_the_stored_vectors_are_read_not_embedded_again(
    store: Store, clock: TickingClock, embedder: MiniLMEmbedder
) -> None:
    rows = mix(per_kind=6)
    _stored(Services.over(store, clock, embedder), rows)
    counting = Counting(embedder)
    found = Services.over(store, clock, counting).inference.propose(ALICE)
    assert counting.texts == 0
    memories = Services.over(store, clock).memories.list(ALICE, sort_by="created_at", sort_order="asc", limit=100).items
    by_model = embedder.embed([text.vector_text(m.title, m.content) for m in memories])
    expected = propose([Note(m.id, m.content, list(v)) for m, v in zip(memories, by_model, strict=True)], TODAY)
    assert [p.member_ids for p in found.proposals] == [p.member_ids for p in expected]
    assert len(found.proposals) >= 4


def test_only_a_memory_without_a_vector_is_embedded(
    store: Store, clock: TickingClock, embedder: MiniLMEmbedder
) -> None:
    _stored(Services.over(store, clock, embedder), mix(per_kind=4))
    Services.over(store, clock).memories.create(ALICE, {"content": "Stored while no embedder was configured"})
    counting = Counting(embedder)
    Services.over(store, clock, counting).inference.propose(ALICE)
    assert counting.texts == 1


def test_vectors_of_another_model_are_not_used(store: Store, clock: TickingClock, embedder: MiniLMEmbedder) -> None:
    rows = mix(per_kind=4)
    _stored(Services.over(store, clock, embedder), rows)
    store.index.set_index_settings({MODEL_KEY: "another-model", DIMENSION_KEY: "384"})
    counting = Counting(embedder)
    Services.over(store, clock, counting).inference.propose(ALICE)
    assert counting.texts == len(rows)
