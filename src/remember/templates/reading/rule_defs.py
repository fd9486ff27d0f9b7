"""Reading a field's ``validation`` block into ``Rules``, checking each rule fits the type.

For an array of scalars, ``min_items``/``max_items`` bound the array and the
other rules (pattern, min, max, lengths) apply to each item.
"""

from __future__ import annotations

from typing import Any

from remember.errors import excerpt
from remember.templates.dates import parse_date, parse_datetime
from remember.templates.fields import TYPE_ALIASES, Rules
from remember.templates.limits import MAX_TEXT_ATTRIBUTE
from remember.templates.reading.problems import Problems
from remember.templates.validation.regex import compile_pattern

RULE_KEYS = frozenset(
    {"pattern", "error_message", "min", "max", "min_length", "max_length", "min_items", "max_items", "options"}
)
_TEXT = frozenset({"string", "text"})
_ORDERED = frozenset({"number", "integer", "date", "datetime"})


def read_rules(raw: object, kind: str, item_type: object, path: str, problems: Problems) -> tuple[Rules, object]:
    """The rules, and any ``options`` given inside the block (the spec allows both places)."""
    if raw is None:
        return Rules(), None
    if not isinstance(raw, dict):
        problems.add(path, "invalid", "validation must be an object of rules", raw)
        return Rules(), None
    for key in sorted(set(raw) - RULE_KEYS, key=str):
        problems.add(
            path, "unknown_key", f"unknown validation rule {excerpt(key)} (known: {', '.join(sorted(RULE_KEYS))})"
        )
    target = kind
    if kind == "array" and isinstance(item_type, str):
        target = TYPE_ALIASES.get(item_type, item_type)
    rules = Rules(
        pattern=_pattern(raw.get("pattern"), target, path, problems),
        error_message=_message(raw.get("error_message"), path, problems),
        min=_bound(raw, "min", target, path, problems),
        max=_bound(raw, "max", target, path, problems),
        min_length=_count(raw, "min_length", target in _TEXT, "text fields", path, problems),
        max_length=_count(raw, "max_length", target in _TEXT, "text fields", path, problems),
        min_items=_count(raw, "min_items", kind == "array", "arrays", path, problems),
        max_items=_count(raw, "max_items", kind == "array", "arrays", path, problems),
    )
    _check_ranges(rules, target, path, problems)
    return rules, raw.get("options")


def _pattern(value: object, target: str, path: str, problems: Problems) -> str | None:
    if value is None:
        return None
    if target not in _TEXT:
        problems.add(path, "rule", f"pattern applies to string and text fields, not {target}")
        return None
    if not isinstance(value, str):
        problems.add(path, "pattern", "the pattern must be text", value)
        return None
    try:
        compile_pattern(value)
    except ValueError as exc:
        problems.add(path, "pattern", f"{exc}", value)
        return None
    return value


def _message(value: object, path: str, problems: Problems) -> str | None:
    if value is None or (isinstance(value, str) and len(value) <= MAX_TEXT_ATTRIBUTE):
        return value
    problems.add(path, "invalid", f"error_message must be text of at most {MAX_TEXT_ATTRIBUTE} characters")
    return None


def _bound(raw: dict[str, Any], key: str, target: str, path: str, problems: Problems) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    if target not in _ORDERED:
        problems.add(path, "rule", f"{key} applies to number, integer, date and datetime fields, not {target}")
        return None
    if target in {"date", "datetime"}:
        parse = parse_date if target == "date" else parse_datetime
        if isinstance(value, str) and parse(value) is not None:
            return value
        problems.add(path, "rule", f"{key} of a {target} field must be an ISO 8601 {target}", value)
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < float("inf"):
        return value
    problems.add(path, "rule", f"{key} must be a number", value)
    return None


def _count(raw: dict[str, Any], key: str, applies: bool, what: str, path: str, problems: Problems) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if not applies:
        problems.add(path, "rule", f"{key} applies only to {what}")
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    problems.add(path, "rule", f"{key} must be a whole number, 0 or more", value)
    return None


def _check_ranges(rules: Rules, target: str, path: str, problems: Problems) -> None:
    pairs: list[tuple[str, Any, Any]] = [
        ("length", rules.min_length, rules.max_length),
        ("items", rules.min_items, rules.max_items),
    ]
    if rules.min is not None and rules.max is not None:
        low: Any = rules.min
        high: Any = rules.max
        if target in {"date", "datetime"}:
            parse = parse_date if target == "date" else parse_datetime
            low, high = parse(low), parse(high)
        pairs.append(("", low, high))
    for suffix, low, high in pairs:
        if low is not None and high is not None and low > high:
            lo, hi = ("min_" + suffix, "max_" + suffix) if suffix else ("min", "max")
            problems.add(path, "range", f"{lo} ({low}) is greater than {hi} ({high})")
