"""The ranked keyword index on PostgreSQL (store/index_files/ over store/postgres/keyword_source.py),
at a small size with its threshold lowered, on the session's real server.

Its answers are compared with PostgreSQL's own keyword search over the same
memories (queries without stopwords, which PostgreSQL's english configuration
drops), so these tests fail if the index misses a memory, returns one it should
not (deleted, purged, another user's), or misses a change made since it last
caught up.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.search.text import query_terms
from remember.service import Services
from remember.store import Store, open_store
from remember.store.index_files import ranked_keywords
from remember.store.postgres.store import PostgresBackend

pytestmark = pytest.mark.postgres

USER = "alice"
PEOPLE = ["sister", "landlord", "dentist", "piano teacher", "colleague", "plumber"]
THINGS = ["rent", "hiking trip", "flu shot", "concert tickets", "broken boiler", "birthday cake",
          "tax forms", "car service", "yoga class", "wedding gift"]  # fmt: skip
QUERIES = ["boiler", "birthday cake sister", "concert tickets", "piano", "rent landlord", "hiking colleague",
           "yoga", "tax"]  # fmt: skip


def _notes() -> list[str]:
    return [f"{p} talked about {t} (note {i})" for i, (p, t) in enumerate((p, t) for p in PEOPLE for t in THINGS)]


def _store(services: Services) -> Store:
    assert isinstance(services.store.backend, PostgresBackend)
    return services.store


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "keywords"


@pytest.fixture
def services(postgres_url: str, home: Path, embedder: MiniLMEmbedder) -> Iterator[Services]:
    services = Services.over(open_store(postgres_url, keyword_index_min=None, keywords_home=home), embedder=embedder)
    services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
    _store(services).index.keyword_index_min = 10
    yield services
    services.close()


def _ranked(services: Services, query: str, limit: int = 500) -> list[tuple[str, float]]:
    found = _store(services).index.ranked_keyword_candidates(USER, query_terms(query), limit=limit)
    assert found is not None, "the ranked index should answer"
    return found


def _own(services: Services, query: str, limit: int = 500) -> set[str]:
    """What PostgreSQL's own keyword search finds."""
    found = _store(services).index.keyword_candidates(
        USER, query_terms(query), filter=None, deleted="exclude", limit=limit
    )
    return {m for m, _ in found}


def _content(services: Services, memory_id: str) -> str:
    return services.memories.get(Caller(USER), memory_id).content


def _ids(hits: list[tuple[str, float]]) -> set[str]:
    return {m for m, _ in hits}


def _index_dirs(home: Path) -> list[Path]:
    return [p for p in home.glob("*/*") if not p.name.startswith(".")]


def test_the_ranked_index_finds_what_postgres_finds(services: Services, home: Path) -> None:
    for query in QUERIES:
        assert _ids(_ranked(services, query)) == _own(services, query), query
    (folder,) = _index_dirs(home)
    assert (folder / "state.json").is_file()
    hits = _ranked(services, "birthday cake sister", limit=3)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True) and len(hits) == 3
    assert _ranked(services, "zeppelin quasar") == []


def test_every_change_is_seen_by_the_next_search(services: Services) -> None:
    # the plumber's boiler note itself (the note after it holds its words too, as its context)
    hits = _ranked(services, "boiler plumber", limit=5)
    (memory_id,) = [m for m, _ in hits if _content(services, m).startswith("plumber talked about broken boiler")]
    services.memories.update(Caller(USER), memory_id, {"content": "the plumber fixed the kettle"})
    assert memory_id not in _ids(_ranked(services, "boiler"))
    assert memory_id in _ids(_ranked(services, "kettle"))
    services.memories.delete(Caller(USER), memory_id)
    assert memory_id not in _ids(_ranked(services, "kettle"))
    services.memories.restore(Caller(USER), memory_id)
    assert memory_id in _ids(_ranked(services, "kettle"))
    added = services.memories.create(Caller(USER), {"content": "a kettle descaler from the market"})
    kettles = _ids(_ranked(services, "kettle"))  # and the note after the edited one, by its context
    assert {memory_id, added.id} <= kettles and kettles == _own(services, "kettle")
    for query in QUERIES:
        assert _ids(_ranked(services, query)) == _own(services, query), query


def test_a_purge_of_the_newest_memory_never_lets_its_seq_or_words_come_back(services: Services, home: Path) -> None:
    newest = services.memories.create(Caller(USER), {"content": "the quokka photo from the zoo"})
    assert [m for m, _ in _ranked(services, "quokka")] == [newest.id]
    folders = _index_dirs(home)
    services.memories.delete(Caller(USER), newest.id, permanent=True)
    assert _ranked(services, "quokka") == []
    after = services.memories.create(Caller(USER), {"content": "a walrus postcard"})  # past the purged seq
    assert [m for m, _ in _ranked(services, "walrus")] == [after.id]
    index = _store(services).index._ranked_for(USER)
    assert index is not None and not index._users[USER].gone  # the purged document was dropped
    assert _index_dirs(home) == folders  # caught up, not built again (as it would be had its seq come back)
    bob = services.memories.create(Caller("bob"), {"content": "bob's quokka and walrus notes"})
    assert bob.id not in _ids(_ranked(services, "quokka walrus bob"))


