"""Filtered searches, on both backends: a filter most memories pass is checked on the unfiltered best
(service/search.py's ``POST_FILTER``, SQLite's vector side likewise), a rarer one goes into the search.

Each way must give exactly what the filter in the search itself gives, so these tests compare the
two ways over the same memories, and check that nothing that fails the filter (or is another user's,
or is in the trash) is ever returned.
"""

from __future__ import annotations

import pytest

from remember.caller import Caller
from remember.filters import parse_filter
from remember.service import Services
from remember.service import search as search_service
from remember.store.sqlite import search as sqlite_search

USER, OTHER = "alice", "bob"
TOPICS = ["the garden shed", "a birthday cake", "the piano lesson", "concert tickets", "the broken boiler",
          "a hiking trip", "tax forms", "the yoga class"]  # fmt: skip
QUERIES = ["garden shed", "birthday cake for the party", "piano", "boiler repair", "hiking in the hills"]
FILTERS = [{"tags": "common"}, {"tags": "rare"}, {"type": "task"}, {"tags": {"any": ["common", "rare"]}}]


def _fill(services: Services) -> None:
    notes = [
        {
            "content": f"Talked about {topic} with friend {i}",
            "tags": ["rare"] if i % 10 == 0 else ["common"],
            "type": "task" if i % 3 == 0 else "note",
        }
        for i, topic in enumerate(TOPICS * 15)
    ]
    services.memories.create_many(Caller(USER), notes)


def _ids(services: Services, query: str, spec: dict[str, object], **options: object) -> list[str]:
    hits = services.search.search(Caller(USER), query, filters=spec, limit=30, record_access=False, **options).hits
    return [h.memory.id for h in hits]


def _filter_in_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_service, "POST_FILTER", 0)
    monkeypatch.setattr(sqlite_search, "POST_FILTER", 0)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_checking_the_unfiltered_best_gives_what_the_filter_in_the_search_gives(
    services: Services, monkeypatch: pytest.MonkeyPatch, alpha: float
) -> None:
    _fill(services)
    every = {"alpha": alpha, "min_score": -1.0}  # every candidate: the floor would leave some comparisons empty
    checked = {(q, str(f)): _ids(services, q, f, **every) for q in QUERIES for f in FILTERS}
    _filter_in_the_search(monkeypatch)
    for (query, name), found in checked.items():
        spec = next(f for f in FILTERS if str(f) == name)
        assert found == _ids(services, query, spec, **every), (query, spec)
    assert all(checked.values())


def test_only_what_passes_is_returned(services: Services) -> None:
    _fill(services)
    services.memories.create(Caller(OTHER), {"content": "Talked about the garden shed", "tags": ["common"]})
    trashed = services.search.search(Caller(USER), "garden shed", limit=1).hits[0].memory
    services.memories.delete(Caller(USER), trashed.id)
    for spec in FILTERS:
        for query in QUERIES:
            hits = services.search.search(Caller(USER), query, filters=spec, limit=50, record_access=False).hits
            tree = parse_filter(spec)
            assert tree is not None
            ids = [h.memory.id for h in hits]
            assert services.store.index.passing_ids(USER, ids, tree, "exclude") == set(ids), (query, spec)
            assert trashed.id not in ids


def test_the_check_is_bound_to_the_user_and_the_trash(services: Services) -> None:
    mine = services.memories.create(Caller(USER), {"content": "a common note", "tags": ["common"]})
    theirs = services.memories.create(Caller(OTHER), {"content": "a common note", "tags": ["common"]})
    gone = services.memories.create(Caller(USER), {"content": "a common note, trashed", "tags": ["common"]})
    services.memories.delete(Caller(USER), gone.id)
    tree = parse_filter({"tags": "common"})
    assert tree is not None
    both = [mine.id, theirs.id, gone.id, "no-such-id"]
    assert services.store.index.passing_ids(USER, both, tree, "exclude") == {mine.id}
    assert services.store.index.passing_ids(USER, both, tree, "only") == {gone.id}
    assert services.store.index.passing_ids(USER, both, tree, "include") == {mine.id, gone.id}
    assert services.store.index.passing_ids(OTHER, both, tree, "include") == {theirs.id}
    assert services.store.index.passing_ids(USER, [], tree, "include") == set()
