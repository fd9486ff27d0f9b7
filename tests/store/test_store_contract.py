"""The contract every Store backend must keep, run against real databases."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from remember.errors import Conflict, NotFound
from remember.filters import parse_filter
from remember.models import HistoryEntry, Memory, MemoryQuery
from remember.store import Store

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def memory(id_: str, user: str = "alice", minutes: int = 0, **fields: object) -> Memory:
    at = T0 + timedelta(minutes=minutes)
    base = Memory(
        id=id_, user_id=user, content=f"content of {id_}", type="note", weight=0.5, trust=0.5,
        created_at=at, updated_at=at, occurred_at=at,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def ids(store: Store, user: str = "alice", **query: object) -> list[str]:
    raw_filter = query.pop("where", None)
    q = MemoryQuery(filter=parse_filter(raw_filter), **query)  # type: ignore[arg-type]
    return [m.id for m in store.memories.page(user, q).items]


def test_round_trip_keeps_every_field(store: Store) -> None:
    full = memory(
        "m1",
        title="A title",
        tags=("a", "b c"),
        references=("https://example.com/x",),
        context={"source": "chat", "participants": ["Ann", "Bo"]},
        location={"lat": 1.5, "lon": -2.0, "address": "Somewhere"},
        template_id="builtin:book_review",
        template_version="1.0",
        structured_content={"title": "Dune", "rating": 5, "nested": {"x": [1, 2, {"y": None}]}},
        template_compliance=True,
        template_validation_errors=({"field": "x", "code": "type", "message": "m", "value": None},),
        deleted_at=T0 + timedelta(days=1),
        access_count=3,
        last_accessed_at=T0 + timedelta(days=2),
        version=7,
    )
    store.memories.insert(full)
    assert store.memories.get("alice", "m1") == full


def test_unicode_and_large_content_round_trip(store: Store) -> None:
    text = "Zoë 🍣 日本語 " * 5000
    store.memories.insert(memory("u", content=text))
    got = store.memories.get("alice", "u")
    assert got is not None
    assert got.content == text


def test_get_is_scoped_by_user(store: Store) -> None:
    store.memories.insert(memory("m1", user="alice"))
    assert store.memories.get("bob", "m1") is None
    assert store.memories.get("alice", "m1") is not None


def test_same_id_for_two_users_are_two_memories(store: Store) -> None:
    store.memories.insert(memory("same", user="alice", content="alice's"))
    store.memories.insert(memory("same", user="bob", content="bob's"))
    alice, bob = store.memories.get("alice", "same"), store.memories.get("bob", "same")
    assert alice is not None
    assert alice.content == "alice's"
    assert bob is not None
    assert bob.content == "bob's"


def test_replace_writes_memory_and_history_together(store: Store) -> None:
    store.memories.insert(memory("m1", tags=("old",)))
    new = memory("m1", content="new", tags=("new",), version=2)
    entry = HistoryEntry("m1", "alice", 1, "update", {"content": "content of m1"}, "why", T0)
    store.memories.replace(new, expected_version=1, history=entry)
    assert store.memories.get("alice", "m1") == new
    assert store.memories.history("alice", "m1") == [entry]
    assert ids(store, where={"tags": "new"}) == ["m1"]
    assert ids(store, where={"tags": "old"}) == []


def test_replace_with_stale_version_is_a_conflict_and_changes_nothing(store: Store) -> None:
    store.memories.insert(memory("m1"))
    entry = HistoryEntry("m1", "alice", 5, "update", {}, None, T0)
    with pytest.raises(Conflict, match="fetch it again"):
        store.memories.replace(memory("m1", content="x", version=6), expected_version=5, history=entry)
    assert store.memories.get("alice", "m1") == memory("m1")
    assert store.memories.history("alice", "m1") == []


def test_replace_of_another_users_memory_is_not_found(store: Store) -> None:
    store.memories.insert(memory("m1", user="alice"))
    entry = HistoryEntry("m1", "bob", 1, "update", {}, None, T0)
    with pytest.raises(NotFound):
        store.memories.replace(memory("m1", user="bob", version=2), expected_version=1, history=entry)
    assert store.memories.get("alice", "m1") == memory("m1", user="alice")


def test_history_is_newest_first(store: Store) -> None:
    store.memories.insert(memory("m1"))
    for version in (1, 2, 3):
        entry = HistoryEntry("m1", "alice", version, "update", {"v": version}, None, T0)
        store.memories.replace(memory("m1", version=version + 1), expected_version=version, history=entry)
    assert [h.version for h in store.memories.history("alice", "m1")] == [3, 2, 1]


def test_purge_removes_memory_history_and_tags(store: Store) -> None:
    store.memories.insert(memory("m1", tags=("t",)))
    store.memories.replace(
        memory("m1", version=2, tags=("t",)),
        expected_version=1,
        history=HistoryEntry("m1", "alice", 1, "update", {}, None, T0),
    )
    assert store.memories.purge("alice", "m1") is True
    assert store.memories.get("alice", "m1") is None
    assert store.memories.history("alice", "m1") == []
    assert ids(store, where={"tags": "t"}, deleted="include") == []
    assert store.memories.purge("alice", "m1") is False


def test_purge_of_another_users_memory_does_nothing(store: Store) -> None:
    store.memories.insert(memory("m1", user="alice"))
    assert store.memories.purge("bob", "m1") is False
    assert store.memories.get("alice", "m1") is not None


def test_list_orders_pages_and_counts(store: Store) -> None:
    for i in range(7):
        store.memories.insert(memory(f"m{i}", minutes=i, weight=i / 10))
    page = store.memories.page("alice", MemoryQuery(limit=3, offset=3))
    assert [m.id for m in page.items] == ["m3", "m2", "m1"]
    assert page.total == 7
    assert page.has_more
    assert ids(store, sort_by="weight", descending=False, limit=2) == ["m0", "m1"]


def test_pages_are_stable_when_sort_keys_tie(store: Store) -> None:
    for i in range(10):
        store.memories.insert(memory(f"m{i}"))  # all at the same instant
    seen = [i for off in range(0, 10, 3) for i in ids(store, limit=3, offset=off)]
    assert sorted(seen) == sorted(f"m{i}" for i in range(10))
    assert len(set(seen)) == 10


def test_list_deleted_modes(store: Store) -> None:
    store.memories.insert(memory("live"))
    store.memories.insert(memory("gone", deleted_at=T0))
    assert ids(store) == ["live"]
    assert ids(store, deleted="only") == ["gone"]
    assert sorted(ids(store, deleted="include")) == ["gone", "live"]


def test_list_never_shows_other_users(store: Store) -> None:
    store.memories.insert(memory("a1", user="alice"))
    store.memories.insert(memory("b1", user="bob"))
    assert ids(store, "alice", deleted="include") == ["a1"]
    assert store.memories.page("carol", MemoryQuery()).total == 0


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"type": "book"}, ["b"]),
        ({"type": {"ne": "book"}}, ["n", "p"]),
        ({"type": {"in": ["book", "person"]}}, ["b", "p"]),
        ({"type": {"nin": ["book"]}}, ["n", "p"]),
        ({"tags": "fiction"}, ["b"]),
        ({"tags": ["fiction", "work"]}, ["b", "n"]),
        ({"tags": {"all": ["fiction", "scifi"]}}, ["b"]),
        ({"tags": {"all": ["fiction", "work"]}}, []),
        ({"tags": {"none": ["fiction"]}}, ["n", "p"]),
        ({"tags": {"exists": False}}, ["p"]),
        ({"tags": "FICTION"}, ["b"]),
        ({"weight": {"gte": 0.5}}, ["b", "p"]),
        ({"weight": {"gt": 0.5, "lte": 0.9}}, ["p"]),
        ({"created_at": {"gte": "2026-01-01T00:01:00Z"}}, ["n", "p"]),
        ({"created_at": {"lt": "2026-01-01T00:01:00Z"}}, ["b"]),
        ({"occurred_at": {"gte": "2025-06-01", "lt": "2025-07-01"}}, ["p"]),
        ({"context.timestamp": {"lt": "2025-07-01"}}, ["p"]),
        ({"title": {"exists": True}}, ["b"]),
        ({"title": {"ne": "Dune"}}, ["n", "p"]),
        ({"content": {"contains": "SUSHI"}}, ["n"]),
        ({"template_id": "builtin:book_review"}, ["b"]),
        ({"template_id": {"exists": False}}, ["n", "p"]),
        ({"template_compliance": True}, ["b"]),
        ({"structured_content.rating": {"gte": 4}}, ["b"]),
        ({"structured_content.rating": {"lt": 4}}, []),
        ({"structured_content.rating": 5}, ["b"]),
        ({"structured_content.rating": {"ne": 5}}, ["n", "p"]),
        ({"structured_content.author": {"contains": "herb"}}, ["b"]),
        ({"structured_content.genres": {"contains": "SciFi"}}, ["b"]),
        ({"structured_content.genres": {"contains": "romance"}}, []),
        ({"structured_content.genres.0": "scifi"}, ["b"]),
        ({"structured_content.meta.pages": {"gt": 400}}, ["b"]),
        ({"structured_content.finished": True}, ["b"]),
        ({"structured_content.finished": False}, []),
        ({"structured_content.missing": {"exists": True}}, []),
        ({"structured_content.missing": {"exists": False}}, ["b", "n", "p"]),
        ({"structured_content.nothing": None}, ["b"]),
        ({"structured_content.author": {"in": ["Frank Herbert", "X"]}}, ["b"]),
        ({"structured_content.author": {"nin": ["Frank Herbert"]}}, ["n", "p"]),
        ({"structured_content.rating": {"gte": "4"}}, []),
        ({"or": [{"type": "book"}, {"type": "person"}]}, ["b", "p"]),
        ({"not": {"type": "book"}}, ["n", "p"]),
        ({"not": {"structured_content.rating": {"gte": 4}}}, ["n", "p"]),
        ({"and": [{"weight": {"gte": 0.2}}, {"not": {"tags": "work"}}]}, ["b", "p"]),
    ],
)
def test_filters(store: Store, where: dict[str, object], expected: list[str]) -> None:
    store.memories.insert(
        memory(
            "b",
            minutes=0,
            type="book",
            weight=0.5,
            title="Dune",
            tags=("fiction", "scifi"),
            template_id="builtin:book_review",
            template_compliance=True,
            structured_content={
                "author": "Frank Herbert",
                "rating": 5,
                "genres": ["scifi", "classic"],
                "finished": True,
                "meta": {"pages": 412},
                "nothing": None,
            },
        )
    )
    store.memories.insert(memory("n", minutes=1, content="Had sushi at Nobu", weight=0.1, tags=("work",)))
    store.memories.insert(
        memory("p", minutes=2, type="person", weight=0.8, occurred_at=datetime(2025, 6, 15, tzinfo=UTC))
    )
    assert sorted(ids(store, where=where)) == expected


def test_filter_values_are_bound_not_spliced(store: Store) -> None:
    store.memories.insert(memory("m1"))
    hostile = "x'); DROP TABLE memories; --"
    assert ids(store, where={"type": hostile}) == []
    assert ids(store, where={"structured_content.a": {"contains": hostile}}) == []
    assert store.memories.get("alice", "m1") is not None


def test_record_access_counts_and_stamps(store: Store) -> None:
    store.memories.insert(memory("m1"))
    store.memories.insert(memory("m2"))
    at = T0 + timedelta(days=3)
    store.memories.record_access("alice", ["m1"], at)
    store.memories.record_access("alice", ["m1", "m2"], at)
    store.memories.record_access("bob", ["m1"], at)
    m1, m2 = store.memories.get("alice", "m1"), store.memories.get("alice", "m2")
    assert m1 is not None
    assert (m1.access_count, m1.last_accessed_at) == (2, at)
    assert m2 is not None
    assert m2.access_count == 1


def test_preferences_are_per_user_with_history(store: Store) -> None:
    store.preferences.set("alice", "search.default_limit", 20, old_value=10, reason="longer", at=T0)
    store.preferences.set("alice", "search.default_limit", 30, old_value=20, reason=None, at=T0)
    assert store.preferences.get("alice") == {"search.default_limit": 30}
    assert store.preferences.get("bob") == {}


def test_case_is_folded_beyond_ascii(store: Store) -> None:
    store.memories.insert(
        memory("e", content="Émile Zola", structured_content={"author": "Émile Zola", "tags": ["Été"]})
    )
    assert ids(store, where={"content": {"contains": "émile"}}) == ["e"]
    assert ids(store, where={"structured_content.author": {"contains": "ÉMILE"}}) == ["e"]
    assert ids(store, where={"structured_content.tags": {"contains": "été"}}) == ["e"]
