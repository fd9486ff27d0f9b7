"""Validation of content: every error code, paths, all errors at once, completion, defaults."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remember.errors import ValidationFailed
from remember.templates import builtin_lookup, builtin_templates, resolve, validate_content

from .conftest import NOW, check, codes, template


def test_required():
    resolved = template({"name": "a", "required": True}, {"name": "b"})
    result = check(resolved, {})
    assert codes(result) == [("a", "required")]
    assert result.errors[0].message == "a is required"


def test_null_empty_and_blank_do_not_fill_a_required_field():
    resolved = template({"name": "a", "required": True}, {"name": "l", "type": "array", "required": True})
    for value in (None, "", "   "):
        assert codes(check(resolved, {"a": value, "l": [1]})) == [("a", "required")]
    assert codes(check(resolved, {"a": "x", "l": []})) == [("l", "required")]


def test_null_means_not_given():
    result = check(template({"name": "a"}, {"name": "b", "type": "integer"}), {"a": None, "b": None})
    assert result.valid
    assert result.normalized == {}


def test_pattern_and_its_custom_message():
    resolved = template(
        {
            "name": "email",
            "validation": {"pattern": "^[^@]+@[^@]+\\.[a-z]+$", "error_message": "Invalid email format"},
        },
        {"name": "code", "validation": {"pattern": "^[A-Z]{3}$"}},
    )
    result = check(resolved, {"email": "nope", "code": "abcd"})
    assert codes(result) == [("email", "pattern"), ("code", "pattern")]
    assert result.errors[0].message == "Invalid email format"
    assert result.errors[1].message == "code does not match the pattern ^[A-Z]{3}$"
    assert check(resolved, {"email": "a@b.io", "code": "ABC"}).valid


def test_pattern_is_a_search_like_json_schema():
    resolved = template({"name": "a", "validation": {"pattern": "b+"}})
    assert check(resolved, {"a": "abbbc"}).valid


def test_min_and_max_on_numbers():
    resolved = template(
        {"name": "age", "type": "number", "validation": {"min": 0, "max": 150, "error_message": "Age 0 to 150"}}
    )
    assert codes(check(resolved, {"age": -1})) == [("age", "min")]
    assert codes(check(resolved, {"age": 151})) == [("age", "max")]
    assert check(resolved, {"age": 151}).errors[0].message == "Age 0 to 150"
    assert check(resolved, {"age": 0}).valid
    assert check(resolved, {"age": 150}).valid


def test_min_and_max_on_dates():
    resolved = template(
        {"name": "d", "type": "date", "validation": {"min": "2020-01-01", "max": "2030-12-31"}},
        {"name": "t", "type": "datetime", "validation": {"min": "2026-01-01T00:00:00Z"}},
    )
    result = check(resolved, {"d": "2019-12-31", "t": "2025-12-31T23:59:59Z"})
    assert codes(result) == [("d", "min"), ("t", "min")]
    assert result.errors[0].message == "d must be at least 2020-01-01"
    assert codes(check(resolved, {"d": "2031-01-01"})) == [("d", "max")]
    assert check(resolved, {"d": "2030-12-31", "t": "2026-01-01T01:00:00+01:00"}).valid


def test_lengths():
    resolved = template({"name": "s", "validation": {"min_length": 2, "max_length": 4}})
    assert codes(check(resolved, {"s": "a"})) == [("s", "min_length")]
    assert codes(check(resolved, {"s": "abcde"})) == [("s", "max_length")]
    assert check(resolved, {"s": "abcd"}).valid


def test_strings_have_a_global_size_bound():
    resolved = template({"name": "s"}, {"name": "t", "type": "text"})
    assert codes(check(resolved, {"s": "x" * 10_001})) == [("s", "max_length")]
    assert check(resolved, {"t": "x" * 10_001}).valid
    assert codes(check(resolved, {"t": "x" * 200_001})) == [("t", "max_length")]


def test_item_counts():
    resolved = template({"name": "l", "type": "array", "validation": {"min_items": 1, "max_items": 2}})
    assert codes(check(resolved, {"l": []})) == [("l", "min_items")]
    assert codes(check(resolved, {"l": [1, 2, 3]})) == [("l", "max_items")]
    assert check(resolved, {"l": [1, 2]}).valid


def test_arrays_have_a_global_size_bound():
    resolved = template({"name": "l", "type": "array"})
    assert codes(check(resolved, {"l": [0] * 10_001})) == [("l", "max_items")]


def test_rules_of_a_scalar_array_apply_to_each_item():
    resolved = template(
        {
            "name": "l",
            "type": "array",
            "item_type": "string",
            "validation": {"pattern": "^[a-z]+$", "max_length": 3, "max_items": 5},
        }
    )
    result = check(resolved, {"l": ["ok", "BAD", "long"]})
    assert codes(result) == [("l[1]", "pattern"), ("l[2]", "max_length")]


def test_options():
    resolved = template({"name": "priority", "options": ["low", "medium", "high"]})
    result = check(resolved, {"priority": "urgent"})
    assert codes(result) == [("priority", "options")]
    assert result.errors[0].message == "priority must be one of: low, medium, high"
    multi = template({"name": "m", "type": "array", "item_type": "enum", "options": ["a", "b"]})
    assert codes(check(multi, {"m": ["a", "c"]})) == [("m[1]", "options")]


def test_unknown_fields_are_errors_that_name_the_known_fields():
    resolved = template({"name": "title"}, {"name": "rating", "type": "number"})
    result = check(resolved, {"title": "x", "ratng": 5})
    assert codes(result) == [("ratng", "unknown_field")]
    assert result.errors[0].message == "ratng is not a field; known fields: title, rating"
    assert result.normalized == {"title": "x"}


def test_error_paths_in_objects_and_arrays():
    resolved = template(
        {
            "name": "contact_info",
            "type": "object",
            "fields": [{"name": "email", "validation": {"pattern": "@"}}, {"name": "phone"}],
        },
        {
            "name": "action_items",
            "type": "array",
            "fields": [{"name": "task", "required": True}, {"name": "due_date", "type": "date"}],
        },
    )
    content = {
        "contact_info": {"email": "nope", "fax": "1"},
        "action_items": [{"task": "a"}, {"task": "b"}, {"task": "c", "due_date": "soon"}, {}, "text"],
    }
    assert codes(check(resolved, content)) == [
        ("contact_info.fax", "unknown_field"),
        ("contact_info.email", "pattern"),
        ("action_items[2].due_date", "type"),
        ("action_items[3].task", "required"),
        ("action_items[4]", "type"),
    ]
    message = check(resolved, content).errors[0].message
    assert message == "contact_info.fax is not a field of contact_info; known fields: email, phone"


def test_all_errors_are_reported_at_once():
    resolved = template(
        {"name": "a", "required": True},
        {"name": "b", "type": "integer", "validation": {"max": 3}},
        {"name": "c", "type": "boolean"},
        {"name": "d", "type": "date"},
        {"name": "e", "validation": {"min_length": 2, "pattern": "^[0-9]+$"}},
    )
    result = check(resolved, {"b": 9, "c": "yes", "d": "tomorrow", "e": "x", "f": 1})
    assert codes(result) == [
        ("f", "unknown_field"),
        ("a", "required"),
        ("b", "max"),
        ("c", "type"),
        ("d", "type"),
        ("e", "min_length"),
        ("e", "pattern"),
    ]


def test_content_must_be_an_object():
    result = check(template({"name": "a"}), ["a"])
    assert codes(result) == [("", "type")]
    assert result.completion == 0.0


def test_completion_counts_visible_non_computed_top_level_fields():
    resolved = template(
        {"name": "a"},
        {"name": "b"},
        {"name": "c", "type": "boolean"},
        {"name": "d", "conditional": {"show_if": "c"}},
        {"name": "e", "type": "computed", "formula": "concat(a, b)"},
    )
    assert check(resolved, {}).completion == 0.0
    assert check(resolved, {"a": "x"}).completion == 0.3333
    assert check(resolved, {"a": "x", "b": "", "c": True}).completion == 0.5
    assert check(resolved, {"a": "x", "b": "y", "c": True, "d": "z"}).completion == 1.0


def test_defaults_are_applied_and_checked():
    resolved = template(
        {"name": "priority", "options": ["low", "medium", "high"], "default_value": "medium"},
        {"name": "tags", "type": "array", "default": []},
        {"name": "done", "type": "boolean", "default": False},
    )
    result = check(resolved, {})
    assert result.normalized == {"priority": "medium", "tags": [], "done": False}
    assert check(resolved, {"priority": "high"}).normalized["priority"] == "high"
    assert check(resolved, {"priority": None}).normalized["priority"] == "medium"


def test_a_default_fills_a_required_field():
    resolved = template({"name": "status", "required": True, "default": "open"})
    assert check(resolved, {}).valid


def test_defaults_are_not_shared_between_results():
    resolved = template({"name": "tags", "type": "array", "default": ["a"]})
    check(resolved, {}).normalized["tags"].append("b")
    assert check(resolved, {}).normalized["tags"] == ["a"]


def test_the_result_as_a_dict_and_as_an_error():
    result = check(template({"name": "a", "required": True}), {})
    assert result.as_dict() == {
        "valid": False,
        "errors": [{"field": "a", "code": "required", "message": "a is required", "value": None}],
        "completion": 0.0,
        "normalized": {},
        "ignored_fields": [],
    }
    with pytest.raises(ValidationFailed) as caught:
        result.raise_if_invalid("the memory does not fit 'Test'")
    assert caught.value.errors == list(result.errors)
    assert "a: a is required" in caught.value.message
    check(template({"name": "a"}), {}).raise_if_invalid()


def test_the_clock_defaults_to_now():
    resolved = template(
        {"name": "d", "type": "date"}, {"name": "age", "type": "computed", "formula": "date_diff(now(), d)"}
    )
    assert validate_content(resolved, {"d": "2000-01-01"}).normalized["age"] > 9000


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


def _content_for(names: list[str]) -> st.SearchStrategy[Any]:
    keys = st.sampled_from(names) | st.text(max_size=12)
    return st.dictionaries(keys, _json, max_size=8) | _json


@given(st.data())
@settings(max_examples=400, deadline=None)
def test_validation_never_raises_on_any_json(data):
    definition = data.draw(st.sampled_from(builtin_templates()))
    resolved = resolve(definition, builtin_lookup())
    names = [field.name for field in resolved.fields]
    content = data.draw(_content_for(names))
    result = validate_content(resolved, content, now=NOW)
    assert result.valid == (not result.errors)
    assert 0.0 <= result.completion <= 1.0
