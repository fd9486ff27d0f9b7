"""Memories, history entries and templates to rows and back, through a dialect's codecs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from remember.memory_fields import FIELDS, Codec
from remember.models import HistoryEntry, Memory, TemplateRecord, name_key, plain
from remember.store.sql.dialect import Dialect

MEMORY_COLUMN_NAMES = tuple(f.column for f in FIELDS)
MEMORY_COLUMNS = ", ".join(MEMORY_COLUMN_NAMES)
MEMORY_COLUMNS_OF_M = ", ".join(f"m.{c}" for c in MEMORY_COLUMN_NAMES)
MEMORY_PLACEHOLDERS = ", ".join("?" for _ in MEMORY_COLUMN_NAMES)
# Every column but the key (user_id, id), in MEMORY_COLUMN_NAMES order.
MEMORY_ASSIGNMENTS = ", ".join(f"{c} = ?" for c in MEMORY_COLUMN_NAMES[2:])
HISTORY_COLUMNS = "user_id, memory_id, version, action, previous, reason, at, effective_at, actor"
# A relationship's history has no effective_at: read as null so that one reader fits both.
RELATIONSHIP_HISTORY_COLUMNS = "user_id, relationship_id, version, action, previous, reason, at, NULL, actor"
TEMPLATE_COLUMNS = "user_id, id, definition, created_at, updated_at"


def dump(value: Any) -> str:
    """JSON as both backends store it: compact, keys sorted, Unicode as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def memory_params(d: Dialect, m: Memory) -> tuple[Any, ...]:
    """The memory's values in ``MEMORY_COLUMN_NAMES`` order, encoded for ``d``."""
    return tuple(_encode(d, f.codec, getattr(m, f.attribute)) for f in FIELDS)


def memory_from_row(d: Dialect, row: Sequence[Any]) -> Memory:
    return Memory(**{f.attribute: _decode(d, f.codec, value) for f, value in zip(FIELDS, row, strict=True)})


def _encode(d: Dialect, codec: Codec, value: Any) -> Any:
    if codec == "plain" or value is None:
        return value
    if codec == "texts":
        return d.texts(value)
    if codec in ("json", "json?", "objects"):
        return d.json(plain(value))
    if codec == "flag":
        return d.flag(value)
    return d.moment(value)


def _decode(d: Dialect, codec: Codec, value: Any) -> Any:
    if codec == "plain" or value is None:
        return value
    if codec == "texts":
        return d.from_texts(value)
    if codec in ("json", "json?"):
        return d.from_json(value)
    if codec == "objects":
        return tuple(d.from_json(value))
    if codec == "flag":
        return d.from_flag(value)
    return d.from_moment(value)


def history_params(d: Dialect, h: HistoryEntry) -> tuple[Any, ...]:
    """A relationship's history row: a memory's without ``effective_at``."""
    return (h.user_id, h.memory_id, h.version, h.action, d.json(dict(h.previous)), h.reason, d.moment(h.at), h.actor)


def memory_history_params(d: Dialect, h: HistoryEntry) -> tuple[Any, ...]:
    """In ``HISTORY_COLUMNS`` order."""
    *before, actor = history_params(d, h)
    return (*before, d.moment(h.effective_at) if h.effective_at is not None else None, actor)


def history_from_row(d: Dialect, row: Sequence[Any]) -> HistoryEntry:
    """A history entry from a row in ``HISTORY_COLUMNS`` (or ``RELATIONSHIP_HISTORY_COLUMNS``) order."""
    user_id, memory_id, version, action, previous, reason, at, effective_at, actor = row
    effective = d.from_moment(effective_at) if effective_at is not None else None
    return HistoryEntry(
        memory_id, user_id, version, action, d.from_json(previous), reason, d.from_moment(at), effective, actor
    )


def template_params(d: Dialect, record: TemplateRecord) -> tuple[Any, ...]:
    """In the order of ``TEMPLATE_INSERT``'s columns."""
    return (
        record.user_id,
        record.id,
        record.name,
        name_key(record.name),
        record.version,
        record.parent_template_id,
        d.json(dict(record.definition)),
        d.moment(record.created_at),
        d.moment(record.updated_at),
    )


TEMPLATE_INSERT = (
    "INSERT INTO templates (user_id, id, name, name_key, version, parent_template_id, definition, "
    "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def template_from_row(d: Dialect, row: Sequence[Any]) -> TemplateRecord:
    user_id, id_, definition, created, updated = row
    return TemplateRecord(user_id, id_, d.from_json(definition), d.from_moment(created), d.from_moment(updated))
