"""Memories to PostgreSQL rows and back.

Objects go in as ``jsonb``, lists of texts as ``text[]``, moments as
``timestamptz`` (read back in UTC, whatever the session's time zone).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from remember.models import HistoryEntry, Memory

MEMORY_COLUMNS = (
    "user_id, id, content, title, type, weight, trust, tags, refs, context, location, template_id, "
    "template_version, structured_content, template_compliance, template_validation_errors, created_at, "
    "updated_at, occurred_at, version, deleted_at, access_count, last_accessed_at"
)
COLUMN_NAMES = tuple(c.strip() for c in MEMORY_COLUMNS.split(","))
PLACEHOLDERS = ", ".join("%s" for _ in COLUMN_NAMES)
HISTORY_COLUMNS = "user_id, memory_id, version, action, previous, reason, at"


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def jsonb(value: Any) -> Jsonb:
    return Jsonb(value, dumps=dump)


def memory_params(m: Memory) -> tuple[Any, ...]:
    return (
        m.user_id,
        m.id,
        m.content,
        m.title,
        m.type,
        m.weight,
        m.trust,
        list(m.tags),
        list(m.references),
        jsonb(dict(m.context)),
        jsonb(dict(m.location)) if m.location is not None else None,
        m.template_id,
        m.template_version,
        jsonb(m.structured_content) if m.structured_content is not None else None,
        m.template_compliance,
        jsonb([dict(e) for e in m.template_validation_errors]),
        m.created_at,
        m.updated_at,
        m.occurred_at,
        m.version,
        m.deleted_at,
        m.access_count,
        m.last_accessed_at,
    )


def memory_from_row(row: Sequence[Any]) -> Memory:
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
        tags=tuple(tags),
        references=tuple(refs),
        context=context,
        location=location,
        template_id=template_id,
        template_version=template_version,
        structured_content=structured,
        template_compliance=compliance,
        template_validation_errors=tuple(errors),
        created_at=utc(created),
        updated_at=utc(updated),
        occurred_at=utc(occurred),
        version=version,
        deleted_at=utc(deleted) if deleted is not None else None,
        access_count=access_count,
        last_accessed_at=utc(accessed) if accessed is not None else None,
    )


def utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def history_params(h: HistoryEntry) -> tuple[Any, ...]:
    return (h.user_id, h.memory_id, h.version, h.action, jsonb(dict(h.previous)), h.reason, h.at)


def history_from_row(row: Sequence[Any]) -> HistoryEntry:
    user_id, memory_id, version, action, previous, reason, at = row
    return HistoryEntry(memory_id, user_id, version, action, previous, reason, utc(at))
