"""JSON Schema export: its shape, its validity as a schema, and agreement with validate_content."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from remember.templates import (
    FieldDef,
    ResolvedTemplate,
    Rules,
    builtin_lookup,
    builtin_templates,
    resolve,
    to_json_schema,
    validate_content,
)

from .conftest import NOW, template

ALL_TYPES = template(
    {"name": "title", "required": True, "description": "The title", "validation": {"max_length": 80}},
    {"name": "body", "type": "text", "validation": {"min_length": 1, "pattern": "\\w"}},
    {"name": "score", "type": "number", "validation": {"min": 0, "max": 5}},
    {"name": "count", "type": "integer", "default": 1},
    {"name": "ok", "type": "boolean"},
    {"name": "day", "type": "date", "validation": {"min": "2020-01-01"}},
    {"name": "at", "type": "datetime"},
    {"name": "level", "type": "enum", "options": ["low", "high"], "required": True},
    {"name": "tags", "type": "array", "item_type": "string", "validation": {"max_items": 3, "max_length": 10}},
    {"name": "items", "type": "array", "fields": [{"name": "task", "required": True}, {"name": "due", "type": "date"}]},
    {"name": "info", "type": "object", "fields": [{"name": "email"}]},
    {"name": "extra", "type": "object"},
    {"name": "note", "conditional": {"show_if": "ok"}, "required": True},
    {"name": "label", "type": "computed", "formula": "upper(title)"},
    name="Everything",
    description="All the field types",
)


def test_schema_shape():
    schema = to_json_schema(ALL_TYPES)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert (schema["title"], schema["description"], schema["type"]) == ("Everything", "All the field types", "object")
    assert schema["required"] == ["title", "level"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["title"] == {"type": "string", "maxLength": 80, "description": "The title"}
    assert props["body"] == {"type": ["string", "null"], "minLength": 1, "maxLength": 200_000, "pattern": "\\w"}
    assert props["score"] == {"type": ["number", "null"], "minimum": 0, "maximum": 5}
    assert props["count"] == {"type": ["integer", "null"], "default": 1}
    assert props["ok"] == {"type": ["boolean", "null"]}
    assert props["day"] == {"type": ["string", "null"], "format": "date", "description": "Not before 2020-01-01."}
    assert props["at"] == {"type": ["string", "null"], "format": "date-time"}
    assert props["level"] == {"enum": ["low", "high"]}
    assert props["tags"] == {
        "type": ["array", "null"],
        "items": {"type": "string", "maxLength": 10},
        "maxItems": 3,
    }
    assert props["items"]["items"] == {
        "type": "object",
        "properties": {
            "task": {"type": "string", "maxLength": 10_000},
            "due": {"type": ["string", "null"], "format": "date"},
        },
        "required": ["task"],
        "additionalProperties": False,
    }
    assert props["info"]["properties"]["email"] == {"type": ["string", "null"], "maxLength": 10_000}
    assert props["extra"] == {"type": ["object", "null"]}
    assert props["note"]["description"] == "Only used when ok."
    assert props["label"] == {"readOnly": True, "description": "Computed: upper(title)."}
    Draft202012Validator.check_schema(schema)


def test_schema_accepts_normalized_valid_content_and_rejects_bad_content():
    content = {
        "title": "Hello",
        "level": "low",
        "score": 4.5,
        "day": "2026-02-10",
        "at": "2026-02-10T10:00:00+02:00",
        "tags": ["a"],
        "items": [{"task": "x", "due": "2026-03-01"}],
        "info": {"email": "a@b.c"},
        "ok": True,
        "note": "n",
    }
    result = validate_content(ALL_TYPES, content, now=NOW)
    assert result.valid
    validator = Draft202012Validator(to_json_schema(ALL_TYPES), format_checker=Draft202012Validator.FORMAT_CHECKER)
    validator.validate(result.normalized)
    for bad in (
        {"level": "low"},
        {"title": "x", "level": "medium"},
        {"title": "x", "level": "low", "score": 9},
        {"title": "x", "level": "low", "unknown": 1},
        {"title": "x", "level": "low", "items": [{"due": "2026-01-01"}]},
        {"title": "x", "level": "low", "day": "10/02/2026"},
        {"title": 5, "level": "low"},
    ):
        assert not validator.is_valid(bad), bad
        assert not validate_content(ALL_TYPES, bad, now=NOW).valid


@pytest.mark.parametrize("definition", builtin_templates(), ids=lambda d: d.id)
def test_every_builtin_exports_a_valid_schema(definition):
    schema = to_json_schema(resolve(definition, builtin_lookup()))
    Draft202012Validator.check_schema(schema)
    assert schema["title"] == definition.name
    assert schema["x-remember-template"] == {"id": definition.id, "version": "1.0"}


_JUNK = st.none() | st.integers() | st.text(max_size=4) | st.booleans() | st.just([1])


def _mostly(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Nine draws in ten plausible, one junk: both outcomes of validation occur often."""
    return st.integers(0, 9).flatmap(lambda n: _JUNK if n == 0 else plausible)


def _value(field: FieldDef, depth: int = 0) -> st.SearchStrategy[Any]:
    rules = field.validation
    kind = field.type
    plausible: st.SearchStrategy[Any]
    if field.options and kind != "array":
        plausible = st.sampled_from(field.options)
    elif kind in {"string", "text"}:
        if rules.pattern:
            plausible = st.from_regex(rules.pattern, fullmatch=True).filter(lambda t: len(t) <= 50)
        else:
            plausible = st.text(min_size=rules.min_length or 0, max_size=min(rules.max_length or 12, 12))
    elif kind in {"number", "integer"}:
        low = int(rules.min) if rules.min is not None else -5
        high = int(rules.max) if rules.max is not None else 200
        plausible = st.integers(low, high)
        if kind == "number":
            plausible |= st.floats(low, high)
    elif kind == "boolean":
        plausible = st.booleans()
    elif kind == "date":
        plausible = st.dates(date(1990, 1, 1), date(2030, 1, 1)).map(str)
    elif kind == "datetime":
        plausible = st.datetimes(datetime(1990, 1, 1), datetime(2030, 1, 1)).map(lambda d: d.isoformat())
    elif kind == "object":
        plausible = _object(field.fields, depth + 1) if field.fields else st.just({"free": [1]})
    elif kind == "array":
        plausible = st.lists(_item(field, depth), min_size=rules.min_items or 0, max_size=3)
    else:
        plausible = st.integers()  # computed: whatever is sent is replaced
    return _mostly(plausible)


def _item(field: FieldDef, depth: int) -> st.SearchStrategy[Any]:
    if field.fields:
        return _object(field.fields, depth + 1)
    if field.item_type is None:
        return st.integers() | st.text(max_size=4)
    rules = Rules(pattern=field.validation.pattern, max_length=field.validation.max_length)
    return _value(FieldDef(name="item", type=field.item_type, options=field.options, validation=rules), depth + 1)


def _object(fields: tuple[FieldDef, ...], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    required = {f.name: _value(f, depth) for f in fields if f.required}
    optional = {f.name: _value(f, depth) for f in fields if not f.required}
    return st.fixed_dictionaries(required, optional=optional)


@given(st.data())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_content_that_passes_validation_passes_the_exported_schema(data):
    resolved: ResolvedTemplate = resolve(data.draw(st.sampled_from(builtin_templates())), builtin_lookup())
    content = data.draw(_object(resolved.fields))
    result = validate_content(resolved, content, now=NOW)
    if result.valid:
        schema = to_json_schema(resolved)
        Draft202012Validator(schema).validate(content)
        Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(result.normalized)
