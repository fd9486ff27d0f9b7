"""Reading raw field definitions (plain JSON) into ``FieldDef`` values.

This pass checks the shape of each field on its own: names, types, attribute
types, options, rules and patterns. Problems are collected, never raised one at
a time, so a user sees every mistake at once; ``checks`` then looks at how the
fields relate (formulas, conditions, cycles, defaults).
"""

from __future__ import annotations

import re
from typing import Any

from remember.errors import excerpt
from remember.templates.expr.lexer import KEYWORDS
from remember.templates.fields import (
    FIELD_TYPES,
    ITEM_TYPES,
    TYPE_ALIASES,
    FieldDef,
    Scalar,
)
from remember.templates.kinds import read_kind
from remember.templates.limits import (
    MAX_FIELDS,
    MAX_NAME_LENGTH,
    MAX_NESTING,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_TEXT_ATTRIBUTE,
)
from remember.templates.reading.problems import Problems
from remember.templates.reading.rule_defs import read_rules

FIELD_KEYS = frozenset(
    {
        "name",
        "type",
        "required",
        "default",
        "default_value",
        "description",
        "options",
        "validation",
        "conditional",
        "formula",
        "item_type",
        "fields",
        "kind",
    }
)
NAME_RULE = re.compile(rf"[a-z][a-z0-9_]{{0,{MAX_NAME_LENGTH - 1}}}")
_OPTION_TYPES = frozenset({"enum", "string", "array"})


def read_fields(raw: object, problems: Problems, prefix: str = "", depth: int = 1) -> tuple[FieldDef, ...]:
    """Best-effort ``FieldDef`` values; every problem found goes to ``problems``."""
    where = f"{prefix}fields" if prefix else "fields"
    if not isinstance(raw, list):
        problems.add(where, "invalid", "fields must be a list of field objects", raw)
        return ()
    if depth > MAX_NESTING:
        problems.add(where, "limit", f"fields nest deeper than {MAX_NESTING} levels")
        return ()
    if depth == 1 and count_raw_fields(raw) > MAX_FIELDS:
        # Before anything else: a definition this large is refused without reading each field.
        problems.add("fields", "limit", f"a template has at most {MAX_FIELDS} fields (nested ones count)")
        return ()
    found: list[FieldDef] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        read = _read_field(item, f"{prefix}fields[{index}]", prefix, depth, problems)
        if read is None:
            continue
        if read.name in seen:
            problems.add(f"{prefix}{read.name}", "duplicate", f"two fields are named {excerpt(read.name)}")
            continue
        seen.add(read.name)
        found.append(read)
    return tuple(found)


def count_raw_fields(raw: list[Any]) -> int:
    """How many fields a raw definition holds, nested ones included; counting stops past the limit."""
    count = 0
    pending: list[tuple[list[Any], int]] = [(raw, 1)]
    while pending and count <= MAX_FIELDS:
        items, depth = pending.pop()
        count += len(items)
        for item in items[: MAX_FIELDS + 1] if depth < MAX_NESTING else ():
            nested = item.get("fields") if isinstance(item, dict) else None
            if isinstance(nested, list):
                pending.append((nested, depth + 1))
    return count


def _read_field(raw: object, hint: str, prefix: str, depth: int, problems: Problems) -> FieldDef | None:
    if not isinstance(raw, dict):
        problems.add(hint, "invalid", "each field must be an object with at least a 'name'", raw)
        return None
    name = raw.get("name")
    usable = isinstance(name, str) and NAME_RULE.fullmatch(name) is not None and name not in KEYWORDS
    if not usable:
        problems.add(hint, "name", _name_message(name), name)
    # A field with a bad name is still read through, so every problem it has is reported at once.
    path = f"{prefix}{name}" if usable else hint
    for key in sorted(set(raw) - FIELD_KEYS, key=str):
        problems.add(path, "unknown_key", f"unknown attribute {excerpt(key)} (known: {_known(FIELD_KEYS)})")
    field_type = _read_type(raw.get("type", "string"), path, problems)
    rules, rule_options = read_rules(raw.get("validation"), field_type, raw.get("item_type"), path, problems)
    options = _read_options(raw, rule_options, field_type, path, problems)
    item_type, nested = _read_structure(raw, field_type, path, depth, problems)
    show_if = _read_show_if(raw.get("conditional"), path, problems)
    kind = read_kind(raw.get("kind"), field_type, item_type, path, problems)
    field = FieldDef(
        name=str(name) if usable else hint,
        type=field_type,
        required=problems.flag(raw, "required", path),
        default=_read_default(raw, path, problems),
        description=_read_text(raw, "description", path, problems),
        options=options,
        validation=rules,
        show_if=show_if,
        formula=_read_formula(raw, field_type, path, problems),
        item_type=item_type,
        fields=nested,
        kind=kind,
    )
    _check_computed(raw, field, path, problems)
    return field if usable else None


def _name_message(name: object) -> str:
    if isinstance(name, str) and name in KEYWORDS:
        return f"{excerpt(name)} is a reserved word of the formula language; pick another field name"
    return (
        f"field name {excerpt(name)} is invalid: use 1 to {MAX_NAME_LENGTH} lowercase letters, digits and "
        "underscores, starting with a letter (for example 'date_finished')"
    )


def _known(keys: frozenset[str]) -> str:
    return ", ".join(sorted(keys))


def _read_type(raw: object, path: str, problems: Problems) -> str:
    field_type = TYPE_ALIASES.get(raw, raw) if isinstance(raw, str) else raw
    if isinstance(field_type, str) and field_type in FIELD_TYPES:
        return field_type
    problems.add(path, "unknown_type", f"unknown type {excerpt(raw)} (use one of: {_known(FIELD_TYPES)})", raw)
    return "string"


