"""Conditional (show_if) and computed fields inside validation."""

from __future__ import annotations

from .conftest import check, codes, template

CHILDREN = (
    {"name": "has_children", "type": "boolean"},
    {"name": "children_names", "type": "array", "required": True, "conditional": {"show_if": "has_children == true"}},
    {
        "name": "children_ages",
        "type": "array",
        "item_type": "integer",
        "conditional": {"show_if": "has_children == true"},
    },
)


def test_hidden_fields_are_not_required():
    resolved = template(*CHILDREN)
    assert check(resolved, {"has_children": False}).valid
    assert check(resolved, {}).valid
    assert codes(check(resolved, {"has_children": True})) == [("children_names", "required")]


def test_hidden_fields_are_not_kept():
    resolved = template(*CHILDREN)
    result = check(resolved, {"has_children": False, "children_names": ["Tom"], "children_ages": [3]})
    assert result.valid
    assert result.normalized == {"has_children": False}


def test_shown_fields_are_kept():
    resolved = template(*CHILDREN)
    result = check(resolved, {"has_children": True, "children_names": ["Tom"], "children_ages": [3.0]})
    assert result.normalized == {"has_children": True, "children_names": ["Tom"], "children_ages": [3]}


def test_a_value_sent_for_a_hidden_field_must_still_have_its_type():
    resolved = template(*CHILDREN)
    result = check(resolved, {"has_children": False, "children_ages": ["three"]})
    assert codes(result) == [("children_ages[0]", "type")]


def test_show_if_sees_defaults_and_reads_later_fields():
    resolved = template(
        {"name": "note", "conditional": {"show_if": "kind == 'long'"}, "required": True},
        {"name": "kind", "options": ["short", "long"], "default": "long"},
    )
    assert codes(check(resolved, {})) == [("note", "required")]
    assert check(resolved, {"kind": "short"}).valid


def test_show_if_on_a_missing_value_hides_the_field():
    resolved = template({"name": "age", "type": "integer"}, {"name": "school", "conditional": {"show_if": "age < 18"}})
    assert check(resolved, {"school": "x"}).normalized == {}
    assert check(resolved, {"age": 12, "school": "x"}).normalized == {"age": 12, "school": "x"}


def test_show_if_inside_objects_reads_sibling_fields():
    resolved = template(
        {
            "name": "items",
            "type": "array",
            "fields": [
                {"name": "done", "type": "boolean"},
                {"name": "done_on", "type": "date", "required": True, "conditional": {"show_if": "done"}},
            ],
        }
    )
    result = check(resolved, {"items": [{"done": False}, {"done": True}]})
    assert codes(result) == [("items[1].done_on", "required")]


def test_spec_computed_fields():
    resolved = template(
        {"name": "first_name"},
        {"name": "last_name"},
        {"name": "last_contact_date", "type": "date"},
        {"name": "completed_items", "type": "array"},
        {"name": "total_items", "type": "array"},
        {"name": "full_name", "type": "computed", "formula": "concat(first_name, ' ', last_name)"},
        {"name": "days_since_last_contact", "type": "computed", "formula": "date_diff(now(), last_contact_date)"},
        {
            "name": "completion_percentage",
            "type": "computed",
            "formula": "count(completed_items) / count(total_items) * 100",
        },
    )
    full = {
        "first_name": "Ada",
        "last_name": "Lovelace",
        "last_contact_date": "2026-01-01",
        "completed_items": ["a"],
        "total_items": ["a", "b", "c", "d"],
    }
    normalized = check(resolved, full).normalized
    assert normalized["full_name"] == "Ada Lovelace"
    assert normalized["days_since_last_contact"] == 41
    assert normalized["completion_percentage"] == 25.0
    # Missing inputs leave computed fields empty, without an error.
    result = check(resolved, {"first_name": "Ada"})
    assert result.valid
    assert result.normalized == {"first_name": "Ada"}


def test_computed_fields_replace_what_the_caller_sent():
    resolved = template({"name": "a", "type": "integer"}, {"name": "double", "type": "computed", "formula": "a * 2"})
    assert check(resolved, {"a": 2, "double": 99}).normalized == {"a": 2, "double": 4}
    assert check(resolved, {"double": 99}).normalized == {}


def test_computed_fields_may_read_computed_fields_in_any_order():
    resolved = template(
        {"name": "total", "type": "computed", "formula": "subtotal + tax"},
        {"name": "tax", "type": "computed", "formula": "round(subtotal * 0.2, 2)"},
        {"name": "subtotal", "type": "number"},
    )
    assert check(resolved, {"subtotal": 10}).normalized == {"total": 12.0, "tax": 2.0, "subtotal": 10}


def test_computed_dates_are_stored_in_iso_form():
    resolved = template(
        {"name": "stamp", "type": "computed", "formula": "now()"},
        {"name": "day", "type": "computed", "formula": "today()"},
    )
    assert check(resolved, {}).normalized == {"stamp": "2026-02-11T15:30:00.000000Z", "day": "2026-02-11"}


def test_computed_fields_read_invalid_values_as_missing():
    resolved = template({"name": "a", "type": "integer"}, {"name": "b", "type": "computed", "formula": "a + 1"})
    result = check(resolved, {"a": "x"})
    assert codes(result) == [("a", "type")]
    assert result.normalized == {}


def test_runtime_formula_errors_leave_the_field_empty():
    resolved = template(
        {"name": "a", "type": "number"},
        {"name": "b", "type": "number"},
        {"name": "ratio", "type": "computed", "formula": "a / b"},
    )
    result = check(resolved, {"a": 1, "b": 0})
    assert result.valid
    assert "ratio" not in result.normalized


def test_computed_field_in_an_array_of_objects():
    resolved = template(
        {
            "name": "lines",
            "type": "array",
            "fields": [
                {"name": "qty", "type": "integer"},
                {"name": "price", "type": "number"},
                {"name": "amount", "type": "computed", "formula": "qty * price"},
            ],
        },
        {"name": "total", "type": "computed", "formula": "sum(lines.amount)"},
    )
    result = check(resolved, {"lines": [{"qty": 2, "price": 1.5}, {"qty": 1, "price": 4}]})
    assert result.normalized["lines"][0]["amount"] == 3.0
    assert result.normalized["total"] == 7.0


def test_hidden_computed_fields_are_not_evaluated():
    resolved = template(
        {"name": "a", "type": "integer"},
        {"name": "b", "type": "computed", "formula": "a * 2", "conditional": {"show_if": "a > 1"}},
    )
    assert check(resolved, {"a": 1}).normalized == {"a": 1}
    assert check(resolved, {"a": 2}).normalized == {"a": 2, "b": 4}
