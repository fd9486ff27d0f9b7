"""Moving and copying a memory into another space (docs/spaces.md#moving-and-copying-a-memory).

A move keeps the memory, its id and its history, and records itself there (``move``: the space it came from
in ``previous``, where it went in ``reason``, who moved it in ``by``); it needs a writer's role in both spaces
(the owner's, for a personal memory), and is refused while the memory belongs to a relationship or to a
chain of memories superseding one another, which live in one space. A copy is a new memory in the target
with the same content, fields and tags, whose first history entry (``copy``) names the source. Either way
a templated memory's template must be usable in the target: a built-in one, or the target's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from remember.caller import FULL, Caller
from remember.clock import Clock, to_text, utc_now
from remember.errors import AccessDenied, Conflict, NotFound, ValidationFailed, excerpt
from remember.models import HistoryEntry, IndexEntry, Memory
from remember.service import checks, visibility
from remember.service.drafts import MemoryDraft
from remember.service.memories import MemoryService, Stored
from remember.service.spaces import PERSONAL, SpaceService
from remember.space_keys import Role
from remember.store import Store


@dataclasses.dataclass(frozen=True)
class Where:
    """A memory, the caller acting in its space, and that space's name as its user reads it."""

    memory: Memory
    acting: Caller
    name: str


class MoveService:
    def __init__(self, store: Store, spaces: SpaceService, memories: MemoryService, clock: Clock = utc_now) -> None:
        self.store = store
        self.spaces = spaces
        self.memories = memories
        self.clock = clock

    def move(self, caller: Caller, memory_id: Any, to_space: Any, *, reason: str | None = None) -> Memory:
        """Move the memory into ``to_space`` (a name, a key or ``personal``), its history kept; ``reason`` is
        added to the entry that records the move."""
        why = checks.reason(reason)
        source, target = self._source(caller, memory_id, "writer"), self._target(caller, to_space)
        memory = source.memory
        if target.user == memory.user_id:
            raise ValidationFailed.single(
                "space", "same", f"Memory {memory.id} is in space {source.name} already.", excerpt(to_space)
            )
        self._movable(source)
        self._template_usable(target, memory, to_space)
        if self.store.transfer.held_by_others(memory.user_id, "memories", [memory.id]):
            raise Conflict(
                f"Memory {memory.id} keeps its id when it moves, and that id is used elsewhere in this database: "
                "copy it instead (a copy gets an id of its own)."
            )
        now = self.clock()
        moved = dataclasses.replace(
            memory, user_id=target.user, created_by=_creator(source.acting, memory, target),
            version=memory.version + 1, updated_at=now,
        )  # fmt: skip
        entry = HistoryEntry(
            memory.id, target.user, memory.version, "move", {"space": _key(source.acting)},
            _said(f"moved from {source.name} to {self._name(target)}", why), now, actor=target.actor,
        )  # fmt: skip
        self.store.memories.move(
            memory.user_id, moved, expected_version=memory.version,
            history=[*self._history(source, target), entry], index=self._index(memory, moved, target),
        )  # fmt: skip
        return moved

    def copy(self, caller: Caller, memory_id: Any, to_space: Any) -> Stored:
        """A new memory in ``to_space`` with the memory's content, fields and tags; its history names the source."""
        source, target = self._source(caller, memory_id, "reader"), self._target(caller, to_space)
        memory = source.memory
        self._template_usable(target, memory, to_space)
        stored = self.memories.store_new(target, _draft(memory))
        made = stored.memory
        if stored.duplicate is None and made.version == 1 and not self.store.memories.history(target.user, made.id):
            entry = HistoryEntry(
                made.id, target.user, 0, "copy", {"space": _key(source.acting), "memory_id": memory.id},
                f"copied from memory {memory.id} in {source.name}", self.clock(), actor=target.actor,
            )  # fmt: skip
            self.store.memories.add_history(entry)
        return stored

    # inside

    def _history(self, source: Where, target: Caller) -> list[HistoryEntry]:
        """The memory's history as the target space keeps it; all of it, so the caller must see all of it (a
        token below an earlier version's trust would hand that version to the target's members)."""
        memory = source.memory
        found = self.store.memories.history(memory.user_id, memory.id)
        if len(visibility.visible_history(source.acting, memory, found)) < len(found):
            raise AccessDenied(
                f"The history of memory {memory.id} holds versions above this token's trust level: moving it "
                "would show them in the space it goes to. Move it with a token of higher trust, or copy it."
            )
        return [dataclasses.replace(h, user_id=target.user) for h in found]

    def _index(self, memory: Memory, moved: Memory, target: Caller) -> IndexEntry:
        """The moved memory's index entry, its vector reused (its text is the same)."""
        vector = self.store.index.get_vector(memory.user_id, memory.id)
        return self.memories.indexer.entry(moved, self.memories.fields_text(target, moved), vector=vector)

    def _source(self, caller: Caller, memory_id: Any, need: Role) -> Where:
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise ValidationFailed.single("memory_id", "required", "Give the id of the memory to move or copy.")
        acting = self.spaces.on_memory(caller, memory_id, need=need)
        memory = self.memories.get(acting, memory_id, record_access=False)
        if memory.is_deleted:
            raise ValidationFailed.single(
                "memory_id", "deleted", f"Memory {memory.id} is deleted; restore it first, then move or copy it."
            )
        return Where(memory, acting, self._name(acting))

    def _target(self, caller: Caller, to_space: Any) -> Caller:
        if not isinstance(to_space, str) or not to_space.strip():
            raise ValidationFailed.single(
                "space", "required", "Name the space to move or copy it to: its name, key, or personal."
            )
        return self.spaces.writing(caller, to_space)

    def _name(self, acting: Caller) -> str:
        return PERSONAL if acting.actor is None else self.spaces.name_of(acting.user) or acting.user

    def _movable(self, source: Where) -> None:
        memory, acting = source.memory, source.acting
        links = self.store.relationships.links_of
        if links(acting.user, [memory.id], trust=FULL).get(memory.id):
            seen = ", ".join(r.id for r in links(acting.user, [memory.id], trust=acting.trust).get(memory.id, []))
            why = f"belongs to relationships ({seen}), which stay in {source.name}: delete them first, or copy"
            raise ValidationFailed.single(
                "memory_id", "linked",
                f"Memory {memory.id} {why if seen else 'is linked to other memories of its space: copy'} the memory "
                "instead.",
            )  # fmt: skip
        chain = [*memory.supersedes, *([memory.superseded_by] if memory.superseded_by else [])]
        if chain:
            raise ValidationFailed.single(
                "memory_id", "superseding",
                f"Memory {memory.id} supersedes or is superseded by {', '.join(chain)} in {source.name}: a chain "
                "of versions stays together. Copy it instead.",
            )  # fmt: skip

    def _template_usable(self, target: Caller, memory: Memory, to_space: Any) -> None:
        if memory.template_id is None:
            return
        try:
            self.memories.templates.view_of(target).require(memory.template_id)
        except NotFound:
            raise ValidationFailed.single(
                "space", "template",
                f"Memory {memory.id} uses template {memory.template_id}, which space {excerpt(to_space)} does not "
                "have: a memory uses the built-in templates and its own space's (an admin there copies one in with "
                "remember_copy_template).",
            ) from None  # fmt: skip


def _said(what: str, why: str | None) -> str:
    return f"{what}: {why}" if why else what


def _key(acting: Caller) -> str:
    return PERSONAL if acting.actor is None else acting.user


def _creator(source: Caller, memory: Memory, target: Caller) -> str | None:
    """Who stored it, as the target space records it: nobody in a personal space, else the member."""
    if target.actor is None:
        return None
    return memory.created_by or source.person


def _draft(memory: Memory) -> MemoryDraft:
    return MemoryDraft(
        content=memory.content, title=memory.title, type=memory.type, weight=memory.weight, trust=memory.trust,
        tags=memory.tags, references=memory.references,
        context={**memory.context, "timestamp": to_text(memory.occurred_at)},
        location=memory.location, template_id=memory.template_id, structured_content=memory.structured_content,
        valid_from=to_text(memory.starts), valid_until=to_text(memory.valid_until) if memory.valid_until else None,
    )  # fmt: skip
