"""Writing what a reader read: checked first, then in parts, each memory once.

Every draft is checked before anything is written; a record that cannot be stored
is reported with its problem and the rest go in. Memories are written in parts of
``PART``, one transaction each, through the same dedup check as a create (a memory
whose text and fields are stored already is not stored again): importing a file
twice creates nothing the second time, and an import cut short is finished by
running it again.
"""

from __future__ import annotations

from collections.abc import Callable

from remember.access import trust_level
from remember.errors import NotFound, StoreError, ValidationFailed
from remember.models import Memory
from remember.service import dedup
from remember.service.memories import MemoryService
from remember.service.moving.records import ImportReport, Parsed, report_links
from remember.store.sql.fingerprint import content_hash

PART = 500
EXAMPLES = 5
Progress = Callable[[int, int], None]
Prepared = tuple[Memory, str | None]


def run(
    memories: MemoryService,
    user_id: str,
    source: str,
    parsed: Parsed,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    report = ImportReport(source, dry_run, read=len(parsed.memories), skipped=list(parsed.skipped))
    for _, what in parsed.unmapped:
        report.unmapped[what] += 1
    report_links(parsed.links, report)
    prepared, stamped = _checked(memories, user_id, parsed, report)
    unique = _once(prepared, stamped, report)
    if dry_run:
        for part in _parts(unique):
            present = _present(memories, user_id, part, stamped)
            for memory, _ in part:
                _count(report, memory, memory.id not in present)
        return report
    done = 0
    for part in _parts(unique):
        try:
            _write(memories, user_id, part, stamped, report)
        except StoreError as exc:
            raise type(exc)(
                f"{exc.message}\n{report.created} memories were imported before this and are kept; once the "
                "problem is fixed, run the same import again to finish it (nothing is imported twice)."
            ) from exc
        done += len(part)
        if progress:
            progress(done, len(unique))
    return report


def _write(
    memories: MemoryService, user_id: str, part: list[Prepared], stamped: set[str], report: ImportReport
) -> None:
    """One part in one transaction; the memories stored already are not embedded again."""
    present = _present(memories, user_id, part, stamped)
    fresh = [p for p in part if p[0].id not in present]
    repeats = memories.insert_prepared(fresh, stamped) if fresh else []
    created = {m.id for (m, _), r in zip(fresh, repeats, strict=True) if r is None}
    for memory, _ in part:
        _count(report, memory, memory.id in created)


def _parts(items: list[Prepared]) -> list[list[Prepared]]:
    return [items[start : start + PART] for start in range(0, len(items), PART)]


def _present(memories: MemoryService, user_id: str, part: list[Prepared], stamped: set[str]) -> set[str]:
    """The memories of ``part`` the user has stored already (an earlier import of the same data)."""
    repeat = dedup.repeat_rule(stamped)
    stored = memories.store.memories_by_text(user_id, [m.content for m, _ in part], max_trust=trust_level())
    return {m.id for m, _ in part if any(repeat(t, m) for t in stored.get(m.content, []))}


def _checked(
    memories: MemoryService, user_id: str, parsed: Parsed, report: ImportReport
) -> tuple[list[Prepared], set[str]]:
    """Each draft as a memory; a draft the service refuses is reported with its problems."""
    prepared: list[Prepared] = []
    stamped: set[str] = set()
    for item in parsed.memories:
        try:
            memory, fields_text = memories.prepare_new(user_id, item.draft)
        except (ValidationFailed, NotFound) as problem:
            report.skipped.append((item.where, _why(problem)))
            continue
        prepared.append((memory, fields_text))
        if (item.draft.context or {}).get("timestamp"):
            stamped.add(memory.id)
    return prepared, stamped


def _why(problem: ValidationFailed | NotFound) -> str:
    if isinstance(problem, ValidationFailed) and problem.errors:
        return "; ".join(f"{e.field}: {e.message}" for e in problem.errors[:5])
    return problem.message


def _once(prepared: list[Prepared], stamped: set[str], report: ImportReport) -> list[Prepared]:
    """The memories with the ones the source repeats left out (counted)."""
    repeat = dedup.repeat_rule(stamped)
    seen: dict[str, list[Memory]] = {}
    unique: list[Prepared] = []
    for memory, fields_text in prepared:
        twins = seen.setdefault(content_hash(memory.content), [])
        if any(repeat(t, memory) for t in twins):
            report.repeated_in_source += 1
            continue
        twins.append(memory)
        unique.append((memory, fields_text))
    return unique


def _count(report: ImportReport, memory: Memory, created: bool) -> None:
    if not created:
        report.already_present += 1
        return
    report.created += 1
    if len(report.examples) < EXAMPLES:
        shown = memory.as_dict()
        report.examples.append({k: shown[k] for k in ("title", "type", "tags", "content")})
