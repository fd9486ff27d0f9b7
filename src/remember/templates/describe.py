"""A field in words, as the engine applies it: for capture prompts and ``remember template show``.

What a field takes (``list of texts``, ``list of objects (title, rating)``, ``list of
any values`` for an array with neither an item type nor item fields), whether it
is required, and when its ``show_if`` hides it (a hidden field is neither required
nor kept). A computed field is filled in by the server from its formula. A
field's kind (what it holds: a person's name, a deadline) is said apart
(``kind_note``), after the phrase.
"""

from __future__ import annotations

import json

from remember.templates.fields import FieldDef

_PLURALS = {
    "string": "texts", "text": "texts", "number": "numbers", "integer": "whole numbers", "boolean": "yes/no values",
    "date": "dates", "datetime": "dates and times", "enum": "choices", "object": "objects",
}  # fmt: skip


def field_takes(field: FieldDef) -> str:
    """What the field takes: ``text``, ``one of "a", "b"``, ``list of texts``, ``object (x, y)``…"""
    if field.type == "enum":
        return "one of " + ", ".join(json.dumps(o) for o in field.options)
    if field.type == "array":
        if field.fields:
            return f"list of objects ({', '.join(f.name for f in field.fields)})"
        return (
            f"list of {_PLURALS.get(field.item_type or '', field.item_type)}"
            if field.item_type
            else "list of any values"
        )
    if field.type == "object":
        return f"object ({', '.join(f.name for f in field.fields)})" if field.fields else "object of any fields"
    return "text" if field.type == "string" else field.type


def field_summary(field: FieldDef) -> str:
    """What the field takes, its need and conditions in one phrase, e.g. ``text, required when has_kids``."""
    if field.is_computed:
        return f"computed by the server: {field.formula}"
    parts = [field_takes(field)]
    need = "required" if field.required else "optional"
    parts.append(f"{need}, only when {field.show_if} (otherwise left out)" if field.show_if else need)
    rules = field.validation.as_dict()
    if "min" in rules or "max" in rules:
        parts.append(f"from {rules.get('min', '…')} to {rules.get('max', '…')}")
    if field.default is not None:
        parts.append(f"default {json.dumps(field.default)}")
    return ", ".join(parts)


def kind_note(field: FieldDef) -> str:
    """``, kind person`` for a field that declares what it holds (its kind), else nothing."""
    return f", kind {field.kind}" if field.kind else ""
