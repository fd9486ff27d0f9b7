"""The two backends' filter renderers agree: random filters, the same memories, the same answers.

SQLite's renderer is the reference. Filters are drawn from the documented language over
a fixed set of memories whose fields hold every JSON kind (texts in several cases and
scripts, integers and floats, booleans, null, arrays, objects, missing keys).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from remember.errors import ValidationFailed
from remember.filters import parse_filter
from remember.models import Memory, MemoryQuery
from remember.store import Store, open_store

pytestmark = pytest.mark.postgres

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DOCUMENTS: list[dict[str, Any] | None] = [
    {"a": "abc", "n": 2, "arr": ["ABC", "Zoë", 2], "obj": {"x": 1.5, "y": "é"}, "flag": True, "nil": None},
    {"a": "ABC", "n": 2.0, "arr": [], "obj": {"x": "1.5"}, "flag": False},
    {"a": "Zoë", "n": -1, "arr": [True, None, "x y"], "obj": [1, 2], "s": ""},
    {"a": 5, "n": "2", "arr": "abc", "obj": {"x": None, "y": ["é"]}},
    {"a": ["abc"], "n": True, "arr": [{"x": 1}], "obj": "x"},
    {"a": {"x": 1}, "n": None},
    {},
    None,
    {"a": "ZOË", "b": "zoë", "n": 0.5, "arr": ["é", "É"], "flag": "true"},
    {"a": "x y", "n": 10, "arr": [5, 2.0, "2"], "obj": {"x": -1.5, "y": "É"}},
    {"a": "b", "b": "B", "n": 1e10, "arr": [0, 1, -1], "obj": {"x": 0}},
]
TITLES = ["Zoë", "ZOË", None, "abc", "ÉCOLE", "x y", None, "ABC", "é", "b", "zoë"]
TAGS = [("a",), ("a", "b"), (), ("b",), ("c d",), ("a", "c d"), (), ("é",), ("b",), ("a",), ()]

TEXTS = st.sampled_from(["a", "A", "abc", "ABC", "b", "B", "Zoë", "ZOË", "zoë", "é", "É", "", "x y", "2", "1.5", "c d"])
NUMBERS = st.sampled_from([0, 1, 2, 2.0, -1, -1.5, 0.5, 1.5, 5, 10, 1e10])
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXTS)
PATHS = st.sampled_from(["a", "b", "n", "s", "arr", "obj", "obj.x", "obj.y", "arr.0", "arr.1", "arr.2", "flag", "nil"])
MOMENTS = st.sampled_from(["2026-01-01", "2026-01-01T00:03:00Z", "2026-01-01T00:05:30Z", "2027-01-01"])


def _json_condition() -> st.SearchStrategy[dict[str, Any]]:
    ordered = st.one_of(NUMBERS, TEXTS)
    op = st.one_of(
        SCALARS.map(lambda v: v),
        st.fixed_dictionaries({"eq": SCALARS}),
        st.fixed_dictionaries({"ne": SCALARS}),
        st.builds(lambda o, v: {o: v}, st.sampled_from(["gt", "gte", "lt", "lte"]), ordered),
        st.builds(lambda o, v: {o: v}, st.sampled_from(["in", "nin"]), st.lists(SCALARS, min_size=1, max_size=3)),
        st.fixed_dictionaries({"contains": SCALARS}),
        st.fixed_dictionaries({"exists": st.booleans()}),
    )
    return st.builds(lambda path, value: {f"structured_content.{path}": value}, PATHS, op)


def _column_condition() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda v: {"title": v}, st.one_of(TEXTS, st.fixed_dictionaries({"contains": TEXTS}))),
        st.builds(lambda v: {"title": {"ne": v}}, TEXTS),
        st.builds(lambda v: {"title": {"exists": v}}, st.booleans()),
        st.builds(lambda v: {"content": {"contains": v}}, TEXTS),
        st.builds(lambda o, v: {"weight": {o: v}}, st.sampled_from(["gt", "gte", "lt", "lte", "eq", "ne"]), NUMBERS),
        st.builds(lambda o, v: {"created_at": {o: v}}, st.sampled_from(["gt", "gte", "lt", "lte", "eq"]), MOMENTS),
        st.builds(lambda v: {"tags": v}, st.one_of(TEXTS, st.lists(TEXTS, min_size=1, max_size=3))),
        st.builds(
            lambda o, v: {"tags": {o: v}},
            st.sampled_from(["any", "all", "none"]),
            st.lists(TEXTS, min_size=1, max_size=3),
        ),
        st.builds(lambda v: {"template_compliance": v}, st.booleans()),
        st.builds(lambda v: {"type": {"in": v}}, st.lists(st.sampled_from(["book", "note", "Book"]), min_size=1)),
    )


FILTERS = st.recursive(
    st.one_of(_json_condition(), _column_condition()),
    lambda inner: st.one_of(
        st.builds(lambda parts: {"and": parts}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda parts: {"or": parts}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda part: {"not": part}, inner),
    ),
    max_leaves=6,
)


def _memories() -> Iterator[Memory]:
    for i, (doc, title, tags) in enumerate(zip(DOCUMENTS, TITLES, TAGS, strict=True)):
        at = T0 + timedelta(minutes=i)
        base = Memory(
            id=f"m{i:02}", user_id="alice", content=f"Content {title or ''} number {i}",
            type="book" if i % 2 else "note", weight=(i % 5) / 4, trust=0.5,
            created_at=at, updated_at=at, occurred_at=at,
        )  # fmt: skip
        yield dataclasses.replace(
            base,
            title=title,
            tags=tags,
            structured_content=doc,
            template_compliance=None if i % 3 == 0 else bool(i % 2),
        )


@pytest.fixture
def both(tmp_path: Path, postgres_url: str) -> Iterator[tuple[Store, Store]]:
    sqlite, postgres = open_store(f"sqlite:///{tmp_path / 'r.db'}"), open_store(postgres_url)
    for memory in _memories():
        sqlite.memories.insert(memory)
        postgres.memories.insert(memory)
    yield sqlite, postgres
    sqlite.close()
    postgres.close()


def _ids(store: Store, tree: Any) -> list[str]:
    return sorted(m.id for m in store.memories.page("alice", MemoryQuery(filter=tree, limit=100)).items)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=FILTERS)
def test_random_filters_select_the_same_memories(both: tuple[Store, Store], raw: dict[str, Any]) -> None:
    try:
        tree = parse_filter(raw)
    except ValidationFailed:
        assume(False)
        return
    sqlite, postgres = both
    assert _ids(postgres, tree) == _ids(sqlite, tree), raw
