"""A filtered keyword search through the ranked index (store/index_files/), on both backends.

The index answers among the keys of the memories that pass the filter, read from
the database at the time of the search; its answers are compared with the
database's own filtered keyword search, so these tests fail if a memory that
does not pass (or is trashed, or another user's) is returned, or one that passes
is missed, or a change to what passes is seen late.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.filters import Filter, parse_filter
from remember.search.embedders import MiniLMEmbedder
from remember.search.text import query_terms
from remember.service import Services
from remember.store import Store, open_store
from remember.store.index_files import ranked_keywords
from remember.store.index_files.ranked_keywords import RankedKeywordTables
from remember.store.sql import terms

USER, OTHER = "alice", "bob"
PEOPLE = ["sister", "landlord", "dentist", "piano teacher", "colleague", "plumber"]
THINGS = ["rent", "hiking trip", "flu shot", "concert tickets", "broken boiler", "birthday cake",
          "tax forms", "car service", "yoga class", "wedding gift"]  # fmt: skip
# without stopwords: PostgreSQL's english configuration drops them, the index does not
QUERIES = ["boiler", "birthday cake sister", "concert tickets", "piano", "rent landlord", "hiking colleague"]
FILTERS = [{"tags": "tenth"}, {"tags": "even"}, {"tags": {"any": ["tenth", "third"]}}, {"type": "task"}]


def _notes() -> list[dict[str, object]]:
    pairs = [(p, t) for p in PEOPLE for t in THINGS]
    return [
        {
            "content": f"{p} talked about {t} (note {i})",
            "tags": [tag for tag, every in (("even", 2), ("third", 3), ("tenth", 10)) if i % every == 0],
            "type": "task" if i % 7 == 0 else "note",
        }
        for i, (p, t) in enumerate(pairs)
    ]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def services(request: pytest.FixtureRequest, tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Services]:
    if request.param == "sqlite":
        store = open_store(str(tmp_path / "many.db"), keyword_index_min=None)
    else:
        url = request.getfixturevalue("postgres_url")
        store = open_store(url, keyword_index_min=None, keywords_home=tmp_path / "keywords")
    services = Services.over(store, embedder=embedder)
    services.memories.create_many(Caller(USER), _notes())
    _store(services).index.keyword_index_min = 10
    yield services
    services.close()


def _store(services: Services) -> Store:
    assert isinstance(services.store.index, RankedKeywordTables)
    return services.store


def _tree(spec: dict[str, object]) -> Filter:
    tree = parse_filter(spec)
    assert tree is not None
    return tree


def _ranked(services: Services, query: str, spec: dict[str, object]) -> set[str] | None:
    found = _store(services).index.ranked_keyword_candidates(USER, query_terms(query), limit=500, filter=_tree(spec))
    return None if found is None else {m for m, _ in found}


def _own(services: Services, query: str, spec: dict[str, object]) -> set[str]:
    """What the database's own keyword search finds with the filter in its query."""
    found = services.store.index.keyword_candidates(
        USER, query_terms(query), filter=_tree(spec), deleted="exclude", limit=500
    )
    return {m for m, _ in found}


def test_a_filtered_search_finds_what_the_database_finds(services: Services) -> None:
    for spec in FILTERS:
        for query in QUERIES:
            assert _ranked(services, query, spec) == _own(services, query, spec), (query, spec)
    assert _ranked(services, "rent", {"tags": "tenth"}), "the filters should leave something to find"


def test_what_passes_is_read_at_the_time_of_the_search(services: Services) -> None:
    tenth = {"tags": "tenth"}
    before = _ranked(services, "yoga", tenth)
    assert before is not None and before == _own(services, "yoga", tenth)
    outside = next(m for m in _own(services, "yoga", {"tags": "third"}) if m not in before)
    services.memories.update(Caller(USER), outside, {"tags": ["tenth"]})
    assert _ranked(services, "yoga", tenth) == before | {outside}
    services.memories.update(Caller(USER), outside, {"tags": []})
    assert _ranked(services, "yoga", tenth) == before
    services.memories.update(Caller(USER), outside, {"tags": ["tenth"]})
    services.memories.delete(Caller(USER), outside)
    assert _ranked(services, "yoga", tenth) == before


def test_other_users_memories_never_pass(services: Services) -> None:
    theirs = services.memories.create(Caller(OTHER), {"content": "sister talked about the rent", "tags": ["tenth"]})
    found = _ranked(services, "rent sister", {"tags": "tenth"})
    assert found and theirs.id not in found
    assert found == _own(services, "rent sister", {"tags": "tenth"})


def test_past_the_cap_the_database_answers(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranked_keywords, "FILTERED_AT_MOST", 6)
    assert _ranked(services, "boiler", {"tags": "even"}) is None  # 30 memories pass
    assert _ranked(services, "rent", {"tags": "tenth"}) == _own(services, "rent", {"tags": "tenth"})  # 6 do
    hits = services.search.search(Caller(USER), "broken boiler", alpha=0.0, filters={"tags": "even"}, limit=50).hits
    assert {h.memory.id for h in hits} == _own(services, "broken boiler", {"tags": "even"})


def test_a_filter_nothing_passes_finds_nothing(services: Services) -> None:
    assert _ranked(services, "boiler", {"tags": "nowhere"}) == set()


def test_a_filtered_search_through_the_service(services: Services) -> None:
    hits = services.search.search(Caller(USER), "birthday cake", alpha=0.0, filters={"tags": "third"}, limit=50).hits
    assert hits and all("third" in h.memory.tags for h in hits)
    assert {h.memory.id for h in hits} == _ranked(services, "birthday cake", {"tags": "third"})


def test_the_larger_the_user_the_fewer_memories_may_pass(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terms, "SECONDS", 0.0)  # the user's count read afresh each search
    store = _store(services)
    store.index.filtered_work = 6 * 60  # 60 memories: at most 6 may pass
    assert _ranked(services, "rent", {"tags": "tenth"}) == _own(services, "rent", {"tags": "tenth"})  # 6 pass
    services.memories.create_many(Caller(USER), [{"content": f"an unrelated note {i}"} for i in range(60)])
    assert _ranked(services, "rent", {"tags": "tenth"}) is None  # 120 memories: at most 3
