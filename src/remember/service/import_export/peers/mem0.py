"""mem0's export: what ``Memory.get_all`` (and the platform's ``get_all``) answers, saved as JSON.

The file is ``{"results": [...]}`` (mem0 1.x; also ``"memories"`` or ``"records"``) or
a plain list (older releases). Each record has ``memory`` (the text), ``id``, ``hash``,
``metadata``, ``categories`` (platform), ``created_at``, ``updated_at``, ``user_id``,
``agent_id``, ``run_id``. The text becomes the memory's content, categories its tags,
``created_at`` when it happened, ``metadata`` its structured content, the user and agent
its participants and the run its conversation. The rest (``id``, ``hash``,
``updated_at``, ``score``, …) has no place and is reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remember.errors import excerpt
from remember.service.drafts import MemoryDraft
from remember.service.import_export.peers.records import ImportedMemory, Parsed
from remember.service.import_export.peers.sources import json_of, moment, plain_tags, refused

SOURCE = "mem0"
COLLECTIONS = ("results", "memories", "records")
MAPPED = {"memory", "categories", "created_at", "metadata", "user_id", "agent_id", "run_id"}


def records_of(path: Path, payload: Any, collections: tuple[str, ...] = COLLECTIONS) -> list[Any]:
    if isinstance(payload, list):
        return payload
    if isinstance(payload, dict):
        for key in collections:
            if isinstance(payload.get(key), list):
                return list(payload[key])
    raise refused(path, f"it holds no list of memories (a JSON list, or an object with {' or '.join(collections)}).")


def read(path: Path) -> Parsed:
    parsed = Parsed()
    for number, record in enumerate(records_of(path, json_of(path)), start=1):
        where = f"record {number}"
        if not isinstance(record, dict) or not isinstance(record.get("memory"), str) or not record["memory"].strip():
            parsed.skipped.append((where, "no memory text"))
            continue
        try:
            parsed.memories.append(ImportedMemory(str(record.get("id") or where), where, _draft(record)))
        except ValueError as exc:
            parsed.skipped.append((where, str(exc)))
            continue
        parsed.unmapped += [(where, k) for k in sorted(set(record) - MAPPED) if record[k] not in (None, "", [], {})]
    return parsed


def _draft(record: dict[str, Any]) -> MemoryDraft:
    context: dict[str, Any] = {"source": SOURCE}
    if record.get("created_at") not in (None, ""):
        context["timestamp"] = moment(record["created_at"])
    people = [str(record[k]) for k in ("user_id", "agent_id") if record.get(k)]
    if people:
        context["participants"] = people
    if record.get("run_id"):
        context["conversation_id"] = str(record["run_id"])
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"metadata {excerpt(metadata)} is not an object")
    return MemoryDraft(
        content=record["memory"],
        tags=plain_tags(record.get("categories")),
        context=context,
        structured_content=metadata or None,
    )
