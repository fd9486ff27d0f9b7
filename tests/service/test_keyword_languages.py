"""Keywords of text that is not English, on both backends with the real models: a memory told in another
language (the multilingual embedder's detector) is indexed without English stemming, a search matches its
terms both ways, accents and case are folded everywhere, and with MiniLM (no detector) nothing changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.search import text
from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder
from remember.service import Services
from remember.service.import_export.jsonl import export_records, import_records
from remember.service.reindex import reindex
from remember.store import open_store

ALICE, BOB = Caller("alice"), Caller("bob")
GENERAL = "Le général Dupont a visité la caserne de Lyon hier matin avec ses officiers."
DOOR = "La porte du garage grince beaucoup quand il fait froid le matin."
HARBOUR = "Le bateau de mon oncle est resté au port de Marseille tout l'hiver."
MULLER = "Termin mit Frau Müller am Dienstag wegen der Steuererklärung und der Belege."
RESUME = "I sent my updated résumé to the recruiter at the design agency this morning."
RUNS = "She runs along the river every morning before work, rain or shine."


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


def _services(store_url: str, embedder: object) -> Iterator[Services]:
    store = open_store(store_url)
    made = Services.over(store, embedder=embedder)  # type: ignore[arg-type]
    yield made
    made.close()
    store.close()


@pytest.fixture
def services(store_url: str, e5: MultilingualEmbedder) -> Iterator[Services]:
    yield from _services(store_url, e5)


@pytest.fixture
def english_services(store_url: str, embedder: MiniLMEmbedder) -> Iterator[Services]:
    yield from _services(store_url, embedder)


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


def _languages(services: Services) -> dict[str, str | None]:
    """Each memory's recorded language, read from the index table."""
    with services.store.backend.db.read() as conn:  # type: ignore[attr-defined]
        rows = conn.execute(
            "SELECT m.content, i.language FROM memory_index i JOIN memories m "
            "ON m.user_id = i.user_id AND m.id = i.memory_id"
        ).fetchall()
    return {str(content): language for content, language in rows}


def test_a_french_word_is_not_stemmed_as_english(services: Services) -> None:
    """English stemmers make "porte" (a door) "port" (a harbour): told French, neither is stemmed."""
    _store(services, ALICE, DOOR, HARBOUR, RUNS)
    assert _keywords(services, ALICE, "porte") == [DOOR]
    assert _keywords(services, ALICE, "PORT") == [HARBOUR]
    assert _keywords(services, ALICE, "running") == [RUNS]  # English words are still stemmed
    assert _languages(services) == {DOOR: "fr", HARBOUR: "fr", RUNS: "en"}


def test_accents_and_case_are_folded_in_every_language(services: Services) -> None:
    _store(services, ALICE, MULLER, RESUME, GENERAL)
    assert _keywords(services, ALICE, "muller") == [MULLER]
    assert _keywords(services, ALICE, "Muller Belege") == [MULLER]
    assert _keywords(services, ALICE, "resume") == [RESUME]
    assert _keywords(services, ALICE, "STEUERERKLARUNG") == [MULLER]
    assert _keywords(services, ALICE, "general") == [GENERAL]


def test_an_edit_moves_a_memory_between_the_kinds_of_keywords(services: Services) -> None:
    made = services.memories.create(ALICE, {"content": DOOR})
    services.memories.update(ALICE, made.id, {"content": "The port authority closed the harbour gate on Monday."})
    assert _keywords(services, ALICE, "ports") != []  # English now: stemmed
    assert set(_languages(services).values()) == {"en"}
    services.memories.update(ALICE, made.id, {"content": HARBOUR})
    assert _keywords(services, ALICE, "porte") == []
    assert _keywords(services, ALICE, "port") == [HARBOUR]


def test_another_users_memories_are_never_found(services: Services) -> None:
    _store(services, BOB, DOOR)
    assert _keywords(services, ALICE, "porte") == []
    assert _keywords(services, BOB, "porte") == [DOOR]


def test_with_minilm_every_memory_is_stemmed_as_english_as_before(english_services: Services) -> None:
    """No detector: no language is recorded, and the French words are stemmed as English ones."""
    _store(english_services, ALICE, DOOR, HARBOUR)
    assert set(_keywords(english_services, ALICE, "porte")) == {DOOR, HARBOUR}
    assert set(_languages(english_services).values()) == {None}
    assert _keywords(english_services, ALICE, "Muller") == []


def test_a_reindex_tells_the_language_of_memories_stored_before(
    store_url: str, embedder: MiniLMEmbedder, e5: MultilingualEmbedder
) -> None:
    for made in _services(store_url, embedder):
        _store(made, ALICE, DOOR, HARBOUR)
    for made in _services(store_url, e5):
        assert set(_keywords(made, ALICE, "porte")) == {DOOR, HARBOUR}
        assert reindex(made.store, made.indexer, made.templates) == 2
        assert _languages(made) == {DOOR: "fr", HARBOUR: "fr"}
        assert _keywords(made, ALICE, "porte") == [DOOR]


def test_the_ranked_keyword_index_keeps_plain_words_apart(
    store_url: str, e5: MultilingualEmbedder, tmp_path: Path
) -> None:
    """Past ``keyword_index_min`` memories a search reads the ranked index (tantivy): the same answers."""
    store = open_store(store_url, keyword_index_min=3, keywords_home=tmp_path)
    services = Services.over(store, embedder=e5)
    try:
        _store(services, ALICE, DOOR, HARBOUR, RUNS, MULLER)
        assert services.indexer.build_keyword_index(ALICE.user)
        contents = {m.id: m.content for m in services.memories.list(ALICE).items}

        def ranked(query: str) -> list[str]:
            found = store.index.ranked_keyword_candidates(ALICE.user, text.query_terms(query), limit=10, filter=None)
            assert found is not None  # the ranked index answered
            return [contents[memory_id] for memory_id, _ in found]

        assert ranked("porte") == [DOOR]
        assert ranked("port") == [HARBOUR]
        assert ranked("running") == [RUNS]
        assert ranked("muller") == [MULLER]
    finally:
        services.close()
        store.close()


def test_an_import_tells_each_memorys_language(services: Services, tmp_path: Path, e5: MultilingualEmbedder) -> None:
    """An export's memories arrive with their vectors, and their language told as they are written."""
    _store(services, ALICE, DOOR, HARBOUR, RUNS)
    target = Services.over(open_store(str(tmp_path / "target.db")), embedder=e5)
    try:
        import_records(target.store, target.indexer, export_records(services.store))
        assert _languages(target) == {DOOR: "fr", HARBOUR: "fr", RUNS: "en"}
        assert _keywords(target, ALICE, "porte") == [DOOR]
    finally:
        target.close()
