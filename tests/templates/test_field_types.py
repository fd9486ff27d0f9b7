"""Each field type: what it accepts, what it refuses, and the normalized form (the coercion policy)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import check, codes, template


def accepts(field: dict[str, Any], value: Any) -> Any:
    result = check(template({"name": "x", **field}), {"x": value})
    assert result.valid, result.errors
    return result.normalized["x"]


def refuses(field: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    result = check(template({"name": "x", **field}), {"x": value})
    assert not result.valid
    return codes(result)


@pytest.mark.parametrize(
    ("field", "value", "normalized"),
    [
        ({"type": "string"}, "hello", "hello"),
        ({}, "type defaults to string", "type defaults to string"),
        ({"type": "text"}, "line one\nline two", "line one\nline two"),
        ({"type": "number"}, 4.5, 4.5),
        ({"type": "number"}, 4, 4),
        ({"type": "float"}, 1.25, 1.25),  # the spec's alias of number
        ({"type": "integer"}, 7, 7),
        ({"type": "integer"}, 5.0, 5),  # a whole float is an integer
        ({"type": "boolean"}, True, True),
        ({"type": "boolean"}, False, False),
        ({"type": "date"}, "2026-02-10", "2026-02-10"),
        ({"type": "date"}, "20260210", "2026-02-10"),
        ({"type": "date"}, "2026-02-10T23:30:00+05:00", "2026-02-10"),  # the date as written
        ({"type": "datetime"}, "2026-02-10T14:30:00Z", "2026-02-10T14:30:00.000000Z"),
        ({"type": "datetime"}, "2026-02-10T14:30:00+01:00", "2026-02-10T13:30:00.000000Z"),
        ({"type": "datetime"}, "2026-02-10T14:30", "2026-02-10T14:30:00.000000Z"),  # naive is UTC
        ({"type": "datetime"}, "2026-02-10", "2026-02-10T00:00:00.000000Z"),
        ({"type": "enum", "options": ["a", "b"]}, "b", "b"),
        ({"type": "enum", "options": [1, 2.5]}, 2.5, 2.5),
        ({"type": "string", "options": ["low", "high"]}, "low", "low"),
        ({"type": "array"}, [1, "two", None, {"three": 3}], [1, "two", None, {"three": 3}]),
        ({"type": "array", "item_type": "integer"}, [1, 2.0], [1, 2]),
        ({"type": "array", "item_type": "date"}, ["2026-01-01"], ["2026-01-01"]),
        ({"type": "array", "item_type": "enum", "options": ["x", "y"]}, ["y", "x"], ["y", "x"]),
        ({"type": "object"}, {"any": {"json": [1, 2]}}, {"any": {"json": [1, 2]}}),
        ({"type": "object", "fields": [{"name": "a", "type": "integer"}]}, {"a": 1}, {"a": 1}),
        (
            {"type": "array", "fields": [{"name": "a", "type": "date"}]},
            [{"a": "2026-01-01"}, {}],
            [{"a": "2026-01-01"}, {}],
        ),
    ],
)
def test_accepted_values_and_their_normalized_form(field, value, normalized):
    result = accepts(field, value)
    assert result == normalized
    assert type(result) is type(normalized)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ({"type": "string"}, 5),
        ({"type": "string"}, ["a"]),
        ({"type": "text"}, {"a": 1}),
        ({"type": "number"}, "5"),  # no numbers from strings
        ({"type": "number"}, True),  # booleans are not numbers
        ({"type": "number"}, float("nan")),
        ({"type": "number"}, float("inf")),
        ({"type": "number"}, 2**70),
        ({"type": "integer"}, 5.5),
        ({"type": "integer"}, "5"),
        ({"type": "integer"}, False),
        ({"type": "boolean"}, "true"),  # no booleans from strings
        ({"type": "boolean"}, 1),
        ({"type": "date"}, "10/02/2026"),
        ({"type": "date"}, "yesterday"),
        ({"type": "date"}, 20260210),
        ({"type": "date"}, "2026-02-30"),
        ({"type": "datetime"}, "2026-02-10 25:00"),
        ({"type": "datetime"}, "2" * 100),
        ({"type": "enum", "options": ["a"]}, ["a"]),
        ({"type": "array"}, "a, b"),
        ({"type": "array", "item_type": "integer"}, [1, "2"]),
        ({"type": "array", "item_type": "string"}, ["a", None]),
        ({"type": "object"}, [1]),
        ({"type": "object"}, "text"),
    ],
)
def test_refused_values_are_type_errors(field, value):
    assert refuses(field, value)[0][1] == "type"


def test_enum_matches_exactly():
    assert refuses({"type": "enum", "options": ["Low"]}, "low") == [("x", "options")]
    assert refuses({"type": "enum", "options": [1]}, True) == [("x", "options")]
    assert accepts({"type": "enum", "options": [1]}, 1.0) == 1.0


def test_type_error_message_says_what_was_expected():
    result = check(template({"name": "rating", "type": "number"}), {"rating": "five"})
    assert result.errors[0].message == "rating must be a number, got text 'five'"
    assert result.errors[0].value == "five"


def test_free_form_values_must_be_json():
    assert refuses({"type": "object"}, {"a": {1, 2}})[0][1] == "type"
    assert refuses({"type": "object"}, {"a": float("nan")})[0][1] == "type"
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    assert refuses({"type": "array"}, deep)[0][1] == "type"


def test_free_form_objects_are_copied():
    value = {"a": [1]}
    normalized = accepts({"type": "object"}, value)
    normalized["a"].append(2)
    assert value == {"a": [1]}
