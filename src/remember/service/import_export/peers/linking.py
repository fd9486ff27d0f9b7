"""The links another server's data holds, made into relationships between the imported memories.

A link (a server-memory relation, a basic-memory relation or wikilink) becomes a
relationship of its two memories with the link's type and observation. Importing the
same data again relates nothing twice: a relationship of the same two memories, type
and observation is already there. A link whose end is not among the imported memories,
or that links a memory to itself, is counted with why; nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Sequence

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.service.import_export.peers.records import ImportedLink, ImportReport
from remember.service.relationships import RelationshipDraft, RelationshipService

CREATED = "created as relationships"
WOULD_CREATE = "would be created as relationships"
PRESENT = "related already (not created again)"
NO_END = "not imported: an end is not among the imported memories"
TO_ITSELF = "not imported: a memory linked to itself"
CHUNK = 500  # memories whose relationships are read at once

Key = tuple[frozenset[str], str, str]


def relate(
    relationships: RelationshipService, caller: Caller, links: Sequence[ImportedLink], ids: dict[str, str],
    report: ImportReport,
) -> None:  # fmt: skip
    """Make (or, in a dry run, count) a relationship for every link whose two ends were imported."""
    ends: list[tuple[ImportedLink, str, str]] = []
    for link in links:
        source, target = ids.get(link.source_key), ids.get(link.target_key)
        if source is None or target is None:
            report.links[NO_END] += 1
        elif source == target:
            report.links[TO_ITSELF] += 1
        else:
            ends.append((link, source, target))
    known = _related(relationships, caller, sorted({s for _, s, _ in ends}))
    for link, source, target in ends:
        key = (frozenset((source, target)), link.relation_type, link.observation or "")
        if key in known:
            report.links[PRESENT] += 1
            continue
        known.add(key)  # a link the source repeats is made once
        if report.dry_run:
            report.links[WOULD_CREATE] += 1
            continue
        try:
            relationships.create(caller, RelationshipDraft([source, target], link.relation_type, link.observation))
        except ValidationFailed as problem:
            report.links[f"not imported: {problem.message}"] += 1
            report.skipped.append((link.where or f"link {link.source_key} -> {link.target_key}", problem.message))
        else:
            report.links[CREATED] += 1


def _related(relationships: RelationshipService, caller: Caller, memory_ids: list[str]) -> set[Key]:
    """The relationships these memories have now, by members, type and observation."""
    known: set[Key] = set()
    for at in range(0, len(memory_ids), CHUNK):
        for rels in relationships.links(caller, memory_ids[at : at + CHUNK]).values():
            known.update((frozenset(r.memory_ids), r.relationship_type, r.observation) for r in rels)
    return known
