"""Memories to SQLite rows and back."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from remember.clock import from_text, to_text
from remember.models import HistoryEntry, Memory

MEMORY_COLUMNS = (
    "user_id, id, content, title, type, weight, trust, tags, refs, context, location, template_id, "
    "template_version, structured_content, template_compliance, template_validation_errors, created_at, "
    "updated_at, occurred_at, version, deleted_at, access_count, last_accessed_at"
)
PLACEHOLDERS = ", ".join("?" for _ in MEMORY_COLUMNS.split(","))


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def memory_params(m: Memory) -> tuple[Any, ...]:
    return (
        m.user_id,
        m.id,
        m.content,
        m.title,
        m.type,
        m.weight,
        m.trust,
        dump(list(m.tags)),
        dump(list(m.references)),
        dump(dict(m.context)),
        dump(dict(m.location)) if m.location is not None else None,
        m.template_id,
        m.template_version,
        dump(m.structured_content) if m.structured_content is not None else None,
        None if m.template_compliance is None else int(m.template_compliance),
        dump([dict(e) for e in m.template_validation_errors]),
        to_text(m.created_at),
        to_text(m.updated_at),
        to_text(m.occurred_at),
        m.version,
        to_text(m.deleted_at) if m.deleted_at else None,
        m.access_count,
        to_text(m.last_accessed_at) if m.last_accessed_at else None,
    )


def memory_from_row(row: sqlite3.Row | tuple[Any, ...]) -> Memory:
    (user_id, id_, content, title, type_, weight, trust, tags, refs, context, location, template_id,
     template_version, structured, compliance, errors, created, updated, occurred, version, deleted,
     access_count, accessed) = row  # fmt: skip
    return Memory(
        id=id_,
        user_id=user_id,
        content=content,
        title=title,
        type=type_,
        weight=weight,
        trust=trust,
        tags=tuple(json.loads(tags)),
        references=tuple(json.loads(refs)),
        context=json.loads(context),
        location=json.loads(location) if location is not None else None,
        template_id=template_id,
        template_version=template_version,
        structured_content=json.loads(structured) if structured is not None else None,
        template_compliance=None if compliance is None else bool(compliance),
        template_validation_errors=tuple(json.loads(errors)),
        created_at=from_text(created),
        updated_at=from_text(updated),
        occurred_at=from_text(occurred),
        version=version,
        deleted_at=from_text(deleted) if deleted else None,
        access_count=access_count,
        last_accessed_at=from_text(accessed) if accessed else None,
    )


def history_params(h: HistoryEntry) -> tuple[Any, ...]:
    return (h.user_id, h.memory_id, h.version, h.action, dump(dict(h.previous)), h.reason, to_text(h.at))


def history_from_row(row: tuple[Any, ...]) -> HistoryEntry:
    user_id, memory_id, version, action, previous, reason, at = row
    return HistoryEntry(memory_id, user_id, version, action, json.loads(previous), reason, from_text(at))
