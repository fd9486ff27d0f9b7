"""Writing what a reader read: checked first, then in parts, each memory once.

Every draft is checked before anything is written; a record that cannot be stored
is reported with its problem and the rest go in. The templates remember's own export
carries are settled first (``carried_templates.py``): the drafts are checked against
them, and they are created before the memories. A memory of remember's own export keeps
its id (when the user has no memory of that id), dates and version (``records.Origin``).
Memories are written in parts of
``PART``, one transaction each, through the same dedup check as a create (a memory
whose text and fields are stored already is not stored again): importing a file
twice creates nothing the second time, and an import cut short is finished by
running it again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from remember.caller import Caller
from remember.errors import AccessDenied, NotFound, StoreError, ValidationFailed
from remember.models import Memory, Progress
from remember.nouns import counted
from remember.service import dedup
from remember.service.import_export.peers import carried_templates
from remember.service.import_export.peers.linking import relate
from remember.service.import_export.peers.records import ImportReport, Origin, Parsed
from remember.service.memories import MemoryService
from remember.service.relationships import RelationshipService
from remember.service.templates import UserTemplates
from remember.space_keys import is_space_key
from remember.store.sql.fingerprint import content_hash

PART = 500
EXAMPLES = 5
Prepared = tuple[Memory, str | None]


def run(
    memories: MemoryService,
    relationships: RelationshipService,
    caller: Caller,
    source: str,
    parsed: Parsed,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    elsewhere: Sequence[str] = (),
    admin: bool = True,
) -> ImportReport:
    """Import ``parsed`` for ``caller``; a note's id is kept unless the caller's space, or one of the caller's
    other spaces (``elsewhere``: their keys), has a memory of it (an id names one memory among a member's
    spaces; in a shared space, unless any owner in the database has it). The notes' templates come in only for
    an ``admin`` of a shared space imported into."""
    report = ImportReport(source, dry_run, read=len(parsed.memories), skipped=list(parsed.skipped))
    for _, what in parsed.unmapped:
        report.unmapped[what] += 1
    carried = carried_templates.settle(memories.templates, caller, parsed.templates)
    if carried.new and not admin:
        raise AccessDenied(
            f"The notes carry {len(carried.new)} templates this space has not: only its admins add templates to it. "
            "Ask an admin to import them."
        )
    prepared, stamped, keys = _checked(memories, caller, parsed, report, carried.view, elsewhere)
    unique, same_as = _once(prepared, stamped, report)
    carried_templates.create(memories.templates, caller, carried, report, write=not dry_run)
    stored_as: dict[str, str] = {}  # prepared memory id -> the id it is stored under
    for done, part in enumerate(_parts(unique), start=1):
        _store(memories, caller, part, stamped, report, stored_as, write=not dry_run)
        if progress:
            progress(min(done * PART, len(unique)), len(unique))
    report.memory_ids = _ids(keys, same_as, stored_as)
    relate(relationships, caller, parsed.links, {**_titles(parsed, report.memory_ids), **report.memory_ids}, report)
    _succeed(memories, caller, parsed, report)
    return report


SUCCESSIONS = "kept as supersessions"
NO_SUCCESSOR = "supersessions not kept: a note is not among the imported memories"


def _succeed(memories: MemoryService, caller: Caller, parsed: Parsed, report: ImportReport) -> None:
    """What replaced what, as remember's notes say it (``supersedes``, ``superseded_by``), between the
    imported memories; a note that names one not imported is counted, not guessed."""
    pairs: set[tuple[str, str]] = set()
    for item in parsed.memories:
        origin, own = item.origin, report.memory_ids.get(item.key)
        if origin is None or own is None:
            continue
        named = [(key, True) for key in origin.supersedes]
        named += [(origin.superseded_by, False)] if origin.superseded_by else []
        for key, replaced in named:
            other = report.memory_ids.get(key)
            if other is None or other == own:
                report.links[NO_SUCCESSOR] += 1
            else:
                pairs.add((own, other) if replaced else (other, own))
    if pairs and not report.dry_run:
        memories.store.memories.link_successors(caller.user, sorted(pairs))
    if pairs:
        report.links[SUCCESSIONS] += len(pairs)


def _titles(parsed: Parsed, ids: dict[str, str]) -> dict[str, str]:
    """Title -> memory id, for the titles that name one imported memory: a link may name a note by
    its title instead of its key."""
    named: dict[str, set[str]] = {}
    for item in parsed.memories:
        if item.draft.title and item.key in ids:
            named.setdefault(item.draft.title, set()).add(ids[item.key])
    return {title: next(iter(found)) for title, found in named.items() if len(found) == 1}


def _ids(keys: dict[str, str], same_as: dict[str, str], stored_as: dict[str, str]) -> dict[str, str]:
    """Source key -> the id of the memory that holds it (for the links between them)."""
    out: dict[str, str] = {}
    for memory_id, key in keys.items():
        stored = stored_as.get(same_as.get(memory_id, memory_id))
        if stored is not None:
            out.setdefault(key, stored)
    return out


def _store(
    memories: MemoryService,
    caller: Caller,
    part: list[Prepared],
    stamped: set[str],
    report: ImportReport,
    stored_as: dict[str, str],
    *,
    write: bool,
) -> None:
    """One part in one transaction (or, without ``write``, what it would create); the memories
    stored already are neither embedded nor stored again."""
    found = _present(memories, caller, part, stamped)
    fresh = [p for p in part if p[0].id not in found]
    if write and fresh:
        try:
            repeats = memories.insert_prepared(caller, fresh, stamped)
        except StoreError as exc:
            raise type(exc)(
                f"{exc.message}\n{counted(report.created, 'memory')} "
                f"{'was imported before this and is' if report.created == 1 else 'were imported before this and are'} "
                "kept; once the problem is fixed, run the same import again to finish it (nothing is imported twice)."
            ) from exc
        found.update({m.id: r.id for (m, _), r in zip(fresh, repeats, strict=True) if r is not None})
    for memory, _ in part:
        _count(report, memory, memory.id not in found)
        stored_as[memory.id] = found.get(memory.id, memory.id)


def _parts(items: list[Prepared]) -> list[list[Prepared]]:
    return [items[start : start + PART] for start in range(0, len(items), PART)]


def _present(memories: MemoryService, caller: Caller, part: list[Prepared], stamped: set[str]) -> dict[str, str]:
    """The memories of ``part`` the user has stored already (an earlier import of the same data):
    their id here -> the stored one's."""
    repeat = dedup.repeat_rule(stamped)
    stored = memories.store.memories.by_text(caller.user, [m.content for m, _ in part], max_trust=caller.trust)
    out: dict[str, str] = {}
    for memory, _ in part:
        twin = next((t for t in stored.get(memory.content, []) if repeat(t, memory)), None)
        if twin is not None:
            out[memory.id] = twin.id
    return out


