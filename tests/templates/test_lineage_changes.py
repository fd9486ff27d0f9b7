"""Where each field of an inheriting template comes from, and what changed between two definitions."""

from __future__ import annotations

from remember.templates import FieldOrigin, definition_changes, field_origins, parse_template


def test_each_field_names_the_template_in_effect_and_the_ones_it_overrides() -> None:
    root = parse_template({"id": "a", "name": "A", "fields": [{"name": "x"}, {"name": "y"}]})
    middle = parse_template({"id": "b", "name": "B", "parent_template_id": "a", "fields": [{"name": "y"}]})
    leaf = parse_template({"id": "c", "name": "C", "parent_template_id": "b", "fields": [{"name": "y"}, {"name": "z"}]})
    assert field_origins([root, middle, leaf]) == [
        FieldOrigin("x", "a"),
        FieldOrigin("y", "c", ("a", "b")),
        FieldOrigin("z", "c"),
    ]


def test_changes_list_attributes_and_fields_added_removed_and_changed() -> None:
    before = {"id": "t", "name": "T", "version": "1.0", "description": "",
              "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "string"}]}  # fmt: skip
    after = {"id": "t", "name": "T", "version": "1.1", "description": "new",
             "fields": [{"name": "a", "type": "text", "required": True}, {"name": "c", "type": "string"}]}  # fmt: skip
    assert definition_changes(before, after) == {
        "attributes": [{"name": "description", "before": "", "after": "new"}],
        "added_fields": ["c"],
        "removed_fields": ["b"],
        "changed_fields": [{"name": "a", "attributes": ["type", "required"]}],
    }
    assert definition_changes(before, {**before, "version": "1.1"})["attributes"] == []
