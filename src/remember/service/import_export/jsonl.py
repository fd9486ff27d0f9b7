"""Moving users between databases (SQLite and PostgreSQL, either way) with nothing lost.

The moving form is JSON Lines: a header, then per user one record per
preference, preference change, template (with its versions), memory (with its
history and vector), suggestion event and relationship (with its history; its
observation is indexed again on import). ``export_records`` reads a store into
it; ``import_records`` writes it into another (records read by ``jsonl_reading.py``), each
user in parts of at most ``PART`` memories, one transaction each, so that other writers get in
between; what it does with an id the user has is ``on_conflict`` (``restore.py`` checks the file
first).
Vectors travel with their memories and are reused when the target's embedder is
the one that made them; otherwise they are rebuilt.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO

from remember import __version__
from remember.caller import Caller
from remember.clock import to_text, utc_now
from remember.errors import Conflict, RememberError, ValidationFailed
from remember.models import (
    HistoryEntry,
    IndexEntry,
    Memory,
    MemoryQuery,
    OnConflict,
    Progress,
    UserDump,
)
from remember.nouns import counted
from remember.search import text
from remember.service.import_export.jsonl_reading import FORMAT, Pending, Record, header, take, user_of
from remember.service.indexer import DIMENSION_KEY, MODEL_KEY, Indexer
from remember.service.relationships import index_entries
from remember.service.visibility import visible_history, within_reach
from remember.space_keys import is_space_key
from remember.store import Store
from remember.templates import TemplateDefinition, builtin_template, parse_template, render_text, resolve

FORMAT_VERSION = 1
PAGE = 500
PART = 500  # memories written per transaction of an import


def export_records(
    store: Store, callers: Sequence[Caller] | None = None, spaces: Mapping[str, str] | None = None
) -> Iterator[Record]:
    """The header, then every record each of ``callers`` may read (default: every user's, all of it),
    user by user. A caller acting in a shared space exports the space (its records' ``user_id`` is the space's
    key; ``spaces``: the names the header gives the spaces exported, by key)."""
    chosen = callers if callers is not None else [Caller(user) for user in every_user(store)]
    settings = store.index.index_settings()
    yield {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "remember_version": __version__,
        "exported_at": to_text(utc_now()),
        "embedding_model": settings.get(MODEL_KEY),
        "embedding_dimension": settings.get(DIMENSION_KEY),
        **({"spaces": dict(spaces)} if spaces else {}),
    }
    for caller in chosen:
        yield from _user_records(store, caller)


def every_user(store: Store) -> list[str]:
    """Every user with anything stored; refused while the database holds shared spaces, which an export of every
    user does not carry (nor their members): a copy or a backup that silently left them out would lose them."""
    users = store.transfer.user_ids()
    if any(is_space_key(u) for u in users):
        raise ValidationFailed.single(
            "users", "shared_spaces",
            "This database holds shared spaces, which exports and copies of every user do not carry "
            "(docs/spaces.md). Export each user's own memories with --user (db copy: --only-user), and each space "
            "by one of its members with `remember --user MEMBER export --space NAME`; import that into a space "
            "of the other database with `remember import FILE --space NAME`.",
        )  # fmt: skip
    return users


def write_export(
    store: Store, callers: Sequence[Caller] | None, out: IO[str], spaces: Mapping[str, str] | None = None
) -> int:
    """``export_records`` written to ``out`` as JSON Lines; how many records (the header included)."""
    written = 0
    for record in export_records(store, callers, spaces):
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
        # the identity key travels with it, so the memory about the same thing is still found after a restore
        "memory": {**memory.as_dict(), **({"identity_key": memory.identity_key} if memory.identity_key else {})},
        "history": [
            h.as_dict() for h in visible_history(caller, memory, store.memories.history(memory.user_id, memory.id))
        ],
        "vector": base64.b64encode(vector).decode() if vector else None,
    }


def refuse_existing(store: Store, users: Iterable[str]) -> None:
    """Conflict if any of ``users`` already has data in ``store`` (checked before anything is written)."""
    taken = sorted(set(users) & set(store.transfer.user_ids()))
    if taken:
        raise Conflict(
            f"These users already have data in the target database: {', '.join(taken)}. "
            "Import into an empty database, or one without them."
        )


def import_records(
    store: Store,
    indexer: Indexer,
    records: Iterable[Record],
    progress: Progress | None = None,
    *,
    on_conflict: OnConflict = "refuse",
    author: str | None = None,
) -> dict[str, int]:
    """Write the records into ``store``, a user in transactions of at most PART memories; per user: memories read.

    Every transaction is short (the embedding is done before it), so a server writing to
    the same database waits a fraction of a second, not the whole import. A record whose id
    the user has is met as ``on_conflict`` says (``TransferTables.restore``). In a shared space, ``author``
    is recorded as the one who stored each memory and made each change (in a personal space, no one: the owner).
    """
    stream = iter(records)
    head = header(next(stream, None))
    # Settle which embedder the target's vectors are made by before writing any (it records
    # the configured one on a fresh database), so reused vectors and new ones agree.
    same_vectors = indexer.state() == "ready" and head.get("embedding_model") == indexer.embedder_name
    counts: dict[str, int] = {}
    pending: Pending | None = None
    for number, record in enumerate(stream, start=2):
        user = user_of(record, number)
        if pending is None or pending.user_id != user:
            if pending is not None:
                counts[pending.user_id] = _flush(store, indexer, pending, same_vectors, on_conflict)
            pending = Pending(user, author=author if is_space_key(user) else None)
        _read(pending, record, number)
        if len(pending.memories) >= PART:
            _flush_part(store, indexer, pending, same_vectors, on_conflict)
        if progress and record.get("kind") == "memory":
            progress(sum(counts.values()) + pending.written + len(pending.memories), 0)
    if pending is not None:
        counts[pending.user_id] = _flush(store, indexer, pending, same_vectors, on_conflict)
    return counts


def _read(pending: Pending, record: Record, number: int) -> None:
    """Take one record; a bad one after some of its user's memories were written says how many."""
    try:
        take(pending, record, number)
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


def _flush_part(store: Store, indexer: Indexer, pending: Pending, same_vectors: bool, on_conflict: OnConflict) -> None:
    """Write the memories read so far (one bounded transaction); the rest of the user comes later."""
    written = len(pending.memories)
    part = Pending(
        pending.user_id, pending.author, templates=pending.templates, memories=_kept(store, pending, on_conflict)
    )
    store.transfer.restore(_dump(indexer, part, same_vectors, memories_only=True), on_conflict=on_conflict)
    pending.written += written
    pending.memories = []


def _flush(store: Store, indexer: Indexer, pending: Pending, same_vectors: bool, on_conflict: OnConflict) -> int:
    """Write the rest of a user: its last memories, preferences, templates and suggestion events;
    then its relationships, whose members are all written by then."""
    read = pending.written + len(pending.memories)
    pending.memories = _kept(store, pending, on_conflict)
    store.transfer.restore(_dump(indexer, pending, same_vectors), on_conflict=on_conflict)
    for start in range(0, len(pending.relationships), PART):
        part = pending.relationships[start : start + PART]
        entries = index_entries(indexer, [r for r, _ in part])
        store.relationships.restore(
            pending.user_id,
            [(r, h, terms, v) for (r, h), (terms, v) in zip(part, entries, strict=True)],
            on_conflict=on_conflict,
        )
    return read


def _kept(
    store: Store, pending: Pending, on_conflict: OnConflict
) -> list[tuple[Memory, tuple[HistoryEntry, ...], bytes | None]]:
    """The memories of ``pending`` to write: when the stored ones are kept, those are not embedded for nothing
    (the store checks again in the transaction that writes)."""
    if on_conflict != "skip":
        return pending.memories
    stored = store.transfer.existing(pending.user_id, "memories", [m.id for m, _, _ in pending.memories])
    return [item for item in pending.memories if item[0].id not in stored]


def _dump(indexer: Indexer, pending: Pending, same_vectors: bool, *, memories_only: bool = False) -> UserDump:
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

    def __init__(self, pending: Pending) -> None:
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