def _checked(
    memories: MemoryService, caller: Caller, parsed: Parsed, report: ImportReport, templates: UserTemplates,
    elsewhere: Sequence[str],
) -> tuple[list[Prepared], set[str], dict[str, str]]:  # fmt: skip
    """Each draft as a memory (its template looked up in ``templates``); a draft the service refuses is
    reported with its problems. Also the ids of the memories whose time was given, and each memory's
    source key."""
    prepared: list[Prepared] = []
    stamped: set[str] = set()
    keys: dict[str, str] = {}
    taken = _taken_ids(memories, [caller.user, *elsewhere], parsed)
    for item in parsed.memories:
        try:
            memory, fields_text = memories.prepare_new(caller, item.draft, templates)
        except (ValidationFailed, NotFound) as problem:
            report.skipped.append((item.where, _why(problem)))
            continue
        memory = _as_it_was(memory, item.origin, taken)
        prepared.append((memory, fields_text))
        keys[memory.id] = item.key
        if (item.draft.context or {}).get("timestamp"):
            stamped.add(memory.id)
    return prepared, stamped, keys


def _taken_ids(memories: MemoryService, owners: Sequence[str], parsed: Parsed) -> set[str]:
    """The ids remember's notes had that the owners' memories (the trash included) hold already."""
    wanted = [item.origin.memory_id for item in parsed.memories if item.origin and item.origin.memory_id]
    if not wanted:
        return set()
    taken = {m.id for owner in dict.fromkeys(owners) for m in memories.store.memories.get_many(owner, wanted)}
    if owners and is_space_key(owners[0]):  # a shared space's ids name nothing else in the database
        taken |= memories.store.transfer.held_by_others(owners[0], "memories", wanted)
    return taken


def _as_it_was(memory: Memory, origin: Origin | None, taken: set[str]) -> Memory:
    """The memory with the id (if no memory has it: ``taken`` grows), dates and version it was exported
    with; a memory of another source as it is."""
    if origin is None:
        return memory
    memory_id = memory.id
    if origin.memory_id is not None and origin.memory_id not in taken:
        taken.add(origin.memory_id)
        memory_id = origin.memory_id
    return dataclasses.replace(
        memory,
        id=memory_id,
        created_at=origin.created_at or memory.created_at,
        updated_at=origin.updated_at or memory.updated_at,
        version=origin.version or memory.version,
    )


def _why(problem: ValidationFailed | NotFound) -> str:
    if isinstance(problem, ValidationFailed) and problem.errors:
        return "; ".join(f"{e.field}: {e.message}" for e in problem.errors[:5])
    return problem.message


def _once(prepared: list[Prepared], stamped: set[str], report: ImportReport) -> tuple[list[Prepared], dict[str, str]]:
    """The memories with the ones the source repeats left out (counted), and which one each repeats."""
    repeat = dedup.repeat_rule(stamped)
    seen: dict[str, list[Memory]] = {}
    unique: list[Prepared] = []
    same_as: dict[str, str] = {}
    for memory, fields_text in prepared:
        twins = seen.setdefault(content_hash(memory.content), [])
        first = next((t for t in twins if repeat(t, memory)), None)
        if first is not None:
            report.repeated_in_source += 1
            same_as[memory.id] = first.id
            continue
        twins.append(memory)
        unique.append((memory, fields_text))
    return unique, same_as


def _count(report: ImportReport, memory: Memory, created: bool) -> None:
    if not created:
        report.already_present += 1
        return
    report.created += 1
    if len(report.examples) < EXAMPLES:
        shown = memory.as_dict()
        report.examples.append({k: shown[k] for k in ("title", "type", "tags", "content")})