def test_the_context_follows_the_memory_before(services: Services) -> None:
    first = services.memories.create(
        Caller(USER), {"content": "we planned a trip to Zanzibar", "context": {"conversation_id": "c1"}}
    )
    second = services.memories.create(
        Caller(USER), {"content": "she will book the flights", "context": {"conversation_id": "c1"}}
    )
    assert second.id in _ids(_ranked(services, "zanzibar"))  # found through its context
    services.memories.update(Caller(USER), first.id, {"content": "we planned a trip to Lisbon"})
    assert second.id not in _ids(_ranked(services, "zanzibar"))
    assert {first.id, second.id} <= _ids(_ranked(services, "lisbon"))
    services.memories.delete(Caller(USER), first.id)
    assert _ranked(services, "lisbon") == []
    services.memories.restore(Caller(USER), first.id)
    assert {first.id, second.id} <= _ids(_ranked(services, "lisbon"))
    services.memories.delete(Caller(USER), first.id, permanent=True)
    assert _ranked(services, "lisbon") == []
    assert [m for m, _ in _ranked(services, "flights")] == [second.id]


def test_other_users_memories_are_never_returned(services: Services) -> None:
    bob = services.memories.create_many(Caller("bob"), [{"content": f"bob's boiler note {i}"} for i in range(20)])
    assert _store(services).index.build_keyword_index("bob")
    mine = _ids(_ranked(services, "boiler bob"))
    assert mine and mine.isdisjoint({m.id for m in bob})
    theirs = _store(services).index.ranked_keyword_candidates("bob", ["boiler"], limit=50)
    assert theirs is not None and _ids(theirs) == {m.id for m in bob}


def test_a_missing_index_is_built_again(services: Services, home: Path) -> None:
    before = _ranked(services, "boiler")
    shutil.rmtree(home)
    assert _ranked(services, "boiler") == before
    assert len(_index_dirs(home)) == 1


def test_an_index_of_an_emptied_and_refilled_database_is_built_again(
    services: Services, postgres_url: str, home: Path, embedder: MiniLMEmbedder
) -> None:
    """The database was emptied and written to again: the index's seq belongs to another memory now."""
    _ranked(services, "boiler")
    services.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("TRUNCATE memories, memory_index, index_settings CASCADE")
    again = Services.over(open_store(postgres_url, keyword_index_min=10, keywords_home=home), embedder=embedder)
    try:
        fresh = again.memories.create_many(Caller(USER), [{"content": f"a fig chutney label {i}"} for i in range(70)])
        assert _ids(_ranked(again, "fig chutney")) == {m.id for m in fresh}
        assert _ranked(again, "boiler") == []
    finally:
        again.close()


def test_a_large_user_gets_the_index_built_in_the_background(
    services: Services, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked_keywords, "BUILD_INLINE_AT", 10)
    store = _store(services)
    assert store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None  # PostgreSQL answers meanwhile
    for _ in range(400):
        found = store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50)
        if found is not None:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the index was not built within 20 s")
    assert _ids(found) == _own(services, "boiler")
    assert len(_index_dirs(home)) == 1


def test_a_build_in_bulk_and_the_threshold(services: Services, home: Path) -> None:
    store = _store(services)
    shown: list[tuple[int, int]] = []
    assert store.index.build_keyword_index(USER, lambda done, total: shown.append((done, total)))
    assert shown[-1] == (60, 60) and len(_index_dirs(home)) == 1
    store.index.keyword_index_min = 61
    assert not store.index.build_keyword_index(USER)
    assert store.index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None


def test_without_a_folder_postgres_answers(postgres_url: str, embedder: MiniLMEmbedder) -> None:
    services = Services.over(open_store(postgres_url, keyword_index_min=10), embedder=embedder)
    try:
        services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
        assert not _store(services).index.build_keyword_index(USER)
        assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        assert services.search.search(Caller(USER), "boiler", alpha=0.0).hits
    finally:
        services.close()


def test_a_search_through_the_service_uses_the_index_with_a_filter_too(services: Services) -> None:
    services.memories.update(Caller(USER), _ranked(services, "yoga", limit=1)[0][0], {"tags": ["gym"]})
    unfiltered = services.search.search(Caller(USER), "yoga class", alpha=0.0, limit=20)
    assert {r.memory.id for r in unfiltered.hits} == _ids(_ranked(services, "yoga class", limit=20))
    filtered = services.search.search(Caller(USER), "yoga class", alpha=0.0, filters={"tags": {"all": ["gym"]}})
    assert [list(r.memory.tags) for r in filtered.hits] == [["gym"]]


def test_each_index_row_keeps_its_number_and_none_is_given_twice(services: Services, postgres_url: str) -> None:
    query = "SELECT memory_id, doc FROM memory_index WHERE user_id = %s"
    with psycopg.connect(postgres_url) as conn:
        before: dict[str, int] = dict(conn.execute(query, (USER,)).fetchall())
    memory_id = next(iter(before))
    services.memories.update(Caller(USER), memory_id, {"content": "a changed note"})
    services.memories.delete(Caller(USER), memory_id, permanent=True)
    added = services.memories.create(Caller(USER), {"content": "a note written after"})
    with psycopg.connect(postgres_url) as conn:
        after: dict[str, int] = dict(conn.execute(query, (USER,)).fetchall())
    assert len(set(before.values())) == len(before) == 60
    assert {k: v for k, v in before.items() if k != memory_id} == {k: v for k, v in after.items() if k != added.id}
    assert after[added.id] > max(before.values())


def test_a_place_that_cannot_be_written_leaves_the_search_to_postgres(
    postgres_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = tmp_path / "keywords"
    home.write_text("not a directory")
    services = Services.over(open_store(postgres_url, keyword_index_min=None, keywords_home=home), embedder=embedder)
    try:
        services.memories.create_many(Caller(USER), [{"content": text} for text in _notes()])
        _store(services).index.keyword_index_min = 10
        assert _store(services).index.ranked_keyword_candidates(USER, ["boiler"], limit=50) is None
        assert not _store(services).index.build_keyword_index(USER)
        assert services.search.search(Caller(USER), "boiler", alpha=0.0).hits
        assert home.read_text() == "not a directory"
    finally:
        services.close()
