"""The validation rules of one accepted value: options, lengths, pattern, bounds, item counts.

A field's ``error_message``, when it has one, is the message of every rule
failure here (not of ``required``, ``type`` or ``unknown_field``).
"""

from __future__ import annotations

from typing import Any

from remember.errors import FieldError
from remember.templates.dates import parse_date, parse_datetime
from remember.templates.limits import MAX_ARRAY_ITEMS
from remember.templates.validation.compiled import Node


def check_rules(node: Node, value: Any, path: str) -> list[FieldError]:
    """Every rule ``value`` (already of the right type) breaks."""
    found: list[tuple[str, str]] = []
    field = node.field
    if field.options and field.type != "array" and not _is_option(value, field.options):
        found.append(("options", f"{path} must be one of: {', '.join(map(str, field.options))}"))
    if isinstance(value, str):
        found.extend(_text_rules(node, value, path))
    elif isinstance(value, list):
        found.extend(_item_count(node, value, path))
    if node.low is not None or node.high is not None:
        found.extend(_bounds(node, value, path))
    custom = field.validation.error_message
    return [FieldError(path, code, custom if custom else message, value) for code, message in found]


def _is_option(value: Any, options: tuple[Any, ...]) -> bool:
    return any(type(value) is type(option) and value == option for option in options) or (
        # 5 and 5.0 are the same JSON number
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and any(isinstance(o, int | float) and not isinstance(o, bool) and o == value for o in options)
    )


def _text_rules(node: Node, value: str, path: str) -> list[tuple[str, str]]:
    rules = node.field.validation
    found: list[tuple[str, str]] = []
    if rules.min_length is not None and len(value) < rules.min_length:
        found.append(("min_length", f"{path} must be at least {rules.min_length} characters long"))
    if node.max_length is not None and len(value) > node.max_length:
        found.append(("max_length", f"{path} must be at most {node.max_length} characters long"))
        return found  # a pattern over an oversized value is not worth running
    if node.pattern is not None and not node.pattern.matches(value):
        found.append(("pattern", f"{path} does not match the pattern {node.pattern.source}"))
    return found


def _item_count(node: Node, value: list[Any], path: str) -> list[tuple[str, str]]:
    rules = node.field.validation
    most = MAX_ARRAY_ITEMS if rules.max_items is None else min(rules.max_items, MAX_ARRAY_ITEMS)
    if rules.min_items is not None and len(value) < rules.min_items:
        return [("min_items", f"{path} must have at least {rules.min_items} items")]
    if len(value) > most:
        return [("max_items", f"{path} must have at most {most} items")]
    return []


def _bounds(node: Node, value: Any, path: str) -> list[tuple[str, str]]:
    rules = node.field.validation
    kind = node.field.type
    comparable: Any = value
    if kind == "date":
        comparable = parse_date(value)
    elif kind == "datetime":
        comparable = parse_datetime(value)
    if node.low is not None and comparable < node.low:
        return [("min", f"{path} must be at least {rules.min}")]
    if node.high is not None and comparable > node.high:
        return [("max", f"{path} must be at most {rules.max}")]
    return []
