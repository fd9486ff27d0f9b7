"""mcp-memory-service's export JSON (its ``memory export``/sync exporter).

The file is ``{"export_metadata": {...}, "memories": [...]}``; each memory has
``content``, ``content_hash``, ``tags`` (a list, or a comma-separated text in older
files), ``memory_type``, ``metadata`` (an object), ``created_at``/``updated_at`` (Unix
seconds) and their ``_iso`` forms. Content, tags, type, ``created_at`` (when it
happened) and ``metadata`` (structured content) are kept; ``content_hash`` is the
record's key; ``updated_at`` and other fields have no place and are reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remember.errors import excerpt
from remember.preferences import TYPE_NAME
from remember.service.drafts import MemoryDraft
from remember.service.import_export.peers.mem0 import records_of
from remember.service.import_export.peers.records import ImportedMemory, Parsed
from remember.service.import_export.peers.sources import json_of, moment, plain_tags

SOURCE = "mcp-memory-service"
MAPPED = {"content", "content_hash", "tags", "memory_type", "metadata", "created_at", "created_at_iso"}


def read(path: Path) -> Parsed:
    parsed = Parsed()
    for number, record in enumerate(records_of(path, json_of(path), ("memories",)), start=1):
        where = f"memory {number}"
        if not isinstance(record, dict) or not isinstance(record.get("content"), str) or not record["content"].strip():
            parsed.skipped.append((where, "no content"))
            continue
        try:
            draft = _draft(record, parsed, where)
        except ValueError as exc:
            parsed.skipped.append((where, str(exc)))
            continue
        parsed.memories.append(ImportedMemory(str(record.get("content_hash") or where), where, draft))
        parsed.unmapped += [(where, k) for k in sorted(set(record) - MAPPED) if record[k] not in (None, "", [], {})]
    return parsed


def _draft(record: dict[str, Any], parsed: Parsed, where: str) -> MemoryDraft:
    context: dict[str, Any] = {"source": SOURCE}
    when = record.get("created_at_iso") or record.get("created_at")
    if when not in (None, ""):
        context["timestamp"] = moment(when)
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"metadata {excerpt(metadata)} is not an object")
    kind = record.get("memory_type")
    usable = isinstance(kind, str) and TYPE_NAME.match(kind.strip())
    if kind not in (None, "") and not usable:
        parsed.unmapped.append((where, "memory_type (not a usable type: the default type is given)"))
    return MemoryDraft(
        content=record["content"],
        type=kind.strip() if usable and isinstance(kind, str) else None,
        tags=plain_tags(record.get("tags")),
        context=context,
        structured_content=metadata or None,
    )
