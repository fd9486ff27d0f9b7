"""The ranked keyword index of SQLite (store/sqlite/ranked.py), at a small size with its threshold lowered.

Its answers are compared with FTS5's over the same store (the memories holding a
query's words), so these tests fail if the index misses a memory, returns one it
should not (deleted, purged, another user's), or misses a change made since it
last caught up.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import tantivy

from remember.search.embedders import MiniLMEmbedder
from remember.search.text import query_terms
from remember.service import Services
from remember.store import open_store
from remember.store.sqlite import ranked, ranked_search
from remember.store.sqlite.store import SqliteStore

USER = "alice"
PEOPLE = ["my sister", "the landlord", "our dentist", "the piano teacher", "a colleague", "the plumber"]
THINGS = ["the rent", "a hiking trip", "the flu shot", "concert tickets", "the broken boiler", "a birthday cake",
          "tax forms", "the car service", "a yoga class", "the wedding gift"]  # fmt: skip
QUERIES = ["boiler", "birthday cake for my sister", "tickets to the concert", "piano", "rent landlord",
           "hiking with a colleague", "yoga", "tax"]  # fmt: skip


def _notes() -> list[str]:
    return [f"{p} talked about {t} (note {i})" for i, (p, t) in enumerate((p, t) for p in PEOPLE for t in THINGS)]


def _store(services: Services) -> SqliteStore:
    assert isinstance(services.store, SqliteStore)
    return services.store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "many.db"


@pytest.fixture
def services(db: Path, embedder: MiniLMEmbedder) -> Iterator[Services]:
    services = Services.over(open_store(str(db), keyword_index_min=None), embedder=embedder)
    services.memories.create_many(USER, [{"content": text} for text in _notes()])
    _store(services).keyword_index_min = 10
    yield services
    services.close()


def _ranked(services: Services, query: str, limit: int = 500) -> list[tuple[str, float]]:
    found = _store(services).ranked_keyword_candidates(USER, query_terms(query), limit=limit)
    assert found is not None, "the ranked index should answer"
    return found


def _fts5(services: Services, query: str, limit: int = 500) -> list[tuple[str, float]]:
    store = _store(services)
    return store.keyword_candidates(USER, query_terms(query), filter=None, deleted="exclude", limit=limit)


def _contents(services: Services, hits: list[tuple[str, float]]) -> list[str]:
    return [services.memories.get(USER, memory_id).content for memory_id, _ in hits]


def _index_dirs(db: Path) -> list[Path]:
    return [p for p in Path(str(db) + ".keywords").iterdir() if not p.name.startswith(".")]


def test_the_ranked_index_finds_what_fts5_finds(services: Services, db: Path) -> None:
    for query in QUERIES:
        assert {m for m, _ in _ranked(services, query)} == {m for m, _ in _fts5(services, query)}, query
    (folder,) = _index_dirs(db)
    assert (folder / ranked.STATE).is_file()


def test_more_of_the_query_ranks_first_and_the_limit_holds(services: Services) -> None:
    hits = _ranked(services, "birthday cake for my sister", limit=3)
    assert len(hits) == 3 and [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    # the note itself, or the next one, which holds it as its context (memories close in time are one conversation)
    assert any(c.startswith("my sister talked about a birthday cake") for c in _contents(services, hits)[:2])
    assert _ranked(services, "zeppelin quasar") == []


@pytest.mark.parametrize(
    "query",
    ['"boiler', "boiler:rent", "rent*", "NOT boiler", "(boiler) AND -rent", "ünïcödé café", "x" * 300, "🙂 boiler"],
)
def test_hostile_queries_are_words_not_syntax(services: Services, query: str) -> None:
    found = {m for m, _ in _ranked(services, query)}
    assert found == {m for m, _ in _fts5(services, query)}


def test_every_change_is_seen_by_the_next_search(services: Services) -> None:
    (boiler,) = _ranked(services, "boiler plumber", limit=1)
    memory_id = boiler[0]
    services.memories.update(USER, memory_id, {"content": "the plumber fixed the kettle"})
    assert memory_id not in {m for m, _ in _ranked(services, "boiler")}
    assert memory_id in {m for m, _ in _ranked(services, "kettle")}
    services.memories.delete(USER, memory_id)
    assert memory_id not in {m for m, _ in _ranked(services, "kettle")}
    services.memories.restore(USER, memory_id)
    assert memory_id in {m for m, _ in _ranked(services, "kettle")}
    added = services.memories.create(USER, {"content": "a kettle descaler from the market"})
    kettles = {m for m, _ in _ranked(services, "kettle")}
    assert {memory_id, added.id} <= kettles and kettles == {m for m, _ in _fts5(services, "kettle")}
    for query in QUERIES:
        assert {m for m, _ in _ranked(services, query)} == {m for m, _ in _fts5(services, query)}, query


def test_a_purged_memory_is_never_returned_and_leaves_the_index(services: Services) -> None:
    ((memory_id, _),) = _ranked(services, "yoga dentist", limit=1)
    store = _store(services)
    services.memories.delete(USER, memory_id, permanent=True)
    assert memory_id not in {m for m, _ in _ranked(services, "yoga dentist")}
    index = store._ranked_for(USER)
    assert index is not None and index._users[USER].gone  # seen stale by that search
    services.memories.create(USER, {"content": "one more note"})
    _ranked(services, "yoga")
    assert not index._users[USER].gone  # dropped from the index at the catch-up
    assert {m for m, _ in _ranked(services, "yoga")} == {m for m, _ in _fts5(services, "yoga")}


def test_the_context_follows_an_edit_of_the_memory_before(services: Services) -> None:
    first = services.memories.create(
        USER, {"content": "we planned a trip to Zanzibar", "context": {"conversation_id": "c1"}}
    )
    second = services.memories.create(
        USER, {"content": "she will book the flights", "context": {"conversation_id": "c1"}}
    )
    assert second.id in {m for m, _ in _ranked(services, "zanzibar")}  # found through its context
    services.memories.update(USER, first.id, {"content": "we planned a trip to Lisbon"})
    assert second.id not in {m for m, _ in _ranked(services, "zanzibar")}
    assert {first.id, second.id} <= {m for m, _ in _ranked(services, "lisbon")}


def test_other_users_memories_are_never_returned(services: Services) -> None:
    bob = services.memories.create_many("bob", [{"content": f"bob's boiler note {i}"} for i in range(20)])
    _store(services).build_keyword_index("bob")
    mine = {m for m, _ in _ranked(services, "boiler bob")}
    assert mine and mine.isdisjoint({m.id for m in bob})
    theirs = _store(services).ranked_keyword_candidates("bob", ["boiler"], limit=50)
    assert theirs is not None and {m for m, _ in theirs} == {m.id for m in bob}


def test_a_missing_index_is_built_again(services: Services, db: Path) -> None:
    before = _ranked(services, "boiler")
    shutil.rmtree(Path(str(db) + ".keywords"))
    assert _ranked(services, "boiler") == before
    assert len(_index_dirs(db)) == 1


def test_a_damaged_index_is_built_again(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    before = _ranked(services, "boiler")
    (folder,) = _index_dirs(db)
    services.close()
    for path in folder.iterdir():
        if path.name != ranked.STATE:
            path.write_bytes(b"\0garbage" * 8)
    again = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        assert _ranked(again, "boiler") == before
        assert _index_dirs(db) != [folder]
    finally:
        again.close()


def test_an_index_of_a_later_database_is_built_again(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    """A database restored from an earlier copy: the index holds memories it never had."""
    _ranked(services, "boiler")
    services.close()
    shutil.copy(db, db.with_suffix(".copy"))
    later = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    added = later.memories.create_many(USER, [{"content": f"a quince jam recipe {i}"} for i in range(5)])
    assert len(_ranked(later, "quince")) == 5
    later.close()
    shutil.copy(db.with_suffix(".copy"), db)
    restored = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        assert _ranked(restored, "quince") == []
        assert {m.id for m in added}.isdisjoint(m for m, _ in _ranked(restored, "jam recipe"))
    finally:
        restored.close()


def test_another_writer_leaves_the_search_to_fts5(services: Services, db: Path) -> None:
    _ranked(services, "boiler")
    (folder,) = _index_dirs(db)
    holder = tantivy.Index.open(str(folder))
    writer = holder.writer(heap_size=15_000_000, num_threads=1)  # as another process would hold it
    try:
        added = services.memories.create(USER, {"content": "the boiler was serviced today"})
        assert _store(services).ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        found = services.search.search(USER, "boiler serviced", alpha=0.0)
        assert found.hits[0].memory.id == added.id  # FTS5 answered
    finally:
        del writer
    _store(services)._ranked_for(USER)._failed.clear()  # type: ignore[union-attr]  # no wait for the retry
    assert added.id in {m for m, _ in _ranked(services, "boiler")}


def test_a_place_that_cannot_be_written_leaves_the_search_to_fts5(db: Path, embedder: MiniLMEmbedder) -> None:
    Path(str(db) + ".keywords").write_text("not a directory")
    services = Services.over(open_store(str(db), keyword_index_min=None), embedder=embedder)
    try:
        services.memories.create_many(USER, [{"content": text} for text in _notes()])
        _store(services).keyword_index_min = 10
        assert _store(services).ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        assert services.search.search(USER, "boiler", alpha=0.0).hits
    finally:
        services.close()


def test_many_changes_are_caught_up_in_the_background(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    _ranked(services, "boiler")
    monkeypatch.setattr(ranked_search, "CATCH_UP_INLINE", 5)
    added = services.memories.create_many(USER, [{"content": f"a marmalade jar {i}"} for i in range(12)])
    store = _store(services)
    assert store.ranked_keyword_candidates(USER, ["marmalade"], limit=50) is None  # FTS5 answers meanwhile
    assert {m.id for m in added} == {m for m, _ in _eventually(store, ["marmalade"])}


def test_a_large_user_gets_the_index_built_in_the_background(
    services: Services, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked_search, "BUILD_INLINE_AT", 10)
    store = _store(services)
    assert store.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    assert {m for m, _ in _eventually(store, ["boiler"])} == {m for m, _ in _fts5(services, "boiler")}
    assert len(_index_dirs(db)) == 1


def test_a_build_in_bulk_and_the_threshold(services: Services, db: Path) -> None:
    store = _store(services)
    shown: list[tuple[int, int]] = []
    assert store.build_keyword_index(USER, lambda done, total: shown.append((done, total)))
    assert shown[-1] == (60, 60) and len(_index_dirs(db)) == 1
    store.keyword_index_min = 61
    assert not store.build_keyword_index(USER)
    assert store.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    store.keyword_index_min = None
    assert store.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None


def test_a_search_through_the_service_uses_the_index_only_without_a_filter(services: Services) -> None:
    services.memories.update(USER, _ranked(services, "yoga", limit=1)[0][0], {"tags": ["gym"]})
    unfiltered = services.search.search(USER, "yoga class", alpha=0.0, limit=20)
    assert {r.memory.id for r in unfiltered.hits} == {m for m, _ in _ranked(services, "yoga class", limit=20)}
    filtered = services.search.search(USER, "yoga class", alpha=0.0, filters={"tags": {"all": ["gym"]}})
    assert [list(r.memory.tags) for r in filtered.hits] == [["gym"]]


def _eventually(store: SqliteStore, terms: list[str]) -> list[tuple[str, float]]:
    for _ in range(400):
        found = store.ranked_keyword_candidates(USER, terms, limit=50)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError("the index was not ready within 20 s")
