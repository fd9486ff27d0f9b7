"""Relationships between a user's memories: create, read, change, delete (docs/relationships.md).

Tenancy and trust as for memories: every member must be one of the caller's own
memories within its trust level and out of the trash, and a relationship with a
member the caller cannot see is, to that caller, a relationship that does not
exist (the store applies the rule in SQL on every read).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, to_text, utc_now
from remember.errors import FieldError, NotFound, ValidationFailed, excerpt
from remember.jsontypes import JsonObject
from remember.models import HistoryEntry, Relationship, RelationshipChange
from remember.search import text
from remember.service import checks, visibility
from remember.service.indexer import Indexer
from remember.store import Store

MIN_MEMBERS, MAX_MEMBERS = 2, 20
MAX_RELATIONSHIP_TYPE = 100
MAX_OBSERVATION = 10_000
DEFAULT_STRENGTH, DEFAULT_CONFIDENCE = 0.5, 0.8
EDITABLE = (
    "memory_ids", "relationship_type", "observation", "strength", "confidence", "tags", "valid_from", "valid_until",
)  # fmt: skip


@dataclass(frozen=True)
class RelationshipDraft:
    """A new relationship as the edges describe it; every value is checked by the service."""

    memory_ids: Any
    relationship_type: Any
    observation: Any = None
    strength: Any = None
    confidence: Any = None
    tags: Any = None
    valid_from: Any = None  # when it became true (default: when it is stored)
    valid_until: Any = None  # when it stopped being true (default: none, still true)


def unknown(relationship_id: str) -> NotFound:
    return NotFound(
        f"No relationship with id {excerpt(relationship_id)}. Find ids with remember_search_relationships "
        "or in a memory's relationships."
    )


class RelationshipService:
    def __init__(self, store: Store, indexer: Indexer, clock: Clock = utc_now) -> None:
        self.store = store
        self.indexer = indexer
        self.clock = clock

    def create(self, caller: Caller, draft: RelationshipDraft) -> Relationship:
        values = self._checked(caller, _given(draft), partial=False)
        now = self.clock()
        rel = Relationship(
            id=str(uuid.uuid4()), user_id=caller.user, memory_ids=values["memory_ids"],
            relationship_type=values["relationship_type"], observation=values.get("observation") or "",
            strength=values.get("strength", DEFAULT_STRENGTH), confidence=values.get("confidence", DEFAULT_CONFIDENCE),
            created_at=now, updated_at=now, tags=values.get("tags", ()),
            valid_from=values.get("valid_from") or self._members_since(caller, values["memory_ids"]),
            valid_until=values.get("valid_until"),
        )  # fmt: skip
        _check_span(rel)
        terms, vector = self.index_of(rel)
        self.store.relationships.insert(rel, terms, vector)
        return rel

    def get(self, caller: Caller, relationship_id: str) -> Relationship:
        rid = _id(relationship_id)
        found = self.store.relationships.get(caller.user, rid, trust=caller.trust)
        if found is None:
            raise unknown(rid)
        return found

    def history(self, caller: Caller, relationship_id: str) -> list[HistoryEntry]:
        rel = self.get(caller, relationship_id)
        return self.store.relationships.history(caller.user, rel.id)

    def update(
        self,
        caller: Caller,
        relationship_id: str,
        changes: JsonObject,
        *,
        reason: str | None = None,
        clear: Collection[str] = (),
    ) -> Relationship:
        """Set the given fields (None means "leave it") and empty those of ``clear`` (``valid_until``: true
        again); the version moves on and history keeps the old values."""
        current = self.get(caller, relationship_id)
        why = checks.reason(reason)
        emptied = _cleared(clear, changes)
        values = self._checked(caller, {k: v for k, v in changes.items() if v is not None}, partial=True)
        changed = {k: v for k, v in {**values, **emptied}.items() if getattr(current, k) != v}
        if not changed:
            return current
        now = self.clock()
        after = replace(current, **changed, version=current.version + 1, updated_at=now)
        _check_span(after)
        previous = {k: _public(getattr(current, k)) for k in changed}
        history = HistoryEntry(
            current.id, caller.user, current.version, "update", previous, why, now, actor=caller.actor
        )
        reindex = "observation" in changed or "relationship_type" in changed
        terms, vector = self.index_of(after) if reindex else (None, None)
        self.store.relationships.replace(RelationshipChange(after, current.version, history), terms, vector)
        return after

    def delete(self, caller: Caller, relationship_id: str) -> Relationship:
        """Delete a relationship for good; its memories stay as they are."""
        rel = self.get(caller, relationship_id)
        if not self.store.relationships.delete(caller.user, rel.id):
            raise unknown(rel.id)
        return rel

    def links(self, caller: Caller, memory_ids: Sequence[str]) -> dict[str, list[Relationship]]:
        """The relationships the caller can see of each of these memories."""
        if not memory_ids:
            return {}
        return self.store.relationships.links_of(caller.user, memory_ids, trust=caller.trust)

    def held_by(self, caller: Caller, memory_id: str) -> int:
        """How many relationships the caller can see hold this memory, counting it even in the trash."""
        return self.store.relationships.held_by(caller.user, memory_id, trust=caller.trust)

    def index_of(self, rel: Relationship) -> tuple[list[tuple[str, int]], bytes | None]:
        return index_entries(self.indexer, [rel])[0]

    def _checked(self, caller: Caller, given: Mapping[str, Any], *, partial: bool) -> dict[str, Any]:
        errors: list[FieldError] = []
        out: dict[str, Any] = {}
        if "memory_ids" in given or not partial:
            out["memory_ids"] = _member_ids(given.get("memory_ids"), errors)
        if "relationship_type" in given or not partial:
            out["relationship_type"] = checks.one_line(
                given.get("relationship_type"), "relationship_type", errors, limit=MAX_RELATIONSHIP_TYPE
            )
        if "observation" in given:
            out["observation"] = checks.text(given["observation"], "observation", errors, limit=MAX_OBSERVATION)
        for name in ("strength", "confidence"):
            if name in given:
                out[name] = checks.unit(given[name], name, errors)
        if "tags" in given:
            out["tags"] = checks.tags(given["tags"], errors)
        if given.get("valid_from") is not None:
            out["valid_from"] = checks.instant(given["valid_from"], "valid_from", errors)
        if given.get("valid_until") is not None:
            out["valid_until"] = checks.instant(given["valid_until"], "valid_until", errors)
        if errors:
            raise ValidationFailed("The relationship cannot be stored.", errors)
        if out.get("memory_ids"):
            self._members_reachable(caller, out["memory_ids"])
        return out

    def _members_since(self, caller: Caller, memory_ids: Sequence[str]) -> datetime:
        """When a link between these memories is true from by default: when the last of them became true."""
        return max(m.starts for m in self.store.memories.get_many(caller.user, memory_ids))

    def _members_reachable(self, caller: Caller, memory_ids: Sequence[str]) -> None:
        """Every member is one of the caller's memories, within its trust and out of the trash."""
        found = {
            m.id: m for m in visibility.only_reachable(caller, self.store.memories.get_many(caller.user, memory_ids))
        }
        for memory_id in memory_ids:
            memory = found.get(memory_id)
            if memory is None:
                raise visibility.unknown(memory_id)
            if memory.is_deleted:
                raise ValidationFailed.single(
                    "memory_ids", "deleted", f"Memory {excerpt(memory_id)} is in the trash; restore it first.",
                    memory_id,
                )  # fmt: skip


