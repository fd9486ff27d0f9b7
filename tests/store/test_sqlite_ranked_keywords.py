"""The ranked keyword index of SQLite (store/index_files/), at a small size with its threshold lowered.

Its answers are compared with FTS5's over the same store (the memories holding a
query's words), so these tests fail if the index misses a memory, returns one it
should not (deleted, purged, another user's), or misses a change made since it
last caught up.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import tantivy

from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.search.text import query_terms
from remember.service import Services
from remember.store import Store, open_store
from remember.store.index_files import ranked_keywords as ranked_search
from remember.store.index_files import tantivy_index as ranked
from remember.store.sqlite.store import SqliteBackend

USER = "alice"
PEOPLE = ["my sister", "the landlord", "our dentist", "the piano teacher", "a colleague", "the plumber"]
THINGS = ["the rent", "a hiking trip", "the flu shot", "concert tickets", "the broken boiler", "a birthday cake",
          "tax forms", "the car service", "a yoga class", "the wedding gift"]  # fmt: skip
QUERIES = ["boiler", "birthday cake for my sister", "tickets to the concert", "piano", "rent landlord",
           "hiking with a colleague", "yoga", "tax"]  # fmt: skip


def _notes() -> list[str]:
    return [f"{p} talked about {t} (note {i})" for i, (p, t) in enumerate((p, t) for p in PEOPLE for t in THINGS)]


def _store(services: Services) -> Store:
    assert isinstance(services.store.backend, SqliteBackend)
    return services.store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "many.db"


@pytest.fixture
def services(db: Path, embedder: MiniLMEmbedder) -> Iterator[Services]:
    services = Services.over(open_store(str(db), keyword_index_min=None), embedder=embedder)
    services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
    _store(services).index.keyword_index_min = 10
    yield services
    services.close()


def _ranked(services: Services, query: str, limit: int = 500) -> list[tuple[str, float]]:
    found = _store(services).index.ranked_keyword_candidates(USER, query_terms(query), limit=limit)
    assert found is not None, "the ranked index should answer"
    return found


def _fts5(services: Services, query: str, limit: int = 500) -> list[tuple[str, float]]:
    store = _store(services)
    return store.index.keyword_candidates(USER, query_terms(query), filter=None, deleted="exclude", limit=limit)


def _contents(services: Services, hits: list[tuple[str, float]]) -> list[str]:
    return [services.memories.get(Caller(USER), memory_id).content for memory_id, _ in hits]


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
    # the plumber's boiler note itself (the note after it holds its words too, as its context)
    hits = _ranked(services, "boiler plumber", limit=5)
    (memory_id,) = [
        m
        for (m, _), c in zip(hits, _contents(services, hits), strict=True)
        if c.startswith("the plumber talked about the broken")
    ]
    services.memories.update(Caller(USER), memory_id, {"content": "the plumber fixed the kettle"})
    assert memory_id not in {m for m, _ in _ranked(services, "boiler")}
    assert memory_id in {m for m, _ in _ranked(services, "kettle")}
    services.memories.delete(Caller(USER), memory_id)
    assert memory_id not in {m for m, _ in _ranked(services, "kettle")}
    services.memories.restore(Caller(USER), memory_id)
    assert memory_id in {m for m, _ in _ranked(services, "kettle")}
    added = services.memories.create(Caller(USER), {"content": "a kettle descaler from the market"})
    kettles = {m for m, _ in _ranked(services, "kettle")}
    assert {memory_id, added.id} <= kettles and kettles == {m for m, _ in _fts5(services, "kettle")}
    for query in QUERIES:
        assert {m for m, _ in _ranked(services, query)} == {m for m, _ in _fts5(services, query)}, query


def test_a_purged_memory_is_never_returned_and_leaves_the_index(services: Services) -> None:
    ((memory_id, _),) = _ranked(services, "yoga dentist", limit=1)
    store = _store(services)
    services.memories.delete(Caller(USER), memory_id, permanent=True)
    assert memory_id not in {m for m, _ in _ranked(services, "yoga dentist")}
    index = store.index._ranked_for(USER)
    assert index is not None and index._users[USER].gone  # seen stale by that search
    services.memories.create(Caller(USER), {"content": "one more note"})
    _ranked(services, "yoga")
    assert not index._users[USER].gone  # dropped from the index at the catch-up
    assert {m for m, _ in _ranked(services, "yoga")} == {m for m, _ in _fts5(services, "yoga")}


def test_the_context_follows_an_edit_of_the_memory_before(services: Services) -> None:
    first = services.memories.create(
        Caller(USER), {"content": "we planned a trip to Zanzibar", "context": {"conversation_id": "c1"}}
    )
    second = services.memories.create(
        Caller(USER), {"content": "she will book the flights", "context": {"conversation_id": "c1"}}
    )
    assert second.id in {m for m, _ in _ranked(services, "zanzibar")}  # found through its context
    services.memories.update(Caller(USER), first.id, {"content": "we planned a trip to Lisbon"})
    assert second.id not in {m for m, _ in _ranked(services, "zanzibar")}
    assert {first.id, second.id} <= {m for m, _ in _ranked(services, "lisbon")}
    services.memories.delete(Caller(USER), first.id)  # its text leaves the context of the next while in the trash
    assert _ranked(services, "lisbon") == []
    services.memories.restore(Caller(USER), first.id)
    assert {first.id, second.id} <= {m for m, _ in _ranked(services, "lisbon")}
    services.memories.delete(Caller(USER), first.id, permanent=True)
    assert _ranked(services, "lisbon") == []
    assert [m for m, _ in _ranked(services, "flights")] == [second.id]


def test_other_users_memories_are_never_returned(services: Services) -> None:
    bob = services.memories.create_many(Caller("bob"), [{"content": f"bob's boiler note {i}"} for i in range(20)])
    _store(services).index.build_keyword_index("bob")
    mine = {m for m, _ in _ranked(services, "boiler bob")}
    assert mine and mine.isdisjoint({m.id for m in bob})
    theirs = _store(services).index.ranked_keyword_candidates("bob", ["boiler"], limit=50)
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
    added = later.memories.create_many(Caller(USER), [{"content": f"a quince jam recipe {i}"} for i in range(5)])
    assert len(_ranked(later, "quince")) == 5
    later.close()
    shutil.copy(db.with_suffix(".copy"), db)
    restored = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        assert _ranked(restored, "quince") == []
        assert {m.id for m in added}.isdisjoint(m for m, _ in _ranked(restored, "jam recipe"))
    finally:
        restored.close()


def test_an_index_of_a_later_database_is_told_apart_after_writes(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    """Restored from an earlier copy, then written to past the index's seq before any search."""
    _ranked(services, "boiler")
    services.close()
    shutil.copy(db, db.with_suffix(".copy"))
    later = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    later.memories.create_many(Caller(USER), [{"content": f"a quince jam recipe {i}"} for i in range(5)])
    assert len(_ranked(later, "quince")) == 5
    later.close()
    shutil.copy(db.with_suffix(".copy"), db)
    restored = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        fresh = restored.memories.create_many(Caller(USER), [{"content": f"a fig chutney label {i}"} for i in range(8)])
        assert {m for m, _ in _ranked(restored, "fig chutney")} == {m.id for m in fresh}
        assert _ranked(restored, "quince") == []
    finally:
        restored.close()


