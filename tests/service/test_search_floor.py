"""The relevance floor: what no keyword found and is far in meaning is left out of searches (real model)."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.service import RelationshipDraft, Services
from remember.service.question_context import question_context

ALICE = "alice"
NOTES = [
    "Had great sushi at Nobu last Friday with Tom.",
    "My dog Rex loves running on the beach.",
    "Dentist appointment moved to Tuesday at 3pm.",
    "Finished reading Dune by Frank Herbert; five stars.",
    "Mom's birthday is on the 14th of March; she likes orchids.",
]
OFF_TOPIC = ["tracer bullets", "How do I configure a Kubernetes ingress controller?"]


@pytest.fixture
def notes(services: Services) -> list[str]:
    made = services.memories.create_many(
        Caller(ALICE), [{"content": n, "context": {"conversation_id": f"note-{i}"}} for i, n in enumerate(NOTES)]
    )
    return [m.id for m in made]


def ids(services: Services, query: str, **options: Any) -> list[str]:
    return [h.memory.id for h in services.search.search(Caller(ALICE), query, **options).hits]


@pytest.mark.parametrize("query", OFF_TOPIC)
def test_an_off_topic_search_finds_nothing_unless_asked_for_everything(
    services: Services, notes: list[str], query: str
) -> None:
    assert ids(services, query) == []
    assert ids(services, query, alpha=1.0) == []
    assert sorted(ids(services, query, min_score=-1)) == sorted(notes)  # every candidate, as without a floor


def test_what_only_meaning_finds_passes_the_default_floor(services: Services, notes: list[str]) -> None:
    assert ids(services, "raw fish cuisine")[0] == notes[0]  # no word in common
    assert ids(services, "when is the tooth doctor")[0] == notes[2]


def test_a_keyword_match_is_kept_however_far_its_meaning(services: Services, notes: list[str]) -> None:
    found = services.search.search(Caller(ALICE), "Herbert", min_score=1.0, explain=True)
    assert [h.memory.id for h in found.hits] == [notes[3]]
    assert found.hits[0].why is not None and found.hits[0].why["cosine"] < 1.0
    assert found.plan is not None
    assert found.plan["vector"]["floor"] == "4 found by meaning alone left out, their cosine below 1"
    assert ids(services, "Herbert", alpha=0.0, min_score=1.0) == [notes[3]]


def test_the_floor_leaves_the_scores_of_the_rest_as_they_were(services: Services, notes: list[str]) -> None:
    every = {h.memory.id: h.score for h in services.search.search(Caller(ALICE), "pets", min_score=-1).hits}
    kept = {h.memory.id: h.score for h in services.search.search(Caller(ALICE), "pets").hits}
    assert kept and len(kept) < len(every)
    assert all(every[i] == score for i, score in kept.items())


def test_the_default_floor_is_a_preference(services: Services, notes: list[str]) -> None:
    services.preferences.update(Caller(ALICE), "search.min_score", 0.9)
    assert ids(services, "raw fish cuisine") == []
    assert ids(services, "raw fish cuisine", min_score=0.0)[0] == notes[0]
    services.preferences.update(Caller(ALICE), "search.min_score", -1)
    assert len(ids(services, "tracer bullets")) == len(notes)


@pytest.mark.parametrize("bad", [2, -1.5, "high", float("nan"), True])
def test_min_score_is_checked(services: Services, notes: list[str], bad: Any) -> None:
    with pytest.raises(ValidationFailed, match="min_score must be a number from -1 to 1"):
        services.search.search(Caller(ALICE), "sushi", min_score=bad)
    with pytest.raises(ValidationFailed, match="min_score must be a number from -1 to 1"):
        services.related.search(Caller(ALICE), "sushi", min_score=bad)


def test_the_context_of_an_off_topic_question_is_empty(services: Services, notes: list[str]) -> None:
    asked = question_context(services.search, Caller(ALICE), "tracer bullets", templates=services.templates)
    assert asked.sources == [] and asked.text == ""
    every = question_context(
        services.search, Caller(ALICE), "tracer bullets", templates=services.templates, min_score=-1
    )
    assert len(every.sources) == len(notes)


def test_relationship_search_has_the_same_floor(services: Services, notes: list[str]) -> None:
    draft = RelationshipDraft([notes[0], notes[1]], "same_week", "Tom came to the beach with Rex after sushi")
    rid = services.relationships.create(Caller(ALICE), draft).id
    search = services.related.search
    assert [h.relationship.id for h in search(Caller(ALICE), "a walk with the dog by the sea").hits] == [rid]
    assert search(Caller(ALICE), "tracer bullets").hits == []
    assert search(Caller(ALICE), "tracer bullets", alpha=1.0).hits == []
    assert [h.relationship.id for h in search(Caller(ALICE), "tracer bullets", min_score=-1).hits] == [rid]
    assert [h.relationship.id for h in search(Caller(ALICE), "Rex", min_score=1.0).hits] == [rid]  # a keyword
