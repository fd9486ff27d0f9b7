"""Conflict hints read their cosine threshold through the embedder's scale, as dedup does: with MiniLM (the
common scale) and with multilingual-e5 (whose unrelated sentences sit near 0.83), the same pairs are named
and the same are not, and the newer of two that disagree ranks first. Real models, both backends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder
from remember.search.embedders.scale import scale_of
from remember.service import Services, conflicts
from remember.store import open_store

ALICE = Caller("alice")
RENT = ("The rent for my flat is $1,200 a month.", "The rent for my flat is $1,350 a month.")
UNRELATED = [
    "The quarterly budget review moved to Thursday afternoon.",
    "We watched the football match at Tom's place last night.",
    "I need to renew the car insurance before the end of July.",
    "Bought new running shoes, size 43, for the spring race.",
]


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


@pytest.fixture(params=["minilm", "e5"])
def services(
    request: pytest.FixtureRequest, store_url: str, embedder: MiniLMEmbedder, e5: MultilingualEmbedder
) -> Iterator[Services]:
    store = open_store(store_url)
    made = Services.over(store, embedder=embedder if request.param == "minilm" else e5)
    yield made
    made.close()
    store.close()


def test_the_threshold_is_the_embedder_s_own_cosine(e5: MultilingualEmbedder) -> None:
    own = scale_of(e5).passages.own(conflicts.COSINE)
    assert own > 0.8  # where e5 puts what MiniLM puts at 0.4
    near_for_minilm = (own + conflicts.COSINE) / 2  # near on MiniLM's scale, far on e5's
    assert conflicts.disagree(*RENT, near_for_minilm)  # read on the common scale: near enough
    assert not conflicts.disagree(*RENT, near_for_minilm, own)  # read through e5's scale: too far
    assert conflicts.disagree(*RENT, own + 0.01, own)


def test_a_near_memory_with_another_amount_is_named_with_either_embedder(services: Services) -> None:
    services.memories.create_many(ALICE, [{"content": text} for text in UNRELATED])
    old = services.memories.store_new(ALICE, {"content": RENT[0], "context": {"timestamp": "2024-01-01"}}).memory
    new = services.memories.store_new(ALICE, {"content": RENT[1], "context": {"timestamp": "2025-01-01"}})
    assert [h.memory_id for h in new.conflicts] == [old.id]
    assert new.conflicts[0].similarity >= services.indexer.scale.passages.own(conflicts.COSINE)
    (hint,) = new.conflicts
    assert [(d.kind, d.before, d.after) for d in hint.differences] == [("amount", ("$1200",), ("$1350",))]


def test_unrelated_memories_raise_no_hint_with_either_embedder(services: Services) -> None:
    for text in UNRELATED:
        assert services.memories.store_new(ALICE, {"content": text}).conflicts == ()


def test_the_newer_of_two_that_disagree_ranks_first_with_either_embedder(services: Services) -> None:
    services.memories.create_many(ALICE, [{"content": text} for text in UNRELATED])
    services.memories.create(ALICE, {"content": RENT[1], "context": {"timestamp": "2025-01-01"}})
    services.memories.create(ALICE, {"content": RENT[0], "context": {"timestamp": "2024-01-01"}})
    hits = services.search.search(ALICE, "how much is the rent for my flat?").hits
    assert hits[0].memory.content == RENT[1]
