"""Template definitions are checked too: each problem is named, all of them at once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remember.errors import TemplateError
from remember.templates import FieldDef, TemplateDefinition, builtin_templates, parse_fields, parse_template
from remember.templates.validation.compiled import dependency_order


def problems(*fields: Any, **template: Any) -> list[tuple[str, str]]:
    raw = {"id": "t", "name": "T", "fields": list(fields), **template}
    with pytest.raises(TemplateError) as caught:
        parse_template(raw)
    return [(error.field, error.code) for error in caught.value.errors]


def message(*fields: Any) -> str:
    with pytest.raises(TemplateError) as caught:
        parse_fields(list(fields))
    assert len(caught.value.errors) == 1, caught.value.errors
    return caught.value.errors[0].message


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ([{"name": "a"}, {"name": "a"}], [("a", "duplicate")]),
        ([{"name": "a", "type": "colour"}], [("a", "unknown_type")]),
        ([{"name": "a", "type": "enum"}], [("a", "options")]),
        ([{"name": "a", "type": "enum", "options": []}], [("a", "options")]),
        ([{"name": "a", "type": "enum", "options": ["x", "x"]}], [("a", "options")]),
        ([{"name": "a", "type": "enum", "options": [["x"]]}], [("a", "options")]),
        ([{"name": "a", "type": "number", "options": [1]}], [("a", "options")]),
        ([{"name": "a", "type": "enum", "options": ["x"], "validation": {"options": ["y"]}}], [("a", "options")]),
        ([{"name": "a", "type": "computed"}], [("a", "formula")]),
        ([{"name": "a", "formula": "1"}], [("a", "formula")]),
        ([{"name": "a", "type": "computed", "formula": "1 +"}], [("a", "formula")]),
        ([{"name": "a", "type": "computed", "formula": "b * 2"}], [("a", "formula")]),
        ([{"name": "a", "conditional": {"show_if": "b =="}}], [("a", "show_if")]),
        ([{"name": "a", "conditional": {"show_if": "missing == true"}}], [("a", "show_if")]),
        ([{"name": "a", "conditional": {"show_if": 5}}], [("a", "show_if")]),
        ([{"name": "a", "conditional": {"hide_if": "x"}}], [("a", "unknown_key")]),
        (
            [
                {"name": "a", "type": "computed", "formula": "b + 1"},
                {"name": "b", "type": "computed", "formula": "a + 1"},
            ],
            [("a", "cycle")],
        ),
        ([{"name": "a", "conditional": {"show_if": "a != null"}}], [("a", "cycle")]),
        ([{"name": "a", "type": "number", "validation": {"min": 5, "max": 1}}], [("a", "range")]),
        ([{"name": "a", "validation": {"min_length": 5, "max_length": 1}}], [("a", "range")]),
        ([{"name": "a", "type": "array", "validation": {"min_items": 5, "max_items": 1}}], [("a", "range")]),
        ([{"name": "a", "type": "date", "validation": {"min": "2026-02-01", "max": "2026-01-01"}}], [("a", "range")]),
        ([{"name": "a", "validation": {"pattern": "(unclosed"}}], [("a", "pattern")]),
        ([{"name": "a", "validation": {"pattern": "x" * 1001}}], [("a", "pattern")]),
        ([{"name": "a", "validation": {"pattern": 5}}], [("a", "pattern")]),
        ([{"name": "a", "type": "number", "validation": {"pattern": "x"}}], [("a", "rule")]),
        ([{"name": "a", "validation": {"min": 1}}], [("a", "rule")]),
        ([{"name": "a", "type": "number", "validation": {"min": "1"}}], [("a", "rule")]),
        ([{"name": "a", "type": "date", "validation": {"min": "soon"}}], [("a", "rule")]),
        ([{"name": "a", "validation": {"min_items": 1}}], [("a", "rule")]),
        ([{"name": "a", "validation": {"min_length": -1}}], [("a", "rule")]),
        ([{"name": "a", "validation": {"max_lenght": 3}}], [("a", "unknown_key")]),
        ([{"name": "a", "validation": "strict"}], [("a", "invalid")]),
        ([{"name": "a", "type": "number", "default": "five"}], [("a", "default")]),
        ([{"name": "a", "options": ["x", "y"], "default": "z"}], [("a", "default")]),
        ([{"name": "a", "validation": {"pattern": "^[0-9]+$"}, "default": "abc"}], [("a", "default")]),
        ([{"name": "a", "default": 1, "default_value": 2}], [("a", "invalid")]),
        ([{"name": "Bad Name"}], [("fields[0]", "name")]),
        ([{"name": "1st"}], [("fields[0]", "name")]),
        ([{"name": "_private"}], [("fields[0]", "name")]),
        ([{"name": "a" * 65}], [("fields[0]", "name")]),
        ([{"name": "not"}], [("fields[0]", "name")]),
        ([{"type": "string"}], [("fields[0]", "name")]),
        (["a"], [("fields[0]", "invalid")]),
        ([{"name": "a", "colour": "red"}], [("a", "unknown_key")]),
        ([{"name": "a", "required": "yes"}], [("a", "invalid")]),
        ([{"name": "a", "description": 5}], [("a", "invalid")]),
        ([{"name": "a", "type": "computed", "formula": "1", "required": True}], [("a", "invalid")]),
        ([{"name": "a", "type": "computed", "formula": "1", "default": 1}], [("a", "invalid")]),
        ([{"name": "a", "item_type": "string"}], [("a", "structure")]),
        ([{"name": "a", "type": "array", "item_type": "computed"}], [("a", "item_type")]),
        ([{"name": "a", "type": "array", "item_type": "object"}], [("a", "structure")]),
        ([{"name": "a", "type": "array", "item_type": "string", "fields": [{"name": "b"}]}], [("a", "structure")]),
        ([{"name": "a", "type": "object", "fields": [{"name": "b"}, {"name": "b"}]}], [("a.b", "duplicate")]),
        (
            [{"name": "a", "type": "object", "fields": [{"name": "b", "type": "computed", "formula": "zz"}]}],
            [("a.b", "formula")],
        ),
    ],
)
def test_each_definition_problem_is_named(fields, expected):
    assert problems(*fields) == expected


def test_every_problem_is_reported_at_once():
    found = problems(
        {"name": "a"},
        {"name": "a"},
        {"name": "b", "type": "colour"},
        {"name": "c", "type": "enum"},
        {"name": "d", "type": "computed", "formula": "nope + 1"},
        {"name": "e", "type": "number", "validation": {"min": 3, "max": 2}},
        {"name": "f", "validation": {"pattern": "(a)\\1"}},
        {"name": "g", "type": "integer", "default": 1.5},
        {"name": "h", "conditional": {"show_if": "(("}},
        name="",
        weight=2,
        colour="red",
    )
    assert found == [
        ("colour", "unknown_key"),
        ("name", "invalid"),
        ("weight", "invalid"),
        ("a", "duplicate"),
        ("b", "unknown_type"),
        ("c", "options"),
        ("e", "range"),
        ("f", "pattern"),
        ("d", "formula"),
        ("h", "show_if"),
        ("g", "default"),
    ]


def test_messages_name_the_field_and_the_fix():
    assert message({"name": "a", "type": "colour"}).startswith("unknown type 'colour' (use one of: array, boolean")
    assert message({"name": "total", "type": "computed", "formula": "sub_total * 2"}) == (
        "the formula 'sub_total * 2' names an unknown field 'sub_total' (fields here: total)"
    )
    assert message({"name": "x", "validation": {"pattern": "(?=a)"}}).startswith(
        "the pattern does not compile: invalid perl operator: (?="
    )
    assert "lookaround" in message({"name": "x", "validation": {"pattern": "(?=a)"}})
    assert message({"name": "Title"}).startswith("field name 'Title' is invalid: use 1 to 64 lowercase letters")
    cycle = parse_cycle()
    assert cycle == "computed and conditional fields read each other in a cycle: a -> b -> c -> a"


def parse_cycle() -> str:
    return message(
        {"name": "a", "type": "computed", "formula": "b"},
        {"name": "b", "type": "computed", "formula": "c"},
        {"name": "c", "type": "computed", "formula": "a"},
    )


def test_references_into_nested_fields_are_checked():
    base = {"name": "info", "type": "object", "fields": [{"name": "email"}]}
    parse_fields([base, {"name": "e", "type": "computed", "formula": "lower(info.email)"}])
    assert "info.phone" in message(base, {"name": "e", "type": "computed", "formula": "info.phone"})
    assert "without parts" in message({"name": "a"}, {"name": "e", "type": "computed", "formula": "a.b"})
    # Free-form objects and arrays may hold anything.
    parse_fields([{"name": "o", "type": "object"}, {"name": "e", "type": "computed", "formula": "o.any.thing"}])


def test_template_attributes_are_checked():
    assert problems({"name": "a"}, tags="x", auto_apply="yes", trust=-1, version="") == [
        ("version", "invalid"),
        ("tags", "invalid"),
        ("auto_apply", "invalid"),
        ("trust", "invalid"),
    ]
    assert problems(trigger_context={"location_present": "yes", "time_of_day": ["brunch"]}) == [
        ("trigger_context", "invalid"),
        ("trigger_context", "invalid"),
        ("fields", "invalid"),
    ]
    with pytest.raises(TemplateError):
        parse_template(["not", "an", "object"])


def test_limits_on_size_and_nesting():
    many = [{"name": f"f{index}"} for index in range(201)]
    assert ("fields", "limit") in problems(*many)
    deep: dict[str, Any] = {"name": "leaf"}
    for level in range(6):
        deep = {"name": f"level{level}", "type": "object", "fields": [deep]}
    assert problems(deep)[-1][1] == "limit"
    assert ("a", "limit") in problems({"name": "a", "description": "x" * 2001})


def test_the_field_limit_is_checked_before_any_field_is_read():
    # 20,000 fields, each with a formula naming a field that does not exist: only the limit is reported.
    many = [{"name": f"f{index}", "type": "computed", "formula": f"missing_{index} + 1"} for index in range(20_000)]
    assert problems(*many) == [("fields", "limit")]
    nested = [{"name": f"o{index}", "type": "object", "fields": [{"name": "a"}, {"name": "b"}]} for index in range(70)]
    assert problems(*nested) == [("fields", "limit")]  # 70 + 140 nested fields


class CountingFields(tuple[FieldDef, ...]):
    """Fields that count how often they are walked through."""

    walks = 0

    def __iter__(self) -> Any:
        CountingFields.walks += 1
        return super().__iter__()


def test_dependency_order_walks_the_fields_a_fixed_number_of_times():
    # Each field reads the next: the reverse of definition order, the worst case of a rescanning sort.
    count = 5_000
    chain = [FieldDef(f"f{i}", "computed", formula=f"f{i + 1} + 1") for i in range(count - 1)]
    fields = CountingFields([*chain, FieldDef(f"f{count - 1}", "integer")])
    CountingFields.walks = 0
    ordered, cycles = dependency_order(fields)
    assert [f.name for f in ordered] == [f"f{i}" for i in reversed(range(count))]
    assert cycles == []
    assert CountingFields.walks <= 5


def test_dependency_order_keeps_definition_order_and_reports_cycles():
    fields = (
        FieldDef("total", "computed", formula="price * qty"),
        FieldDef("price", "number"),
        FieldDef("a", "computed", formula="b"),
        FieldDef("qty", "integer"),
        FieldDef("b", "computed", formula="a"),
    )
    ordered, cycles = dependency_order(fields)
    assert [f.name for f in ordered] == ["price", "qty", "total", "a", "b"]
    assert cycles == [["a", "b", "a"]]


def test_examples_are_short_texts_in_bounded_number():
    definition = parse_template(
        {"name": "Wine", "fields": [{"name": "a"}], "examples": ["Opened the 2015 Rioja, smooth", "Bad Merlot"]}
    )
    assert definition.examples == ("Opened the 2015 Rioja, smooth", "Bad Merlot")
    assert parse_template({"name": "Wine", "fields": [{"name": "a"}]}).examples == ()
    assert parse_template({"name": "Wine", "fields": [{"name": "a"}], "examples": None}).examples == ()
    assert problems({"name": "a"}, examples="one text") == [("examples", "invalid")]
    assert problems({"name": "a"}, examples=["ok", ""]) == [("examples", "invalid")]
    assert problems({"name": "a"}, examples=["ok", 3]) == [("examples", "invalid")]
    assert problems({"name": "a"}, examples=["x" * 501]) == [("examples", "invalid")]
    assert problems({"name": "a"}, examples=[f"example {n}" for n in range(51)]) == [("examples", "limit")]
    assert len(parse_template({"name": "W", "fields": [{"name": "a"}], "examples": ["x" * 500] * 50}).examples) == 50


def test_the_spec_spellings_are_accepted():
    definition = parse_template(
        {
            "template_name": "Contact",
            "template_description": "People",
            "template_version": "2.0",
            "fields": [
                {"name": "priority", "type": "string", "options": ["low", "high"], "default_value": "low"},
                {"name": "score", "type": "float"},
            ],
        }
    )
    assert (definition.name, definition.description, definition.version) == ("Contact", "People", "2.0")
    assert definition.fields[0].default == "low"
    assert definition.fields[1].type == "number"


def test_store_bookkeeping_is_ignored():
    definition = parse_template(
        {"id": "x", "name": "X", "fields": [{"name": "a"}], "user_id": "u1", "usage_count": 3, "created_at": "..."}
    )
    assert definition.id == "x"


def test_a_child_may_name_parent_fields_before_it_is_resolved():
    child = parse_template(
        {
            "id": "c",
            "name": "Child",
            "parent_template_id": "p",
            "fields": [{"name": "full", "type": "computed", "formula": "concat(first, last)"}],
        }
    )
    assert child.parent_template_id == "p"
    with pytest.raises(TemplateError):
        parse_template(
            {"name": "Child", "parent_template_id": "p", "fields": [{"name": "x", "type": "computed", "formula": "(("}]}
        )


def test_as_dict_round_trips_the_builtins():
    for definition in builtin_templates():
        assert parse_template(definition.as_dict()) == definition


_scalar_field = st.fixed_dictionaries(
    {"name": st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(lambda n: n not in {"and", "or", "not"})},
    optional={
        "type": st.sampled_from(["string", "text", "integer", "number", "boolean", "date", "datetime"]),
        "required": st.booleans(),
        "description": st.text(max_size=30),
    },
)


@given(st.lists(_scalar_field, max_size=8, unique_by=lambda field: field["name"]))
@settings(max_examples=100, deadline=None)
def test_as_dict_round_trips_any_valid_fields(fields):
    parsed = parse_fields(fields)
    assert parse_fields([field.as_dict() for field in parsed]) == parsed


def test_as_dict_is_compact_and_complete():
    field = FieldDef(
        name="a", type="array", item_type="string", options=("x",), show_if="true", description="d", default=["x"]
    )
    assert field.as_dict() == {
        "name": "a",
        "type": "array",
        "default": ["x"],
        "description": "d",
        "options": ["x"],
        "conditional": {"show_if": "true"},
        "item_type": "string",
    }
    definition = TemplateDefinition(id="t", name="T", fields=(field,))
    assert parse_template(definition.as_dict()) == definition
    assert "examples" not in definition.as_dict()  # only when there are some
    with_examples = TemplateDefinition(id="t", name="T", fields=(field,), examples=("Had one", "Another"))
    assert with_examples.as_dict()["examples"] == ["Had one", "Another"]
    assert parse_template(with_examples.as_dict()) == with_examples


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_field_keys = st.sampled_from(
    ["name", "type", "required", "default", "options", "validation", "conditional", "formula", "item_type", "fields"]
)
_field_values = (
    _json
    | st.sampled_from(["a", "b", "string", "number", "date", "enum", "array", "object", "computed", "a + b", "b == 1"])
    | st.fixed_dictionaries({}, optional={"min": _json, "max": _json, "pattern": _json, "show_if": _json})
)
_raw_field = st.dictionaries(_field_keys, _field_values, max_size=6)


@given(st.lists(_raw_field | _json, max_size=5), _json)
@settings(max_examples=400, deadline=None)
def test_reading_any_definition_either_works_or_raises_template_error(fields, extra):
    try:
        definition = parse_template({"name": "Fuzz", "fields": fields, "category": extra})
    except TemplateError as error:
        refused: TemplateError | None = error
    else:
        refused = None
        assert parse_template(definition.as_dict()) == definition
    assert refused is None or refused.errors


_template_keys = st.sampled_from(
    [
        "id",
        "name",
        "template_name",
        "description",
        "version",
        "parent_template_id",
        "parent_template",
        "category",
        "tags",
        "auto_apply",
        "trigger_keywords",
        "trigger_context",
        "examples",
        "weight",
        "trust",
        "is_default",
        "derived_from",
        "user_id",
        "other",
    ]
)


@given(st.dictionaries(_template_keys, _json | st.lists(st.text(max_size=5), max_size=3), max_size=8))
@settings(max_examples=400, deadline=None)
def test_reading_any_template_attributes_either_works_or_raises_template_error(raw):
    try:
        parse_template({"fields": [{"name": "a"}], **raw})
    except TemplateError as error:
        refused: TemplateError | None = error
    else:
        refused = None
    assert refused is None or refused.errors
