"""Reading the attributes of a template definition other than its fields."""

from __future__ import annotations

from typing import Any

from remember.errors import excerpt
from remember.templates.jsonvalue import json_copy
from remember.templates.limits import (
    MAX_EXAMPLE_LENGTH,
    MAX_EXAMPLES,
    MAX_KEYWORD_LENGTH,
    MAX_KEYWORDS,
    MAX_TEXT_ATTRIBUTE,
)
from remember.templates.reading.problems import Problems

# The spec's own spellings, folded into ours.
ALIASES = {
    "template_name": "name",
    "template_description": "description",
    "template_version": "version",
    "parent_template": "parent_template_id",
}
# Bookkeeping a store keeps beside a definition; accepted and ignored here.
STORE_KEYS = frozenset(
    {"user_id", "usage_count", "last_used", "created_at", "updated_at", "deleted_at", "type", "derived_memories"}
)
TEMPLATE_KEYS = frozenset(
    {
        "id",
        "name",
        "description",
        "version",
        "fields",
        "parent_template_id",
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
        "identity",
    }
)
MAX_IDENTITY = 5  # fields naming the thing a memory is about
TIMES_OF_DAY = frozenset({"morning", "lunch", "afternoon", "dinner", "evening", "night"})


def read_template_attributes(raw: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The keyword arguments of ``TemplateDefinition`` except ``fields``."""
    data = _unalias(raw, problems)
    for key in sorted(set(data) - TEMPLATE_KEYS - STORE_KEYS, key=str):
        known = ", ".join(sorted(TEMPLATE_KEYS))
        problems.add(str(key), "unknown_key", f"unknown template attribute {excerpt(key)} (known: {known})")
    return {
        "id": _text(data, "id", "", problems, required=False),
        "name": _text(data, "name", "", problems, required=True),
        "description": _text(data, "description", "", problems),
        "version": _version(data.get("version", "1.0"), problems),
        "parent_template_id": _optional_text(data, "parent_template_id", problems),
        "category": _text(data, "category", "general", problems),
        "tags": _words(data, "tags", problems),
        "auto_apply": problems.flag(data, "auto_apply", "auto_apply"),
        "trigger_keywords": _words(data, "trigger_keywords", problems),
        "trigger_context": _context(data.get("trigger_context"), problems),
        "examples": _words(data, "examples", problems, count=MAX_EXAMPLES, length=MAX_EXAMPLE_LENGTH),
        "weight": _share(data, "weight", 0.5, problems),
        "trust": _share(data, "trust", 0.0, problems),
        "is_default": problems.flag(data, "is_default", "is_default"),
        "derived_from": _optional_text(data, "derived_from", problems),
        "identity": _words(data, "identity", problems, count=MAX_IDENTITY),
    }


def _unalias(raw: dict[str, Any], problems: Problems) -> dict[str, Any]:
    data = dict(raw)
    for alias, key in ALIASES.items():
        if alias in data:
            if key in data:
                problems.add(key, "invalid", f"give {excerpt(key)} or its alias {excerpt(alias)}, not both")
            data.setdefault(key, data.pop(alias))
    return data


def _text(data: dict[str, Any], key: str, default: str, problems: Problems, *, required: bool = False) -> str:
    value = data.get(key, default)
    if value is None:
        value = default
    if not isinstance(value, str) or (required and not value.strip()):
        problems.add(key, "invalid", f"{key} must be {'non-empty ' if required else ''}text", value)
        return default
    if len(value) > MAX_TEXT_ATTRIBUTE:
        problems.add(key, "limit", f"{key} is longer than {MAX_TEXT_ATTRIBUTE} characters")
    return value


def _optional_text(data: dict[str, Any], key: str, problems: Problems) -> str | None:
    value = data.get(key)
    if value is None or (isinstance(value, str) and value):
        return value
    problems.add(key, "invalid", f"{key} must be a template id (text) or null", value)
    return None


def version_text(value: object) -> object:
    """A version as text: a number (``1.1``) is turned into text, anything else is left as it is."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _version(value: object, problems: Problems) -> str:
    value = version_text(value)
    if isinstance(value, str) and 0 < len(value) <= 50:
        return value
    problems.add("version", "invalid", "version must be short text such as '1.0'", value)
    return "1.0"


def _share(data: dict[str, Any], key: str, default: float, problems: Problems) -> float:
    value = data.get(key, default)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    problems.add(key, "invalid", f"{key} must be a number from 0 to 1", value)
    return default


def _words(
    data: dict[str, Any],
    key: str,
    problems: Problems,
    *,
    count: int = MAX_KEYWORDS,
    length: int = MAX_KEYWORD_LENGTH,
) -> tuple[str, ...]:
    value = data.get(key) or []
    ok = isinstance(value, list) and all(isinstance(v, str) and 0 < len(v) <= length for v in value)
    if not ok:
        message = f"{key} must be a list of non-empty texts of at most {length} characters"
        problems.add(key, "invalid", message, value)
        return ()
    if len(value) > count:
        problems.add(key, "limit", f"{key} holds at most {count} entries")
    return tuple(value[:count])


def _context(value: object, problems: Problems) -> dict[str, Any]:
    """Free-form JSON for the suggestion engine; the keys it knows are checked."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.add("trigger_context", "invalid", "trigger_context must be an object", value)
        return {}
    try:
        context: dict[str, Any] = json_copy(value)
    except ValueError as exc:
        problems.add("trigger_context", "invalid", f"trigger_context {exc}")
        return {}
    if "location_present" in context and not isinstance(context["location_present"], bool):
        problems.add("trigger_context", "invalid", "trigger_context.location_present must be true or false")
    times = context.get("time_of_day")
    if times is not None and not _times_of_day(times):
        known = ", ".join(sorted(TIMES_OF_DAY))
        problems.add("trigger_context", "invalid", f"trigger_context.time_of_day must list some of: {known}")
    return context


def _times_of_day(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) and t in TIMES_OF_DAY for t in value)
