"""Merging two duplicates: one memory is kept, the other folded into it and moved to the trash.

The kept memory takes the other's tags and references (a union, in order), its weight when higher and its
title when it has none; a new version records the merge in its history (action ``merge``, the values it
replaced, and which memory was merged in), even when nothing else changed. Each relationship the caller can
see that holds the other memory holds the kept one instead (its own history says so); one that held both, and
would be left with fewer than two members, is deleted. The other memory then goes to the trash, restorable.

Both memories are checked first (the caller's own, within its trust level, out of the trash, two different
ones, unchanged since read when versions are given), so a refused merge changes nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import Conflict, ValidationFailed, excerpt
from remember.memory_fields import INDEXED
from remember.models import HistoryEntry, Memory
from remember.service import checks, dedup
from remember.service.memories import MemoryService
from remember.service.relationships import RelationshipService
from remember.store import Store


@dataclass(frozen=True)
class Twin:
    """A memory a stored one may duplicate, as dedup on write would find it."""

    memory: Memory
    match: dedup.Match
    similarity: float


@dataclass(frozen=True)
class Merged:
    """The kept memory as merged, the memory moved to the trash, and what happened to the relationships."""

    kept: Memory
    trashed: str
    moved: tuple[str, ...]  # relationships that now hold the kept memory instead
    dropped: tuple[str, ...]  # relationships deleted: they linked the two and nothing else

    def as_dict(self) -> dict[str, Any]:
        return {"kept": self.kept.id, "version": self.kept.version, "trashed": self.trashed,
                "relationships_moved": list(self.moved), "relationships_dropped": list(self.dropped)}  # fmt: skip


class MergeService:
    def __init__(
        self, store: Store, memories: MemoryService, relationships: RelationshipService, clock: Clock = utc_now
    ) -> None:
        self.store = store
        self.memories = memories
        self.relationships = relationships
        self.clock = clock

    def twins(self, caller: Caller, memory_id: str) -> list[Twin]:
        """The live memories this one may duplicate (the same text, or a similar one), closest first."""
        memory = self.memories.get(caller, memory_id, record_access=False)
        if memory.is_deleted:
            return []
        cosine = self.memories.indexer.scale.passages.own(dedup.COSINE)
        return [Twin(f.memory, f.match, f.similarity) for f in dedup.twins_of(self.store, caller, memory, cosine)]

    def merge(
        self, caller: Caller, keep_id: str, other_id: str, *, versions: tuple[int, int] | None = None,
        reason: str | None = None,
    ) -> Merged:  # fmt: skip
        """Fold ``other_id`` into ``keep_id`` and move it to the trash (see the module's docstring)."""
        why = checks.reason(reason)
        keep = self.memories.get(caller, keep_id, record_access=False)
        other = self.memories.get(caller, other_id, record_access=False)
        _check(keep, other, versions)
        held = self.relationships.links(caller, [other.id]).get(other.id, [])
        kept = self._fold(caller, keep, other, why)
        moved, dropped = [], []
        note = f"merged {other.id} into {keep.id}"
        for rel in held:
            members = [keep.id if m == other.id else m for m in rel.memory_ids]
            members = list(dict.fromkeys(members))
            if len(members) < 2:
                self.relationships.delete(caller, rel.id)
                dropped.append(rel.id)
                continue
            self.relationships.update(caller, rel.id, {"memory_ids": members}, reason=note)
            moved.append(rel.id)
        self.memories.delete(caller, other.id, reason=why or f"merged into memory {keep.id}")
        return Merged(kept, other.id, tuple(sorted(moved)), tuple(sorted(dropped)))

    def _fold(self, caller: Caller, keep: Memory, other: Memory, why: str | None) -> Memory:
        """The kept memory with the other's tags, references, weight and title, as a new ``merge`` version."""
        changes: dict[str, Any] = {}
        for name in ("tags", "references"):
            union = tuple(dict.fromkeys((*getattr(keep, name), *getattr(other, name))))
            if union != getattr(keep, name):
                changes[name] = union
        if other.weight > keep.weight:
            changes["weight"] = other.weight
        if other.title and not keep.title:
            changes["title"] = other.title
        now = self.clock()
        merged = dataclasses.replace(keep, **changes, updated_at=now, version=keep.version + 1)
        previous = {k: list(v) if isinstance(v, tuple) else v for k, v in ((k, getattr(keep, k)) for k in changes)}
        said = why or f"merged memory {other.id} ({excerpt(other.title or other.content)}) into this one"
        entry = HistoryEntry(keep.id, caller.user, keep.version, "merge", previous, said, now, actor=caller.actor)
        index = None
        if set(changes) & INDEXED:
            vector = None if "title" in changes else self.store.index.get_vector(caller.user, keep.id)
            index = self.memories.indexer.entry(merged, self.memories.fields_text(caller, merged), vector=vector)
        self.store.memories.replace(merged, expected_version=keep.version, history=entry, index=index)
        return merged


def _check(keep: Memory, other: Memory, versions: tuple[int, int] | None) -> None:
    if keep.id == other.id:
        raise ValidationFailed.single("merge", "same", "Choose two different memories: one to keep, one to merge in.")
    for name, memory in (("keep", keep), ("merge", other)):
        if memory.is_deleted:
            raise ValidationFailed.single(
                name, "deleted", f"Memory {memory.id} is in the trash; restore it first, then merge.", memory.id
            )
    if versions is not None:
        for memory, version in zip((keep, other), versions, strict=True):
            if memory.version != version:
                raise Conflict(
                    f"Memory {memory.id} was changed since you read it (now version {memory.version}, you saw "
                    f"version {version}); reload the page and merge again."
                )
