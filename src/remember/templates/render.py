"""Plain text of structured content, one ``Label: value`` line per field.

It becomes a memory's ``content`` when none is given, and the text the
keyword and vector search index, so every filled field should appear in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from remember.templates.fields import FieldDef, label
from remember.templates.resolved import ResolvedTemplate


def render_text(resolved: ResolvedTemplate, normalized: Mapping[str, Any]) -> str:
    """``Label: value`` lines in field order; empty fields are left out, nested ones indented."""
    lines: list[str] = []
    _fields(resolved.fields, normalized, "", lines)
    return "\n".join(lines)


def _fields(fields: tuple[FieldDef, ...], values: Mapping[str, Any], indent: str, lines: list[str]) -> None:
    for field in fields:
        value = values.get(field.name)
        if _empty(value):
            continue
        name = label(field.name)
        if isinstance(value, Mapping) and field.fields:
            lines.append(f"{indent}{name}:")
            _fields(field.fields, value, indent + "  ", lines)
        elif isinstance(value, list) and any(isinstance(item, Mapping | list) for item in value):
            lines.append(f"{indent}{name}:")
            lines.extend(f"{indent}  - {_inline(item, field.fields)}" for item in value if not _empty(item))
        elif field.type == "datetime" and isinstance(value, str):
            lines.append(f"{indent}{name}: {_moment(value)}")
        else:
            lines.append(f"{indent}{name}: {_inline(value, field.fields)}")


def _inline(value: Any, fields: tuple[FieldDef, ...] = ()) -> str:
    if isinstance(value, Mapping):
        order = [f.name for f in fields if f.name in value] or list(value)
        parts = (f"{label(key)}: {_inline(value[key])}" for key in order if not _empty(value[key]))
        return "; ".join(parts)
    if isinstance(value, list):
        return ", ".join(_inline(item) for item in value if not _empty(item))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _moment(stored: str) -> str:
    """``2026-02-10T14:30:00.000000Z`` reads as ``2026-02-10 14:30 UTC``; a bare midnight as the date."""
    day, _, time = stored.partition("T")
    if not time or time.startswith("00:00:00.000000"):
        return day
    return f"{day} {time[:5]} UTC"


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict) and len(value) == 0)
