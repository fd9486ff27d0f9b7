"""Compact tool schemas keep every type, constraint and description, and drop only repetition."""

from __future__ import annotations

import json

import jsonschema
import pytest

from remember.mcp.compact import compact, compact_input, compact_output

SCHEMA = {
    "title": "remember_create_memoryArguments",
    "type": "object",
    "properties": {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Title"},
        "weight": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}], "title": "Weight"},
        "content": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "null"}], "title": "Content"},
        "limit": {"default": 20, "title": "Limit", "type": "integer"},
        "context": {"anyOf": [{"$ref": "#/$defs/ContextIn"}, {"type": "null"}]},
    },
    "required": ["limit"],
    "$defs": {
        "ContextIn": {
            "title": "ContextIn",
            "type": "object",
            "properties": {"source": {"title": "Source", "type": "string"}},
            "additionalProperties": True,
        }
    },
}


def test_titles_and_null_defaults_go_but_a_property_named_title_stays() -> None:
    out = compact(SCHEMA)
    assert "title" not in out and "title" in out["properties"]
    # null stays a branch of its own: clients that read one type per value refuse ["string", "null"]
    assert out["properties"]["title"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert out["properties"]["weight"] == {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]}
    assert out["properties"]["limit"] == {"default": 20, "type": "integer"}
    assert out["properties"]["content"]["anyOf"] == [{"type": "string"}, {"type": "object"}, {"type": "null"}]
    assert out["$defs"]["ContextIn"] == {"type": "object", "properties": {"source": {"type": "string"}}}
    assert SCHEMA["properties"]["title"]["title"] == "Title"  # the input is left alone


def test_optional_parameters_drop_null_and_required_ones_keep_it() -> None:
    out = compact_input(SCHEMA)
    assert out["properties"]["title"] == {"type": "string"}
    assert out["properties"]["content"] == {"anyOf": [{"type": "string"}, {"type": "object"}]}
    assert out["properties"]["context"] == {"$ref": "#/$defs/ContextIn"}
    assert out["required"] == ["limit"]


@pytest.mark.parametrize("value", [{"limit": 1}, {"title": "x", "limit": 1, "context": {"source": "chat"}}])
def test_a_result_valid_before_is_valid_after(value: dict[str, object]) -> None:
    jsonschema.validate(value, SCHEMA)
    jsonschema.validate(value, compact_output(SCHEMA))


def test_a_result_declares_no_null_for_it_leaves_nulls_out() -> None:
    out = compact_output(SCHEMA)
    assert out["properties"]["title"] == {"type": "string"}
    assert out["properties"]["weight"] == {"type": "number", "minimum": 0}
    assert out["properties"]["content"] == {"anyOf": [{"type": "string"}, {"type": "object"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"title": None}, out)


def test_results_lose_required_lists_and_closed_objects_but_not_enums() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"required": {"type": "array", "items": {"type": "string"}}, "mode": {"enum": ["a"]}},
        "required": ["required", "mode"],
    }
    out = compact_output(schema, lean=False)
    assert out == {
        "type": "object",
        "properties": {"required": {"type": "array", "items": {"type": "string"}}, "mode": {"enum": ["a"]}},
    }


def test_a_result_writes_a_model_used_once_in_place_and_keeps_shared_and_recursive_ones() -> None:
    node = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tree = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
    schema = {
        "type": "object",
        "properties": {
            "once": {"anyOf": [{"$ref": "#/$defs/Once"}, {"type": "null"}]},
            "a": {"$ref": "#/$defs/Shared"},
            "b": {"$ref": "#/$defs/Shared"},
            "tree": {"$ref": "#/$defs/Tree"},
        },
        "$defs": {"Once": node, "Shared": node, "Tree": tree},
    }
    out = compact_output(schema)
    assert out["properties"]["once"] == {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert out["properties"]["a"] == out["properties"]["b"] == {"$ref": "#/$defs/Shared"}
    assert set(out["$defs"]) == {"Shared", "Tree"}
    for value in ({"a": {"n": 1}, "b": {"n": 2}, "tree": {"kids": [{"kids": []}]}}, {"once": {"n": 3}}):
        jsonschema.validate(value, schema)
        jsonschema.validate(value, out)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"once": {"n": "x"}}, out)


def test_a_lean_result_names_its_main_properties_and_admits_its_details() -> None:
    memory = {
        "type": "object",
        "x-detail": ["weight", "context"],
        "properties": {
            "id": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "weight": {"type": "number"},
            "context": {"type": "object"},
            "history": {"type": "array", "items": {"type": "object", "properties": {"at": {"type": "string"}}}},
        },
        "required": ["id", "tags", "weight", "context"],
    }
    schema = {"type": "object", "properties": {"memories": {"type": "array", "items": memory}}}
    lean, whole = compact_output(schema), compact_output(schema, lean=False)
    shown = lean["properties"]["memories"]["items"]
    assert shown["type"] == "object" and list(shown["properties"]) == ["id", "tags", "history"]
    assert shown["properties"]["tags"] == {"type": "array"}  # a plain list's item type goes
    assert shown["properties"]["history"]["items"]["properties"] == {"at": {"type": "string"}}  # not an object's
    assert list(whole["properties"]["memories"]["items"]["properties"]) == list(memory["properties"])
    assert "x-detail" not in json.dumps([lean, whole])
    value = {"memories": [{"id": "m", "tags": ["a"], "weight": 0.5, "context": {}, "history": [{"at": "x"}]}]}
    jsonschema.validate(value, schema)
    jsonschema.validate(value, whole)
    jsonschema.validate(value, lean)  # a lean schema admits the details a result carries
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"memories": [{"id": 1}]}, lean)  # and still checks the main ones' types