def test_another_writer_leaves_the_search_to_fts5(services: Services, db: Path) -> None:
    _ranked(services, "boiler")
    (folder,) = _index_dirs(db)
    holder = tantivy.Index.open(str(folder))
    writer = holder.writer(heap_size=15_000_000, num_threads=1)  # as another process would hold it
    try:
        added = services.memories.create(Caller(USER), {"content": "the boiler was serviced today"})
        assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        found = services.search.search(Caller(USER), "boiler serviced", alpha=0.0)
        assert found.hits[0].memory.id == added.id  # FTS5 answered
    finally:
        del writer
    assert added.id in {m for m, _ in _ranked(services, "boiler")}  # the next search catches up itself


def test_a_place_that_cannot_be_written_leaves_the_search_to_fts5(db: Path, embedder: MiniLMEmbedder) -> None:
    Path(str(db) + ".keywords").write_text("not a directory")
    services = Services.over(open_store(str(db), keyword_index_min=None), embedder=embedder)
    try:
        services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
        _store(services).index.keyword_index_min = 10
        assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        assert services.search.search(Caller(USER), "boiler", alpha=0.0).hits
    finally:
        services.close()


def test_many_changes_are_caught_up_in_the_background(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    _ranked(services, "boiler")
    monkeypatch.setattr(ranked_search, "CATCH_UP_INLINE", 5)
    added = services.memories.create_many(Caller(USER), [{"content": f"a marmalade jar {i}"} for i in range(12)])
    store = _store(services)
    assert store.index.ranked_keyword_candidates(USER, ["marmalade"], limit=50) is None  # FTS5 answers meanwhile
    assert {m.id for m in added} == {m for m, _ in _eventually(store, ["marmalade"])}


def test_a_large_user_gets_the_index_built_in_the_background(
    services: Services, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked_search, "BUILD_INLINE_AT", 10)
    store = _store(services)
    assert store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    assert {m for m, _ in _eventually(store, ["boiler"])} == {m for m, _ in _fts5(services, "boiler")}
    assert len(_index_dirs(db)) == 1


def test_a_build_in_bulk_and_the_threshold(services: Services, db: Path) -> None:
    store = _store(services)
    shown: list[tuple[int, int]] = []
    assert store.index.build_keyword_index(USER, lambda done, total: shown.append((done, total)))
    assert shown[-1] == (60, 60) and len(_index_dirs(db)) == 1
    store.index.keyword_index_min = 61
    assert not store.index.build_keyword_index(USER)
    assert store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    store.index.keyword_index_min = None
    assert store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None


def test_a_search_through_the_service_uses_the_index_with_a_filter_too(services: Services) -> None:
    services.memories.update(Caller(USER), _ranked(services, "yoga", limit=1)[0][0], {"tags": ["gym"]})
    unfiltered = services.search.search(Caller(USER), "yoga class", alpha=0.0, limit=20)
    assert {r.memory.id for r in unfiltered.hits} == {m for m, _ in _ranked(services, "yoga class", limit=20)}
    filtered = services.search.search(Caller(USER), "yoga class", alpha=0.0, filters={"tags": {"all": ["gym"]}})
    assert [list(r.memory.tags) for r in filtered.hits] == [["gym"]]


def _eventually(store: Store, terms: list[str]) -> list[tuple[str, float]]:
    for _ in range(400):
        found = store.index.ranked_keyword_candidates(USER, terms, limit=50)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError("the index was not ready within 20 s")


def test_a_purge_of_the_newest_memory_never_lets_its_seq_or_words_come_back(services: Services) -> None:
    """The purged row held the highest seq and rowid: the next memory must not take its place unseen."""
    newest = services.memories.create(Caller(USER), {"content": "the quokka photo from the zoo"})
    assert [m for m, _ in _ranked(services, "quokka")] == [newest.id]
    services.memories.delete(Caller(USER), newest.id, permanent=True)
    after = services.memories.create(Caller(USER), {"content": "a walrus postcard"})
    assert _ranked(services, "quokka") == []
    assert [m for m, _ in _ranked(services, "walrus")] == [after.id]
    services.memories.delete(Caller(USER), after.id, permanent=True)
    bob = services.memories.create(Caller("bob"), {"content": "bob's quokka and walrus notes"})  # may take the rowid
    assert _ranked(services, "quokka walrus") == []
    assert bob.id not in {m for m, _ in _ranked(services, "bob notes")}


def test_a_stale_mark_found_live_again_is_cleared(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rowid marked stale by a search (its memory purged) and then reused by a new memory is kept in the
    index, and the mark goes: no later search commits for it again."""
    newest = services.memories.create(Caller(USER), {"content": "an ocarina lesson on Friday"})
    _ranked(services, "ocarina")
    services.memories.delete(Caller(USER), newest.id, permanent=True)
    assert _ranked(services, "ocarina") == []  # its document, still indexed, is marked stale
    user = _store(services).index._ranked_for(USER)._users[USER]  # type: ignore[union-attr]
    assert user.gone
    monkeypatch.setattr(ranked_search, "CATCH_UP_AFTER", 60.0)  # the search below catches up itself
    reused = services.memories.create(Caller(USER), {"content": "an ocarina recital"})  # takes the purged rowid
    assert [m for m, _ in _ranked(services, "ocarina")] == [reused.id]
    assert not user.gone


def test_two_processes_share_the_index(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    """Another process's writes and catch-ups are seen; a memory it restores is never dropped as stale."""
    mine = _ranked(services, "boiler")
    other = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        assert _ranked(other, "boiler") == mine  # the same directory, opened
        (memory_id, _) = mine[0]
        services.memories.delete(Caller(USER), memory_id)
        added = other.memories.create(Caller(USER), {"content": "a new boiler manual"})
        assert memory_id not in {m for m, _ in _ranked(other, "boiler")}  # the other caught up
        assert {m for m, _ in _ranked(services, "boiler")} == {m for m, _ in _fts5(services, "boiler")}
        assert added.id in {m for m, _ in _ranked(services, "boiler")}
        index = _store(services).index._ranked_for(USER)
        assert index is not None
        index._users[USER].gone.add(_rowid(db, memory_id))  # as if a search had found it in the trash
        other.memories.restore(Caller(USER), memory_id)
        _ranked(other, "boiler")  # the other process indexes the restored memory
        assert memory_id in {m for m, _ in _ranked(services, "boiler")}  # not dropped by the stale mark
        assert memory_id in {m for m, _ in _ranked(other, "boiler")}
    finally:
        other.close()
    assert len(_index_dirs(db)) == 1


def test_a_failing_catch_up_leaves_the_search_to_fts5(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    _ranked(services, "boiler")

    def full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ranked, "_write_state", full)
    added = services.memories.create(Caller(USER), {"content": "the boiler pressure dropped"})
    assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    assert services.search.search(Caller(USER), "boiler pressure", alpha=0.0).hits[0].memory.id == added.id


def test_many_small_catch_ups_keep_the_segments_merged(services: Services) -> None:
    for i in range(30):
        services.memories.create(Caller(USER), {"content": f"a pebble numbered {i}"})
        assert len(_ranked(services, "pebble")) == i + 1
    index = _store(services).index._ranked_for(USER)
    assert index is not None
    assert index._users[USER]._searcher.num_segments <= 12


def test_long_words_are_found(services: Services) -> None:
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    added = services.memories.create(Caller(USER), {"content": f"the release checksum is {digest}"})
    assert [m for m, _ in _ranked(services, digest)] == [added.id]


def test_closing_during_a_background_build_leaves_nothing_half_written(
    services: Services, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked_search, "BUILD_INLINE_AT", 10)
    assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
    services.close()
    assert not [p for p in Path(str(db) + ".keywords").iterdir() if p.name.endswith(".tmp")]


def test_a_build_abandoned_by_a_dead_process_is_removed(db: Path, embedder: MiniLMEmbedder) -> None:
    folder = Path(str(db) + ".keywords")
    folder.mkdir()
    left = folder / ".0123456789abcdef01234567-1.999999999.1.tmp"  # no process has that id
    left.mkdir()
    (left / "segment").write_bytes(b"half a build")
    services = Services.over(open_store(str(db), keyword_index_min=10), embedder=embedder)
    try:
        services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
        assert _ranked(services, "boiler")
        assert not left.exists()
    finally:
        services.close()


def _rowid(db: Path, memory_id: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0])


def test_a_write_is_caught_up_in_the_background_before_the_next_search(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit a write needs is made by the catch-up thread, not by the search that follows it."""
    _ranked(services, "boiler")
    index = _store(services).index._ranked_for(USER)
    assert index is not None
    added = services.memories.create(Caller(USER), {"content": "the boiler hums at night"})
    user = index._users[USER]
    for _ in range(400):
        if user.memory == added.id:
            break
        time.sleep(0.05)
    assert user.memory == added.id, "the catch-up thread did not apply the write within 20 s"

    def no_catch_up(*_: object) -> None:
        raise AssertionError("the search had to catch up itself")

    monkeypatch.setattr(user, "catch_up", no_catch_up)
    assert added.id in {m for m, _ in _ranked(services, "boiler hums")}
