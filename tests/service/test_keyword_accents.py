"""Keywords with accents and case folded on both backends, in every language, with the real models: PostgreSQL's
``english`` configuration keeps accents, so the store folds them itself (migration 0020); SQLite's FTS5 folds them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from remember.caller import Caller
from remember.search import text
from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder
from remember.service import Services
from remember.store import open_store

ALICE, BOB = Caller("alice"), Caller("bob")
MULLER = "Termin mit Frau Müller am Dienstag wegen der Steuererklärung und der Belege."
RESUME = "I sent my updated résumé to the recruiter at the design agency this morning."
CAFE = "Le café près de la gare ferme à dix-neuf heures le dimanche, même en été."


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


def _services(store_url: str, embedder: object) -> Iterator[Services]:
    store = open_store(store_url)
    made = Services.over(store, embedder=embedder)  # type: ignore[arg-type]
    yield made
    made.close()
    store.close()


@pytest.fixture(params=["minilm", "e5"])
def services(request: pytest.FixtureRequest, store_url: str, embedder: MiniLMEmbedder) -> Iterator[Services]:
    chosen = embedder if request.param == "minilm" else request.getfixturevalue("e5")
    yield from _services(store_url, chosen)


def _store(services: Services, caller: Caller, *texts: str) -> None:
    """Each text a memory of its own conversation (none is another's context, which is indexed with it)."""
    services.memories.create_many(
        caller, [{"content": t, "context": {"conversation_id": f"c{i}"}} for i, t in enumerate(texts)]
    )


def _keywords(services: Services, caller: Caller, query: str) -> list[str]:
    """The memories the keyword side of a search for ``query`` finds, best first (the search's own terms)."""
    found = services.store.index.keyword_candidates(
        caller.user, text.query_terms(query), filter=None, deleted="exclude", limit=10
    )
    contents = {m.id: m.content for m in services.memories.list(caller).items}
    return [contents[memory_id] for memory_id, _ in found]


def test_accents_and_case_are_folded_in_every_language(services: Services) -> None:
    _store(services, ALICE, MULLER, RESUME, CAFE)
    assert _keywords(services, ALICE, "muller") == [MULLER]
    assert _keywords(services, ALICE, "MÜLLER") == [MULLER]
    assert _keywords(services, ALICE, "Steuererklarung Belege") == [MULLER]
    assert _keywords(services, ALICE, "resume") == [RESUME]
    assert _keywords(services, ALICE, "résumés") == [RESUME]  # folded, then stemmed as English
    assert _keywords(services, ALICE, "cafe ete") == [CAFE]


def test_the_search_finds_the_memory_by_a_word_without_its_accents(services: Services) -> None:
    _store(services, ALICE, RESUME, CAFE)
    _store(services, BOB, MULLER)
    hits = services.search.search(ALICE, "Muller", alpha=0.0).hits
    assert MULLER not in [hit.memory.content for hit in hits]  # another user's memory is never found
    assert services.search.search(BOB, "Muller", alpha=0.0).hits[0].memory.content == MULLER
    assert services.search.search(ALICE, "resume recruiter", alpha=0.0).hits[0].memory.content == RESUME
