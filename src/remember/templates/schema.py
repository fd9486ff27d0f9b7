"""JSON Schema (draft 2020-12) of a resolved template's ``structured_content``.

The schema accepts everything ``validate_content`` accepts (and a little more:
cross-field conditions and date bounds cannot be said in JSON Schema, so they
appear in descriptions). Unknown fields are refused (``additionalProperties:
false``); an optional field may be null, which means "not given"; computed
fields are ``readOnly`` and any value sent for them is replaced.
"""

from __future__ import annotations

from typing import Any

from remember.templates.fields import Rules
from remember.templates.resolved import ResolvedTemplate
from remember.templates.validation.compiled import Node, ScopePlan

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_FORMATS = {"date": "date", "datetime": "date-time"}


def to_json_schema(resolved: ResolvedTemplate) -> dict[str, Any]:
    """The draft 2020-12 JSON Schema of content for ``resolved``."""
    definition = resolved.definition
    schema: dict[str, Any] = {"$schema": DRAFT, "title": definition.name}
    if definition.description:
        schema["description"] = definition.description
    schema.update(_object(resolved.plan))
    schema["x-remember-template"] = {"id": definition.id, "version": definition.version}
    return schema


def _object(plan: ScopePlan) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for node in plan.nodes:
        field = node.field
        needed = field.required and field.show_if is None and field.default is None
        if needed:
            required.append(field.name)
        properties[field.name] = _field(node, nullable=not needed)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return out


def _field(node: Node, *, nullable: bool) -> dict[str, Any]:
    field = node.field
    schema = _shape(node)
    if nullable:
        _allow_null(schema)
    notes = [field.description] if field.description else []
    if field.formula is not None:
        notes.append(f"Computed: {field.formula}.")
    if field.show_if is not None:
        notes.append(f"Only used when {field.show_if}.")
    if field.validation.min is not None and field.type in _FORMATS:
        notes.append(f"Not before {field.validation.min}.")
    if field.validation.max is not None and field.type in _FORMATS:
        notes.append(f"Not after {field.validation.max}.")
    if notes:
        schema["description"] = " ".join(notes)
    if field.default is not None:
        schema["default"] = field.default
    if field.kind is not None:
        schema["x-remember-kind"] = field.kind
    return schema


def _shape(node: Node) -> dict[str, Any]:
    field = node.field
    if field.type == "computed":
        return {"readOnly": True}
    if field.type == "object":
        return _object(node.scope) if node.scope is not None else {"type": "object"}
    if field.type == "array":
        return _array(node)
    return _scalar(node)


def _array(node: Node) -> dict[str, Any]:
    rules = node.field.validation
    schema: dict[str, Any] = {"type": "array"}
    if node.scope is not None:
        schema["items"] = _object(node.scope)
    elif node.item is not None:
        schema["items"] = _scalar(node.item)
    if rules.min_items is not None:
        schema["minItems"] = rules.min_items
    if rules.max_items is not None:
        schema["maxItems"] = rules.max_items
    return schema


def _scalar(node: Node) -> dict[str, Any]:
    field = node.field
    rules: Rules = field.validation
    schema: dict[str, Any] = {}
    if field.type == "enum" or field.options:
        schema["enum"] = list(field.options)
    elif field.type in _FORMATS:
        schema.update(type="string", format=_FORMATS[field.type])
    else:
        schema["type"] = {"text": "string"}.get(field.type, field.type)
    if field.type in {"string", "text"}:
        _text_rules(node, rules, schema)
    if field.type in {"number", "integer"}:
        if rules.min is not None:
            schema["minimum"] = rules.min
        if rules.max is not None:
            schema["maximum"] = rules.max
    return schema


def _text_rules(node: Node, rules: Rules, schema: dict[str, Any]) -> None:
    if rules.min_length is not None:
        schema["minLength"] = rules.min_length
    if node.max_length is not None:
        schema["maxLength"] = node.max_length
    if rules.pattern is not None:
        schema["pattern"] = rules.pattern


def _allow_null(schema: dict[str, Any]) -> None:
    if "enum" in schema:
        schema["enum"] = [*schema["enum"], None]
    elif isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