def index_entries(indexer: Indexer, rels: Sequence[Relationship]) -> list[tuple[list[tuple[str, int]], bytes | None]]:
    """The keyword terms and vector of each relationship's observation (of its type when it has none)."""
    vectors = indexer.vectors([r.observation or r.relationship_type.replace("_", " ") for r in rels])
    return [(text.observation_terms(r.observation, r.relationship_type), v) for r, v in zip(rels, vectors, strict=True)]


def _given(draft: RelationshipDraft) -> dict[str, Any]:
    values = {
        "memory_ids": draft.memory_ids, "relationship_type": draft.relationship_type,
        "observation": draft.observation, "strength": draft.strength, "confidence": draft.confidence,
        "tags": draft.tags, "valid_from": draft.valid_from, "valid_until": draft.valid_until,
    }  # fmt: skip
    return {k: v for k, v in values.items() if v is not None or k in ("memory_ids", "relationship_type")}


CLEARABLE = ("valid_until",)


def _cleared(clear: Any, changes: JsonObject) -> dict[str, None]:
    """The fields ``clear`` empties, checked: only ``CLEARABLE`` ones, and none also given a value."""
    if not isinstance(clear, list | tuple | set | frozenset) or not all(isinstance(c, str) for c in clear):
        raise ValidationFailed.single("clear_fields", "type", "clear_fields must be a list of field names.", clear)
    unknown = sorted(c for c in clear if c not in CLEARABLE)
    if unknown:
        raise ValidationFailed.single(
            "clear_fields", "invalid",
            f"clear_fields: {', '.join(unknown)} cannot be emptied; a relationship's clearable field is valid_until.",
            unknown,
        )  # fmt: skip
    both = sorted(c for c in clear if changes.get(c) is not None)
    if both:
        raise ValidationFailed.single(
            "clear_fields", "conflict", f"{', '.join(both)}: give a value or clear it, not both. Nothing was changed."
        )
    return dict.fromkeys(clear)


