"""Parsing the filter language: what is accepted, and every kind of refusal."""

from __future__ import annotations

from typing import Any

import pytest

from remember.errors import ValidationFailed
from remember.filters import (
    MAX_CONDITIONS,
    MAX_DEPTH,
    AllOf,
    AnyOf,
    Condition,
    Not,
    best_passing,
    conjoin,
    parse_filter,
)


def codes(raw: Any) -> list[tuple[str, str]]:
    with pytest.raises(ValidationFailed) as info:
        parse_filter(raw)
    return [(e.field, e.code) for e in info.value.errors]


def test_empty_means_no_filter() -> None:
    assert parse_filter(None) is None
    assert parse_filter({}) is None


def test_plain_values_mean_equality_and_lists_mean_in() -> None:
    assert parse_filter({"type": "book"}) == Condition("type", "text", "eq", "book")
    assert parse_filter({"type": ["a", "b"]}) == Condition("type", "text", "in", ("a", "b"))


def test_tags_shorthands() -> None:
    assert parse_filter({"tags": "x"}) == Condition("tags", "tags", "contains", "x")
    assert parse_filter({"tags": ["x", "y"]}) == Condition("tags", "tags", "any", ("x", "y"))


def test_structured_paths_and_aliases() -> None:
    c = parse_filter({"structured_content.author.name": {"eq": "X"}})
    assert c == Condition("structured_content", "json", "eq", "X", ("author", "name"))
    c = parse_filter({"structured_content.items.2": 1})
    assert isinstance(c, Condition)
    assert c.path == ("items", 2)
    c = parse_filter({"context.timestamp": {"gte": "2026-01-01"}})
    assert isinstance(c, Condition)
    assert c.field == "occurred_at"


def test_keys_and_operators_are_anded() -> None:
    tree = parse_filter({"weight": {"gte": 0.1, "lt": 0.5}, "type": "x"})
    assert isinstance(tree, AllOf)
    assert len(tree.parts) == 2
    assert isinstance(tree.parts[0], AllOf)


def test_logical_operators() -> None:
    tree = parse_filter({"or": [{"type": "a"}, {"not": {"type": "b"}}]})
    assert isinstance(tree, AnyOf)
    assert isinstance(tree.parts[1], Not)


def test_conjoin_skips_none() -> None:
    a = Condition("type", "text", "eq", "a")
    assert conjoin(None, None) is None
    assert conjoin(a, None) == a
    assert conjoin(a, a) == AllOf((a, a))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("type=book", [("filters", "bad_filter")]),
        ({"colour": "red"}, [("filters.colour", "unknown_filter_field")]),
        ({"type": {"gt": "a"}}, [("filters.type.gt", "unknown_operator")]),
        ({"type": {"regex": ".*"}}, [("filters.type.regex", "unknown_operator")]),
        ({"weight": {"gte": "high"}}, [("filters.weight.gte", "bad_filter_value")]),
        ({"weight": {"gte": float("nan")}}, [("filters.weight.gte", "bad_filter_value")]),
        ({"weight": {"gte": True}}, [("filters.weight.gte", "bad_filter_value")]),
        ({"created_at": {"gte": "yesterday"}}, [("filters.created_at.gte", "bad_filter_value")]),
        ({"created_at": {"gte": 5}}, [("filters.created_at.gte", "bad_filter_value")]),
        ({"type": {"in": []}}, [("filters.type.in", "bad_filter_value")]),
        ({"type": {"in": "book"}}, [("filters.type.in", "bad_filter_value")]),
        ({"type": {"exists": "yes"}}, [("filters.type.exists", "bad_filter_value")]),
        ({"type": {}}, [("filters.type", "bad_filter")]),
        ({"or": {"type": "a"}}, [("filters.or", "bad_filter")]),
        ({"or": []}, [("filters.or", "bad_filter")]),
        ({"not": "x"}, [("filters.not", "bad_filter")]),
        ({"structured_content.a b": 1}, [("filters.structured_content.a b", "bad_filter_path")]),
        ({"structured_content.": 1}, [("filters.structured_content.", "bad_filter_path")]),
        ({"structured_content.a'); drop": 1}, [("filters.structured_content.a'); drop", "bad_filter_path")]),
        ({"structured_content.x": {"eq": {"a": 1}}}, [("filters.structured_content.x.eq", "bad_filter_value")]),
        ({"type": "x" * 2000}, [("filters.type.eq", "bad_filter_value")]),
        ({"structured_content.x": {"gt": True}}, [("filters.structured_content.x.gt", "bad_filter_value")]),
        ({"structured_content.x": {"lte": None}}, [("filters.structured_content.x.lte", "bad_filter_value")]),
    ],
)
def test_refusals_name_the_field_and_code(raw: Any, expected: list[tuple[str, str]]) -> None:
    assert codes(raw) == expected


def test_every_problem_is_reported_at_once() -> None:
    found = codes({"colour": 1, "weight": {"gte": "x"}, "type": {"gt": 1}})
    assert [code for _, code in found] == ["unknown_filter_field", "bad_filter_value", "unknown_operator"]


def test_messages_say_what_is_allowed() -> None:
    with pytest.raises(ValidationFailed, match="Known: id, content, title, type"):
        parse_filter({"colour": "red"})
    with pytest.raises(ValidationFailed, match="use one of contains, eq, exists, in, ne, nin"):
        parse_filter({"type": {"gt": "a"}})


def test_depth_is_bounded() -> None:
    raw: dict[str, Any] = {"type": "x"}
    for _ in range(MAX_DEPTH + 5):
        raw = {"not": raw}
    assert "filter_too_complex" in {code for _, code in codes(raw)}


def test_size_is_bounded() -> None:
    raw = {"or": [{"weight": {"gte": i / 1000}} for i in range(MAX_CONDITIONS + 1)]}
    assert [code for _, code in codes(raw)] == ["filter_too_complex"]


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ({"or": [{}] * 1000}, "filter_too_complex"),
        ({"or": [{}]}, "bad_filter"),
        ({"not": {}}, "bad_filter"),
        ({"and": [{"type": "a"}] * 200_000}, "filter_too_complex"),
    ],
)
def test_empty_and_oversized_logic_is_refused(raw: Any, code: str) -> None:
    assert code in {c for _, c in codes(raw)}


def test_huge_lists_are_refused() -> None:
    assert codes({"type": {"in": ["a"] * 101}}) == [("filters.type.in", "bad_filter_value")]


def test_the_best_that_pass_are_taken_only_when_enough_pass_or_nothing_else_could() -> None:
    best = [("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6)]
    assert best_passing(best, {"b", "d", "x"}, 2, complete=False) == [("b", 0.8), ("d", 0.6)]
    assert best_passing(best, {"b", "d"}, 3, complete=False) is None  # another memory might rank third
    assert best_passing(best, {"b", "d"}, 3, complete=True) == [("b", 0.8), ("d", 0.6)]
    assert best_passing(best, set(), 1, complete=True) == []