def _read_text(raw: dict[str, Any], key: str, path: str, problems: Problems) -> str:
    value = raw.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.add(path, "invalid", f"{key} must be text", value)
        return ""
    if len(value) > MAX_TEXT_ATTRIBUTE:
        problems.add(path, "limit", f"{key} is longer than {MAX_TEXT_ATTRIBUTE} characters")
        return value[:MAX_TEXT_ATTRIBUTE]
    return value


def _read_default(raw: dict[str, Any], path: str, problems: Problems) -> Any:
    if "default" in raw and "default_value" in raw:
        problems.add(path, "invalid", "give 'default' or its alias 'default_value', not both")
    return raw.get("default", raw.get("default_value"))


def _read_options(
    raw: dict[str, Any], rule_options: object, field_type: str, path: str, problems: Problems
) -> tuple[Scalar, ...]:
    value = raw.get("options")
    if value is not None and rule_options is not None:
        problems.add(path, "options", "give options once, beside the type or inside validation")
    value = value if value is not None else rule_options
    if value is None:
        if field_type == "enum" or (field_type == "array" and raw.get("item_type") == "enum"):
            problems.add(path, "options", "an enum needs a non-empty list of options")
        return ()
    if field_type not in _OPTION_TYPES:
        problems.add(path, "options", f"options apply to enum, string and array fields, not {field_type}")
        return ()
    return _check_options(value, path, problems)


def _check_options(value: object, path: str, problems: Problems) -> tuple[Scalar, ...]:
    if not isinstance(value, list) or not value:
        problems.add(path, "options", "options must be a non-empty list", value)
        return ()
    if len(value) > MAX_OPTIONS:
        problems.add(path, "options", f"at most {MAX_OPTIONS} options")
        return ()
    good: list[Scalar] = []
    for option in value:
        if not isinstance(option, str | int | float) or (isinstance(option, str) and len(option) > MAX_OPTION_LENGTH):
            problems.add(path, "options", "each option must be text (at most 200 characters) or a number")
        elif any(type(option) is type(seen) and option == seen for seen in good):
            problems.add(path, "options", f"option {excerpt(option)} is listed twice", option)
        else:
            good.append(option)
    return tuple(good)


def _read_structure(
    raw: dict[str, Any], field_type: str, path: str, depth: int, problems: Problems
) -> tuple[str | None, tuple[FieldDef, ...]]:
    """``item_type`` and nested ``fields``, which only arrays and objects may have."""
    item_type = raw.get("item_type")
    nested_raw = raw.get("fields")
    if field_type not in {"array", "object"}:
        for key in ("item_type", "fields"):
            if raw.get(key) is not None:
                problems.add(path, "structure", f"{key} applies to array or object fields, not {field_type}")
        return None, ()
    if field_type == "object":
        if item_type is not None:
            problems.add(path, "structure", "item_type applies to arrays; an object has fields")
        nested = read_fields(nested_raw, problems, f"{path}.", depth + 1) if nested_raw is not None else ()
        return None, nested
    return _read_array(item_type, nested_raw, path, depth, problems)


def _read_array(
    item_type: object, nested_raw: object, path: str, depth: int, problems: Problems
) -> tuple[str | None, tuple[FieldDef, ...]]:
    if item_type is not None:
        item_type = TYPE_ALIASES.get(item_type, item_type) if isinstance(item_type, str) else item_type
        if not isinstance(item_type, str) or item_type not in ITEM_TYPES:
            problems.add(path, "item_type", f"item_type must be one of {_known(ITEM_TYPES)}", item_type)
            return None, ()
    if nested_raw is None:
        if item_type == "object":
            problems.add(path, "structure", "an array of objects needs the item 'fields'")
        return item_type, ()
    if item_type not in {None, "object"}:
        problems.add(path, "structure", f"give item_type {excerpt(item_type)} or item fields, not both")
        return item_type, ()
    return "object", read_fields(nested_raw, problems, f"{path}.", depth + 1)


def _read_show_if(raw: object, path: str, problems: Problems) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.add(path, "invalid", 'conditional must be an object like {"show_if": "..."}', raw)
        return None
    for key in sorted(set(raw) - {"show_if"}, key=str):
        problems.add(path, "unknown_key", f"unknown conditional attribute {excerpt(key)} (known: show_if)")
    show_if = raw.get("show_if")
    if show_if is not None and not isinstance(show_if, str):
        problems.add(path, "show_if", "show_if must be an expression in text", show_if)
        return None
    return show_if


def _read_formula(raw: dict[str, Any], field_type: str, path: str, problems: Problems) -> str | None:
    formula = raw.get("formula")
    if formula is None:
        if field_type == "computed":
            problems.add(path, "formula", "a computed field needs a formula")
        return None
    if field_type != "computed":
        problems.add(path, "formula", f"only computed fields have a formula (type is {field_type})")
        return None
    if not isinstance(formula, str):
        problems.add(path, "formula", "the formula must be text", formula)
        return None
    return formula


def _check_computed(raw: dict[str, Any], field: FieldDef, path: str, problems: Problems) -> None:
    if not field.is_computed:
        return
    extras = [key for key in ("default", "default_value", "validation", "options") if raw.get(key) is not None]
    if field.required or extras:
        what = ", ".join((["required"] if field.required else []) + extras)
        problems.add(path, "invalid", f"a computed field takes no {what}; its value comes from its formula")
