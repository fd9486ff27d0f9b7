"""Moving users between databases (SQLite and PostgreSQL, either way) with nothing lost.

The moving form is JSON Lines: a header, then per user one record per
preference, preference change, template (with its versions), memory (with its
history and vector), suggestion event and relationship (with its history; its
observation is indexed again on import). ``export_records`` reads a store into
it; ``import_records`` writes it into another, each user in parts of at most
``PART`` memories, one transaction each, so that other writers get in between.
Vectors travel with their memories and are reused when the target's embedder is
the one that made them; otherwise they are rebuilt.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from remember import __version__
from remember.caller import Caller
from remember.clock import from_text, to_text, utc_now
from remember.errors import Conflict, RememberError, ValidationFailed, excerpt
from remember.models import (
    HistoryEntry,
    IndexEntry,
    Memory,
    MemoryQuery,
    PreferenceChange,
    Progress,
    Relationship,
    SuggestionEvent,
    TemplateRecord,
    TemplateVersion,
    UserDump,
    memory_from_dict,
    relationship_from_dict,
)
from remember.nouns import counted
from remember.search import text
from remember.service.indexer import DIMENSION_KEY, MODEL_KEY, Indexer
from remember.service.relationships import index_entries
from remember.service.visibility import visible_history, within_reach
from remember.store import Store
from remember.templates import TemplateDefinition, builtin_template, parse_template, render_text, resolve

FORMAT = "remember-export"
FORMAT_VERSION = 1
PAGE = 500
PART = 500  # memories written per transaction of an import
Record = dict[str, Any]


def export_records(store: Store, callers: Sequence[Caller] | None = None) -> Iterator[Record]:
    """The header, then every record each of ``callers`` may read (default: every user's, all of it),
    user by user."""
    settings = store.index.index_settings()
    yield {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "remember_version": __version__,
        "exported_at": to_text(utc_now()),
        "embedding_model": settings.get(MODEL_KEY),
        "embedding_dimension": settings.get(DIMENSION_KEY),
    }
    for caller in callers if callers is not None else [Caller(user) for user in store.transfer.user_ids()]:
        yield from _user_records(store, caller)


def write_export(store: Store, callers: Sequence[Caller] | None, out: IO[str]) -> int:
    """``export_records`` written to ``out`` as JSON Lines; how many records (the header included)."""
    written = 0
    for record in export_records(store, callers):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        written += 1
    return written


def _user_records(store: Store, caller: Caller) -> Iterator[Record]:
    user = caller.user
    for path, value in store.preferences.get(user).items():
        yield {"kind": "preference", "user_id": user, "path": path, "value": value}
    for change in store.preferences.history(user):
        yield {"kind": "preference_change", "user_id": user, **change.as_dict()}
    for record in store.templates.of_user(user):
        versions = [
            {"version": v.version, "definition": dict(v.definition), "at": to_text(v.at)}
            for v in store.templates.versions(user, record.id)
        ]
        yield {
            "kind": "template", "user_id": user, "definition": dict(record.definition),
            "created_at": to_text(record.created_at), "updated_at": to_text(record.updated_at), "versions": versions,
        }  # fmt: skip
    offset, exported = 0, set[str]()
    while True:
        query = MemoryQuery(
            filter=within_reach(caller, None), sort_by="created_at", descending=False, limit=PAGE, offset=offset,
            deleted="include",
        )  # fmt: skip
        page = store.memories.page(user, query)
        for memory in page.items:
            exported.add(memory.id)
            yield _memory_record(store, caller, memory)
        offset += len(page.items)
        if not page.has_more:
            break
    for event in store.suggestions.events(user):
        if caller.restricted and event.memory_id is not None and event.memory_id not in exported:
            continue  # it names a memory above the caller's trust level
        yield {
            "kind": "suggestion_event", "user_id": user, "template_id": event.template_id, "event": event.event,
            "at": to_text(event.at), "memory_id": event.memory_id, "confidence": event.confidence,
        }  # fmt: skip
    for rel, history in store.relationships.of_user(user):
        if not exported.issuperset(rel.memory_ids):
            continue  # a member above the caller's trust level was left out, and so is the link
        yield {
            "kind": "relationship", "user_id": user, "relationship": rel.as_dict(),
            "history": [h.as_dict() for h in history],
        }  # fmt: skip


def _memory_record(store: Store, caller: Caller, memory: Memory) -> Record:
    vector = store.index.get_vector(memory.user_id, memory.id)
    return {
        "kind": "memory",
        "user_id": memory.user_id,
        "memory": memory.as_dict(),
        "history": [
            h.as_dict() for h in visible_history(caller, memory, store.memories.history(memory.user_id, memory.id))
        ],
        "vector": base64.b64encode(vector).decode() if vector else None,
    }


@dataclass
class _Pending:
    user_id: str
    preferences: dict[str, Any] = field(default_factory=dict)
    changes: list[PreferenceChange] = field(default_factory=list)
    templates: list[tuple[TemplateRecord, tuple[TemplateVersion, ...]]] = field(default_factory=list)
    memories: list[tuple[Memory, tuple[HistoryEntry, ...], bytes | None]] = field(default_factory=list)
    events: list[SuggestionEvent] = field(default_factory=list)
    relationships: list[tuple[Relationship, tuple[HistoryEntry, ...]]] = field(default_factory=list)
    written: int = 0  # memories already written in earlier parts


def refuse_existing(store: Store, users: Iterable[str]) -> None:
    """Conflict if any of ``users`` already has data in ``store`` (checked before anything is written)."""
    taken = sorted(set(users) & set(store.transfer.user_ids()))
    if taken:
        raise Conflict(
            f"These users already have data in the target database: {', '.join(taken)}. "
            "Import into an empty database, or one without them."
        )


def import_records(
    store: Store, indexer: Indexer, records: Iterable[Record], progress: Progress | None = None
) -> dict[str, int]:
    """Write the records into ``store``, a user in transactions of at most PART memories; per user: memories imported.

    Every transaction is short (the embedding is done before it), so a server writing to
    the same database waits a fraction of a second, not the whole import.
    """
    stream = iter(records)
    header = _header(next(stream, None))
    # Settle which embedder the target's vectors are made by before writing any (it records
    # the configured one on a fresh database), so reused vectors and new ones agree.
    same_vectors = indexer.state() == "ready" and header.get("embedding_model") == indexer.embedder_name
    counts: dict[str, int] = {}
    pending: _Pending | None = None
    for number, record in enumerate(stream, start=2):
        user = _user_of(record, number)
        if pending is None or pending.user_id != user:
            if pending is not None:
                counts[pending.user_id] = _flush(store, indexer, pending, same_vectors)
            pending = _Pending(user)
        _read(pending, record, number)
        if len(pending.memories) >= PART:
            _flush_part(store, indexer, pending, same_vectors)
        if progress and record.get("kind") == "memory":
            progress(sum(counts.values()) + pending.written + len(pending.memories), 0)
    if pending is not None:
        counts[pending.user_id] = _flush(store, indexer, pending, same_vectors)
    return counts


def check_records(records: Iterable[Record]) -> dict[str, int]:
    """What ``import_records`` would write, every record read and checked, nothing written: per user, its memories."""
    stream = iter(records)
    _header(next(stream, None))
    counts: dict[str, int] = {}
    pending: _Pending | None = None
    for number, record in enumerate(stream, start=2):
        user = _user_of(record, number)
        if pending is None or pending.user_id != user:
            pending = _Pending(user)
        _take(pending, record, number)
        pending.memories.clear()  # checked; holding them would only cost memory
        counts[user] = counts.get(user, 0) + (record.get("kind") == "memory")
    return counts


def _header(header: Any) -> Record:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValidationFailed.single("file", "format", "This is not a remember export (its first line is no header).")
    return header


def _read(pending: _Pending, record: Record, number: int) -> None:
    """Take one record; a bad one after some of its user's memories were written says how many."""
    try:
        _take(pending, record, number)
    except ValidationFailed as exc:
        if not pending.written:
            raise
        raise ValidationFailed(
            f"{exc.message}\n{counted(pending.written, 'memory')} of user {pending.user_id} "
            f"{'was' if pending.written == 1 else 'were'} imported before this line and "
            f"{'is' if pending.written == 1 else 'are'} kept; fix the line, then import the rest of the file "
            "into another database or remove the user's memories first.",
            exc.errors,
        ) from exc


def _user_of(record: Any, number: int) -> str:
    if not isinstance(record, dict) or not isinstance(record.get("user_id"), str):
        raise ValidationFailed.single(f"line {number}", "invalid", f"Line {number} is not a record with a user_id.")
    return str(record["user_id"])


def _take(pending: _Pending, record: Record, number: int) -> None:
    kind = record.get("kind")
    try:
        if kind == "preference":
            pending.preferences[str(record["path"])] = record["value"]
        elif kind == "preference_change":
            pending.changes.append(
                PreferenceChange(
                    record["preference_path"],
                    record["old_value"],
                    record["new_value"],
                    record.get("reason"),
                    from_text(record["at"]),
                )
            )
        elif kind == "template":
            pending.templates.append(_template(pending.user_id, record))
        elif kind == "memory":
            pending.memories.append(_memory(pending.user_id, record))
        elif kind == "relationship":
            pending.relationships.append(_relationship(pending.user_id, record))
        elif kind == "suggestion_event":
            pending.events.append(
                SuggestionEvent(
                    record["template_id"],
                    record["event"],
                    from_text(record["at"]),
                    record.get("memory_id"),
                    record.get("confidence"),
                )
            )
        else:
            raise ValueError(f"unknown kind {excerpt(kind)}")
    except (KeyError, ValueError, TypeError) as exc:
        raise ValidationFailed.single(f"line {number}", "invalid", f"Line {number} cannot be read: {exc}.") from exc


def _template(user: str, record: Record) -> tuple[TemplateRecord, tuple[TemplateVersion, ...]]:
    versions = tuple(
        TemplateVersion(str(v["version"]), v["definition"], from_text(v["at"])) for v in record.get("versions", [])
    )
    definition = record["definition"]
    stored = TemplateRecord(
        user, str(definition["id"]), definition, from_text(record["created_at"]), from_text(record["updated_at"])
    )
    return stored, versions


def _memory(user: str, record: Record) -> tuple[Memory, tuple[HistoryEntry, ...], bytes | None]:
    memory = memory_from_dict(user, record["memory"])
    history = tuple(
        HistoryEntry(
            memory.id, user, int(h["version"]), h["action"], h["previous"], h.get("reason"), from_text(h["at"])
        )
        for h in record.get("history", [])
    )
    vector = base64.b64decode(record["vector"]) if record.get("vector") else None
    return memory, history, vector


def _relationship(user: str, record: Record) -> tuple[Relationship, tuple[HistoryEntry, ...]]:
    rel = relationship_from_dict(user, record["relationship"])
    history = tuple(
        HistoryEntry(rel.id, user, int(h["version"]), h["action"], h["previous"], h.get("reason"), from_text(h["at"]))
        for h in record.get("history", [])
    )
    return rel, history


def _flush_part(store: Store, indexer: Indexer, pending: _Pending, same_vectors: bool) -> None:
    """Write the memories read so far (one bounded transaction); the rest of the user comes later."""
    part = _Pending(pending.user_id, templates=pending.templates, memories=pending.memories)
    store.transfer.restore(_dump(indexer, part, same_vectors, memories_only=True), first=not pending.written)
    pending.written += len(pending.memories)
    pending.memories = []


def _flush(store: Store, indexer: Indexer, pending: _Pending, same_vectors: bool) -> int:
    """Write the rest of a user: its last memories, preferences, templates and suggestion events;
    then its relationships, whose members are all written by then."""
    store.transfer.restore(_dump(indexer, pending, same_vectors), first=not pending.written)
    for start in range(0, len(pending.relationships), PART):
        part = pending.relationships[start : start + PART]
        entries = index_entries(indexer, [r for r, _ in part])
        store.relationships.restore(
            pending.user_id, [(r, h, terms, v) for (r, h), (terms, v) in zip(part, entries, strict=True)]
        )
    return pending.written + len(pending.memories)


def _dump(indexer: Indexer, pending: _Pending, same_vectors: bool, *, memories_only: bool = False) -> UserDump:
    view = _ImportedTemplates(pending)
    texts = [(m, view.fields_text(m)) for m, _, _ in pending.memories]
    reuse = same_vectors and all(v is not None for _, _, v in pending.memories)
    if reuse:
        entries = [
            IndexEntry(Indexer.keyword_text(m, f), _date(m), v)
            for (m, f), (_, _, v) in zip(texts, pending.memories, strict=True)
        ]
    else:
        entries = indexer.entries(texts)
    memories = tuple((m, h, e) for (m, h, _), e in zip(pending.memories, entries, strict=True))
    if memories_only:
        return UserDump(pending.user_id, {}, (), (), memories, ())
    return UserDump(
        user_id=pending.user_id,
        preferences=pending.preferences,
        preference_history=tuple(pending.changes),
        templates=tuple(pending.templates),
        memories=memories,
        suggestion_events=tuple(pending.events),
    )


def _date(memory: Memory) -> str:
    return text.date_text(memory.occurred_at)


class _ImportedTemplates:
    """Renders templated memories' fields with the templates being imported (and the built-ins)."""

    def __init__(self, pending: _Pending) -> None:
        self.own = {r.id: parse_template(dict(r.definition)) for r, _ in pending.templates}

    def lookup(self, template_id: str) -> TemplateDefinition | None:
        return self.own.get(template_id) or builtin_template(template_id)

    def fields_text(self, memory: Memory) -> str | None:
        definition = self.lookup(memory.template_id) if memory.template_id else None
        if definition is None:
            return None
        try:
            resolved = resolve(definition, self.lookup)
        except RememberError:
            return None
        return render_text(resolved, memory.structured_content or {})
