"""A field's kind: declared in its definition, checked against its type, kept wherever the field goes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remember.errors import TemplateError
from remember.templates import (
    definition_changes,
    field_summary,
    kind_note,
    lookup_from,
    parse_fields,
    parse_template,
    resolve,
    to_json_schema,
)
from remember.templates.kinds import KINDS, SHAPE_WORDS, kinds_for, shape_of

MET = {
    "id": "met",
    "name": "Someone I met",
    "fields": [
        {"name": "who_i_met", "kind": "person", "required": True},
        {"name": "when_it_happened", "type": "date", "kind": "past_date"},
        {"name": "bill_total", "type": "number", "kind": "money"},
        {"name": "stars_given", "type": "integer", "kind": "rating", "validation": {"min": 1, "max": 5}},
        {"name": "with_whom", "type": "array", "item_type": "string", "kind": "people"},
        {"name": "links", "type": "array", "item_type": "string", "kind": "url"},
        {"name": "notes", "type": "text"},
    ],
}


def errors(*fields: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(TemplateError) as caught:
        parse_fields(list(fields))
    return [(e.field, e.code, e.message) for e in caught.value.errors]


def test_a_declared_kind_is_kept_and_read_back():
    definition = parse_template(MET)
    kinds = {f.name: f.kind for f in definition.fields}
    assert kinds == {"who_i_met": "person", "when_it_happened": "past_date", "bill_total": "money",
                     "stars_given": "rating", "with_whom": "people", "links": "url", "notes": None}  # fmt: skip
    assert definition.as_dict()["fields"][0] == {"name": "who_i_met", "type": "string", "kind": "person",
                                                 "required": True}  # fmt: skip
    assert "kind" not in definition.as_dict()["fields"][-1]  # only when declared
    assert parse_template(definition.as_dict()) == definition


def test_an_unknown_kind_is_refused_with_the_kinds_that_fit():
    [(path, code, message)] = errors({"name": "who_i_met", "kind": "persn"})
    assert (path, code) == ("who_i_met", "unknown_kind")
    assert "did you mean 'person'?" in message
    assert message.endswith(f"the kinds for a string field: {', '.join(kinds_for('text'))})")
    [(_, code, message)] = errors({"name": "when", "type": "date", "kind": "yesterday"})
    assert code == "unknown_kind" and "date, past_date, start_date" in message and "person" not in message
    [(_, code, message)] = errors({"name": "who", "kind": 3})
    assert code == "unknown_kind" and "unknown kind 3" in message
    [(_, code, message)] = errors({"name": "where", "type": "object", "kind": "venue_x"})
    assert code == "unknown_kind" and message.endswith("(an object field takes no kind)")


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (
            {"name": "a", "type": "string", "kind": "rating"},
            "kind 'rating' is for number or integer fields, not a string field",
        ),
        (
            {"name": "a", "type": "number", "kind": "person"},
            "kind 'person' is for string or text fields, not a number field",
        ),
        (
            {"name": "a", "type": "string", "kind": "people"},
            "kind 'people' is for arrays of string or text, not a string field",
        ),
        ({"name": "a", "type": "array", "kind": "people"}, "not an array without an item_type"),
        ({"name": "a", "type": "array", "item_type": "integer", "kind": "people"}, "not an array of integer"),
        ({"name": "a", "type": "datetime", "kind": "money"}, "kind 'money' is for number or integer fields"),
        (
            {"name": "a", "type": "boolean", "kind": "date"},
            "kind 'date' is for date or datetime fields, not a boolean field",
        ),
        ({"name": "a", "type": "computed", "formula": "1", "kind": "money"}, "not a computed field"),
        ({"name": "a", "type": "enum", "options": ["x"], "kind": "person"}, "not an enum field"),
        ({"name": "a", "type": "integer", "kind": "price_range"}, "is for string or text fields, or enum fields"),
    ],
)
def test_a_kind_that_does_not_fit_the_type_is_refused(field: dict[str, Any], expected: str) -> None:
    [(path, code, message)] = errors(field)
    assert (path, code) == ("a", "kind")
    assert expected in message


def test_kinds_that_fit_are_accepted_on_every_type_they_name():
    samples = {"text": {"type": "text"}, "texts": {"type": "array", "item_type": "text"},
               "number": {"type": "integer"}, "date": {"type": "datetime"}, "boolean": {"type": "boolean"},
               "choice": {"type": "enum", "options": ["$", "$$"]}}  # fmt: skip
    assert set(samples) == set(SHAPE_WORDS)
    for name, kind in KINDS.items():
        assert kind.shapes and kind.holds, name
        for shape in kind.shapes:
            [field] = parse_fields([{"name": "f", "kind": name, **samples[shape]}])
            assert field.kind == name and shape_of(field.type, field.item_type) == shape


def test_the_kind_is_kept_through_inheritance_schema_description_and_changes():
    parent = parse_template(MET)
    child = parse_template({"id": "child", "name": "Dinner", "parent_template_id": "met", "fields": [
        {"name": "bill_total", "type": "integer", "kind": "money", "required": True},
        {"name": "place", "kind": "venue"},
    ]})  # fmt: skip
    resolved = resolve(child, lookup_from([parent]))
    kinds = {f.name: f.kind for f in resolved.fields}
    assert kinds["who_i_met"] == "person" and kinds["bill_total"] == "money" and kinds["place"] == "venue"
    properties = to_json_schema(resolved)["properties"]
    assert properties["who_i_met"]["x-remember-kind"] == "person"
    assert "x-remember-kind" not in properties["notes"]
    who = resolved.field("who_i_met")
    assert who is not None
    assert f"{field_summary(who)}{kind_note(who)}" == "text, required, kind person"
    before = parent.as_dict()
    after = {**before, "fields": [{**before["fields"][0], "kind": "assignee"}, *before["fields"][1:]]}
    assert definition_changes(before, after)["changed_fields"] == [{"name": "who_i_met", "attributes": ["kind"]}]


def test_the_docs_list_every_kind_once():
    text = (Path(__file__).parents[2] / "docs" / "templates.md").read_text(encoding="utf-8")
    section = text.split("### Kinds", 1)[1].split("\n### ", 1)[0]
    rows = [line.split("|")[2] for line in section.splitlines() if line.startswith("| ") and "`" in line]
    listed = [name for row in rows for name in re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", row))]
    assert sorted(listed) == sorted(KINDS)


_kinds = st.sampled_from([*KINDS, "nope", "", 5, None])
_types = st.sampled_from(["string", "text", "number", "integer", "boolean", "date", "datetime", "array", "object"])


@given(_kinds, _types, st.sampled_from([None, "string", "integer", "date", "object"]))
@settings(max_examples=300, deadline=None)
def test_any_kind_on_any_type_is_either_kept_or_refused_by_name(kind: Any, field_type: str, item: str | None) -> None:
    raw: dict[str, Any] = {"name": "f", "type": field_type, "kind": kind}
    if field_type == "array" and item is not None:
        raw["item_type"] = item
        if item == "object":
            raw["fields"] = [{"name": "x"}]
    try:
        [field] = parse_fields([raw])
    except TemplateError as error:
        refused: set[str] = {e.code for e in error.errors}
    else:
        refused = set()
        assert field.kind == kind
        assert parse_fields([field.as_dict()]) == (field,)
    assert refused <= {"unknown_kind", "kind"}
    assert kind is not None or not refused
