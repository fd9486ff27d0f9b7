"""The service with the real multilingual model: thresholds on the common scale, fusion across languages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from remember.caller import Caller
from remember.search.embedders import MultilingualEmbedder
from remember.service import Services
from remember.store import open_store

ALICE = Caller("alice")
ENGLISH = [
    "Lucas told me the bakery on Main Street closes early on Sundays.",
    "The quarterly budget review moved to Thursday afternoon.",
    "We watched the football match at Tom's place last night.",
    "I need to renew the car insurance before the end of July.",
    "The kids loved the aquarium, especially the sharks.",
    "Bought new running shoes, size 43, for the spring race.",
]
FRENCH = "Mon frère Lucas habite à Lyon depuis l'an dernier et travaille comme boulanger."


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


@pytest.fixture
def services(store_url: str, e5: MultilingualEmbedder) -> Iterator[Services]:
    store = open_store(store_url)
    made = Services.over(store, embedder=e5)
    yield made
    made.close()
    store.close()


def test_a_german_question_finds_the_french_memory_before_english_ones_sharing_its_words(services: Services) -> None:
    services.memories.create_many(ALICE, [{"content": text} for text in ENGLISH])
    french = services.memories.create(ALICE, {"content": FRENCH})
    results = services.search.search(ALICE, "Wo wohnt mein Bruder Lucas und was arbeitet er?", explain=True)
    assert results.hits[0].memory.id == french.id
    assert results.plan is not None
    assert results.plan["vector"]["languages"].startswith("question in de;")


def test_dedup_uses_the_threshold_on_the_common_scale(services: Services) -> None:
    first = services.memories.store_new(ALICE, {"content": "Le dentiste m'a dit de revenir dans six mois."})
    assert first.duplicate is None
    # Distinct things said, which e5 puts far above 0.8 (its unrelated sentences sit near 0.83).
    for text in ("Le plombier viendra jeudi à 14 heures.", "Ma voiture doit passer le contrôle technique en mars."):
        assert services.memories.store_new(ALICE, {"content": text}).duplicate is None
    again = services.memories.store_new(ALICE, {"content": "Le dentiste m'a dit de revenir dans six mois !"})
    assert again.duplicate is not None and again.duplicate.memory_id == first.memory.id


def test_an_off_topic_search_finds_nothing_unless_asked(services: Services) -> None:
    made = services.memories.create_many(ALICE, [{"content": text} for text in ENGLISH[1:]])
    assert services.search.search(ALICE, "quantum chromodynamics lattice gauge theory").hits == []
    every = services.search.search(ALICE, "quantum chromodynamics lattice gauge theory", min_score=-1).hits
    assert {h.memory.id for h in every} == {m.id for m in made}


def test_similar_reads_min_similarity_on_the_common_scale(services: Services) -> None:
    made = services.memories.create_many(ALICE, [{"content": text} for text in [*ENGLISH, FRENCH]])
    near = services.search.similar(ALICE, text_query="Où habite mon frère ?", min_similarity=0.5)
    assert [h.memory.id for h in near] == [made[-1].id]
    assert len(services.search.similar(ALICE, text_query="Où habite mon frère ?", min_similarity=-1.0)) == len(made)


def test_a_note_in_french_is_suggested_its_template_by_meaning(services: Services) -> None:
    found = services.suggestions.suggest(ALICE, "J'ai fini de lire Le Petit Prince")
    assert [s.template_id for s in found][:1] == ["builtin:book_review"]
    spanish = services.suggestions.suggest(ALICE, "Reunión con el equipo de marketing el martes para el lanzamiento")
    assert [s.template_id for s in spanish][:1] == ["builtin:meeting_notes"]
    for small_talk in ("Merci beaucoup !", "Wie geht es dir?", "Il fait beau aujourd'hui"):
        assert services.suggestions.suggest(ALICE, small_talk) == [], small_talk
    english = services.suggestions.suggest(ALICE, "I finished reading The Little Prince")
    assert [s.template_id for s in english][:1] == ["builtin:book_review"]
