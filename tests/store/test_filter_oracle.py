"""Structured-content filters in SQL agree with the same filters evaluated in plain Python.

A few hundred memories with varied fields (numbers, text, dates as ISO text,
booleans, arrays, nested objects, missing keys and nulls) and every operator;
the Python reference below is the documented semantics of docs/filters.md.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from remember.filters import parse_filter
from remember.models import Memory, MemoryQuery
from remember.store import Store

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GENRES = ["scifi", "Fantasy", "history", "poetry"]
MISSING = object()


def make_content(rng: random.Random) -> dict[str, Any]:
    content: dict[str, Any] = {}
    maybe = lambda p: rng.random() < p  # noqa: E731
    if maybe(0.9):
        content["rating"] = rng.choice([1, 2, 3, 4, 5, 4.5, 2.5])
    if maybe(0.8):
        content["title"] = rng.choice(["Dune", "dune messiah", "Hyperion", "The Road", "Emma", "road trip"])
    if maybe(0.7):
        content["finished"] = f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
    if maybe(0.6):
        content["genres"] = rng.sample(GENRES, rng.randint(0, 3))
    if maybe(0.5):
        content["recommend"] = rng.choice([True, False])
    if maybe(0.4):
        content["author"] = {"name": rng.choice(["Frank Herbert", "Jane Austen", "Dan Simmons"]),
                             "born": rng.randint(1775, 1950)}  # fmt: skip
    if maybe(0.15):
        content["rating"] = None
    if maybe(0.1):
        content["pages"] = rng.choice([100, 250, "many"])
    return content


def lookup(content: dict[str, Any], path: list[str | int]) -> Any:
    value: Any = content
    for part in path:
        in_list = isinstance(part, int) and isinstance(value, list) and part < len(value)
        in_object = isinstance(part, str) and isinstance(value, dict) and part in value
        if not (in_list or in_object):
            return MISSING
        value = value[part]
    return value


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    return "other"


def eq(stored: Any, value: Any) -> bool:
    return stored is not MISSING and kind(stored) == kind(value) and stored == value


def holds(stored: Any, op: str, value: Any) -> bool:
    if op == "exists":
        return (stored is not MISSING and stored is not None) == value
    if op == "eq":
        return eq(stored, value)
    if op == "ne":
        return not eq(stored, value)
    if op == "in":
        return any(eq(stored, v) for v in value)
    if op == "nin":
        return not any(eq(stored, v) for v in value)
    if op == "contains":
        if isinstance(stored, str):
            return str(value).lower() in stored.lower()
        if isinstance(stored, list):
            return any(
                (isinstance(e, str) and isinstance(value, str) and e.lower() == value.lower())
                or (kind(e) == kind(value) and kind(e) != "text" and e == value)
                for e in stored
            )
        return False
    if kind(stored) != kind(value) or kind(value) not in ("number", "text"):
        return False
    return {"gt": stored > value, "gte": stored >= value, "lt": stored < value, "lte": stored <= value}[op]


def evaluate(tree: dict[str, Any], content: dict[str, Any]) -> bool:
    results = []
    for key, spec in tree.items():
        if key == "and":
            results.append(all(evaluate(t, content) for t in spec))
        elif key == "or":
            results.append(any(evaluate(t, content) for t in spec))
        elif key == "not":
            results.append(not evaluate(spec, content))
        else:
            path = [int(p) if p.isdigit() else p for p in key.removeprefix("structured_content.").split(".")]
            stored = lookup(content, path)
            ops = spec if isinstance(spec, dict) else ({"in": spec} if isinstance(spec, list) else {"eq": spec})
            results.append(all(holds(stored, op, v) for op, v in ops.items()))
    return all(results)


FILTERS: list[dict[str, Any]] = [
    {"structured_content.rating": {"gte": 4}},
    {"structured_content.rating": {"gt": 4}},
    {"structured_content.rating": {"lt": 3}},
    {"structured_content.rating": {"lte": 2.5}},
    {"structured_content.rating": 5},
    {"structured_content.rating": {"ne": 5}},
    {"structured_content.rating": {"in": [1, 4.5]}},
    {"structured_content.rating": {"nin": [1, 2, 3]}},
    {"structured_content.rating": None},
    {"structured_content.rating": {"exists": True}},
    {"structured_content.rating": {"exists": False}},
    {"structured_content.rating": {"gte": 2, "lt": 4.5}},
    {"structured_content.title": "Dune"},
    {"structured_content.title": {"ne": "Dune"}},
    {"structured_content.title": {"contains": "DUNE"}},
    {"structured_content.title": {"contains": "road"}},
    {"structured_content.title": {"gt": "Emma"}},
    {"structured_content.title": {"in": ["Emma", "Hyperion"]}},
    {"structured_content.finished": {"gte": "2026-05-01"}},
    {"structured_content.finished": {"lt": "2026-03-15"}},
    {"structured_content.finished": {"gte": "2026-02-01", "lte": "2026-06-30"}},
    {"structured_content.genres": {"contains": "fantasy"}},
    {"structured_content.genres": {"contains": "scifi"}},
    {"structured_content.genres.0": "history"},
    {"structured_content.genres.1": {"exists": True}},
    {"structured_content.genres": {"exists": True}},
    {"structured_content.recommend": True},
    {"structured_content.recommend": False},
    {"structured_content.recommend": {"ne": True}},
    {"structured_content.author.name": "Jane Austen"},
    {"structured_content.author.name": {"contains": "herb"}},
    {"structured_content.author.born": {"lt": 1800}},
    {"structured_content.author.born": {"gte": 1900}},
    {"structured_content.author": {"exists": False}},
    {"structured_content.pages": {"gt": 150}},
    {"structured_content.pages": "many"},
    {"structured_content.pages": {"contains": "an"}},
    {"or": [{"structured_content.rating": 5}, {"structured_content.genres": {"contains": "poetry"}}]},
    {"not": {"structured_content.rating": {"gte": 3}}},
    {"and": [{"structured_content.recommend": True}, {"not": {"structured_content.title": {"contains": "dune"}}}]},
    {
        "or": [
            {"and": [{"structured_content.rating": {"gte": 4}}, {"structured_content.author.born": {"lt": 1900}}]},
            {"not": {"structured_content.finished": {"exists": True}}},
        ]
    },
]


@pytest.fixture
def corpus(store: Store) -> dict[str, dict[str, Any]]:
    rng = random.Random(20261202)
    contents = {}
    for i in range(300):
        content = make_content(rng)
        memory = Memory(
            id=f"m{i:03}", user_id="alice", content="x", type="book", weight=0.5, trust=0.5,
            created_at=T0, updated_at=T0, occurred_at=T0, structured_content=content,
        )  # fmt: skip
        store.memories.insert(memory)
        contents[memory.id] = content
    return contents


def test_every_operator_matches_the_python_reference(store: Store, corpus: dict[str, dict[str, Any]]) -> None:
    for raw in FILTERS:
        page = store.memories.page("alice", MemoryQuery(filter=parse_filter(raw), limit=1000))
        got = sorted(m.id for m in page.items)
        expected = sorted(i for i, content in corpus.items() if evaluate(raw, content))
        assert got == expected, raw
        assert page.total == len(expected)
    # the corpus exercises both outcomes of most filters
    decisive = [raw for raw in FILTERS if 0 < sum(evaluate(raw, c) for c in corpus.values()) < len(corpus)]
    assert len(decisive) >= len(FILTERS) - 2


def test_sqlite_value_index_and_json_reading_agree(db_path: Any) -> None:
    """SQLite answers structured conditions two ways (value index, or the JSON); both must agree."""
    from remember.store import open_store
    from remember.store.sqlite import filtersql

    store = open_store(str(db_path))
    rng = random.Random(7)
    for i in range(300):
        at = T0
        store.memories.insert(
            Memory(
                id=f"m{i:03}",
                user_id="alice",
                content="x",
                type="book",
                weight=0.5,
                trust=0.5,
                created_at=at,
                updated_at=at,
                occurred_at=at,
                structured_content=make_content(rng),
            )
        )
    conn = store.backend.db.connection  # type: ignore[attr-defined]
    for raw in FILTERS:
        answers = []
        for indexed in (True, False):
            params: list[Any] = ["alice"]
            where = filtersql.render(parse_filter(raw), params, "alice", indexed=indexed)  # type: ignore[arg-type]
            answers.append(
                sorted(
                    r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE m.user_id = ? AND {where}", params)
                )
            )
        assert answers[0] == answers[1], raw
    store.close()


def test_keys_with_dots_are_not_nested_paths(store: Store) -> None:
    memory = Memory(
        id="m", user_id="alice", content="x", type="t", weight=0.5, trust=0.5, created_at=T0, updated_at=T0,
        occurred_at=T0, structured_content={"a.b": 1, "a": {"b": 2}},
    )  # fmt: skip
    store.memories.insert(memory)
    for value, expected in ((1, 0), (2, 1)):
        page = store.memories.page("alice", MemoryQuery(filter=parse_filter({"structured_content.a.b": value})))
        assert (page.total, len(page.items)) == (expected, expected)


TAG_FILTERS: list[dict[str, Any]] = [
    {"tags": {"any": ["red", "blue"]}},
    {"tags": {"all": ["red", "blue"]}},
    {"tags": {"all": ["red", "red"]}},
    {"tags": {"none": ["red"]}},
    {"tags": {"contains": "green"}},
    {"tags": {"exists": True}},
    {"tags": {"exists": False}},
    {"not": {"tags": {"any": ["blue"]}}},
    {"or": [{"tags": {"all": ["red", "green"]}}, {"tags": {"none": ["blue", "green"]}}]},
]
TAGS = ["red", "blue", "green"]


def test_sqlite_tag_index_and_tag_lookups_agree_for_one_user_only(db_path: Any) -> None:
    """SQLite answers tag conditions two ways (one read of the tag index, or a lookup per memory):
    both give the Python reference's memories, and neither sees another user's tags."""
    from remember.store import open_store
    from remember.store.sqlite import filtersql

    store = open_store(str(db_path))
    rng = random.Random(11)
    tagged: dict[str, set[str]] = {}
    for user in ("alice", "bob"):
        for i in range(120):
            tags = tuple(rng.sample(TAGS, rng.randint(0, 3)))
            store.memories.insert(
                Memory(id=f"{user}{i:03}", user_id=user, content="x", type="t", weight=0.5, trust=0.5,
                       created_at=T0, updated_at=T0, occurred_at=T0, tags=tags)
            )  # fmt: skip
            if user == "alice":
                tagged[f"alice{i:03}"] = set(tags)
    # bob's memories have the same tags: a read of the tag index that ignored the user would return his ids
    conn = store.backend.db.connection  # type: ignore[attr-defined]
    reference = {
        0: lambda t: bool(t & {"red", "blue"}),
        1: lambda t: {"red", "blue"} <= t,
        2: lambda t: "red" in t,
        3: lambda t: "red" not in t,
        4: lambda t: "green" in t,
        5: bool,
        6: lambda t: not t,
        7: lambda t: "blue" not in t,
        8: lambda t: {"red", "green"} <= t or not (t & {"blue", "green"}),
    }
    for n, raw in enumerate(TAG_FILTERS):
        expected = sorted(i for i, tags in tagged.items() if reference[n](tags))
        assert 0 < len(expected) < len(tagged), raw
        sqls = set()
        for indexed in (True, False):
            params: list[Any] = ["alice"]
            where = filtersql.render(parse_filter(raw), params, "alice", indexed=indexed)  # type: ignore[arg-type]
            sqls.add(where)
            got = sorted(
                r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE m.user_id = ? AND {where}", params)
            )
            assert got == expected, (raw, indexed)
        assert len(sqls) == 2, raw  # the two ways really are two
        page = store.memories.page("alice", MemoryQuery(filter=parse_filter(raw), limit=1000))
        assert sorted(m.id for m in page.items) == expected, raw
    store.close()