def _member_ids(value: Any, errors: list[FieldError]) -> tuple[str, ...] | None:
    ok = isinstance(value, list | tuple) and MIN_MEMBERS <= len(value) <= MAX_MEMBERS
    if not ok:
        errors.append(
            FieldError(
                "memory_ids", "type", f"memory_ids must be a list of {MIN_MEMBERS} to {MAX_MEMBERS} memory ids.",
                excerpt(value),
            )
        )  # fmt: skip
        return None
    ids = [member_id(v, f"memory_ids[{i}]", errors) for i, v in enumerate(value)]
    clean = tuple(i for i in ids if i is not None)
    if len(set(clean)) < len(clean):
        errors.append(FieldError("memory_ids", "duplicate", "Each memory may be a member only once.", None))
    return clean if len(clean) == len(ids) else None


def member_id(value: Any, name: str, errors: list[FieldError]) -> str | None:
    """A memory id given as ``name``: checked as ids are, and without NUL characters (no backend stores one)."""
    if isinstance(value, str) and "\x00" in value:
        errors.append(FieldError(name, "invalid", f"{name} must not contain NUL characters.", excerpt(value)))
        return None
    return checks.identifier(value, name, errors)


def _id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > checks.MAX_ID or "\x00" in value:
        raise ValidationFailed.single(
            "relationship_id", "invalid", f"relationship_id must be an id of 1 to {checks.MAX_ID} characters.",
            excerpt(value),
        )  # fmt: skip
    return value.strip()


def _public(value: Any) -> Any:
    if isinstance(value, datetime):
        return to_text(value)
    return list(value) if isinstance(value, tuple) else value


def _check_span(rel: Relationship) -> None:
    """A relationship ends after it begins."""
    start = rel.valid_from or rel.created_at
    if rel.valid_until is not None and rel.valid_until <= start:
        raise ValidationFailed.single(
            "valid_until",
            "before_valid_from",
            f"valid_until ({to_text(rel.valid_until)}) must be after valid_from ({to_text(start)}): a relationship "
            "ends after it begins. Nothing was changed.",
            to_text(rel.valid_until),
        )
