"""Relationships as the edges answer with them, and a memory's links as memory results carry them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ConfigDict

from remember.clock import to_text
from remember.models import Relationship
from remember.schemas import Out, detail
from remember.service.related import Related, RelationshipResults
from remember.space_keys import is_space_key


class RelationshipOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("version", "created_at", "updated_at"))

    id: str
    memory_ids: list[str]
    relationship_type: str
    observation: str
    strength: float
    confidence: float
    tags: list[str]
    version: int
    created_at: str
    updated_at: str
    valid_from: str
    valid_until: str | None = None

    @classmethod
    def of(cls, rel: Relationship) -> RelationshipOut:
        return cls.model_validate(public(rel))


class RelationshipUpdateOut(Out):
    """The new version (the relationship's fields: remember_search_relationships or a memory's links), and
    its end (none: still true)."""

    id: str
    version: int
    updated_at: str
    valid_until: str | None = None

    @classmethod
    def of(cls, rel: Relationship) -> RelationshipUpdateOut:
        data = rel.as_dict()
        return cls(id=rel.id, version=rel.version, updated_at=data["updated_at"], valid_until=data["valid_until"])


class RelationshipHitOut(RelationshipOut):
    score: float | None  # none when listing without a query
    space: str | None = None  # a shared space's key (a personal relationship names none)


class RelationshipSearchOut(Out):
    results: list[RelationshipHitOut]
    total: int | None
    offset: int
    has_more: bool
    next_offset: int | None

    @classmethod
    def of(cls, found: RelationshipResults) -> RelationshipSearchOut:
        return cls(
            results=[
                RelationshipHitOut(**public(h.relationship), score=h.score, space=space_of(h.relationship))
                for h in found.hits
            ],
            total=found.total,
            offset=found.offset,
            has_more=found.has_more,
            next_offset=found.offset + len(found.hits) if found.has_more else None,
        )  # fmt: skip


class RelatedOut(Out):
    memory_id: str
    title: str | None
    type: str
    content: str
    depth: int
    path: list[dict[str, str]]

    @classmethod
    def of(cls, found: Related) -> RelatedOut:
        m = found.memory
        steps = [{"relationship_id": s.relationship_id, "type": s.relationship_type, "to": s.memory_id}
                 for s in found.path]  # fmt: skip
        return cls(memory_id=m.id, title=m.title, type=m.type, content=m.content, depth=found.depth, path=steps)


class RelatedPageOut(Out):
    related: list[RelatedOut]


class RelationshipDeletionOut(Out):
    relationship_id: str
    message: str


def public(rel: Relationship) -> dict[str, Any]:
    """A relationship as results carry it, with its span: true from ``valid_from`` until ``valid_until``
    (none: still true)."""
    return rel.as_dict()


def space_of(rel: Relationship) -> str | None:
    """The key of the shared space the relationship is in (None: a personal one)."""
    return rel.user_id if is_space_key(rel.user_id) else None


def links(memory_id: str, rels: Sequence[Relationship]) -> list[dict[str, Any]]:
    """A memory's relationships as memory results carry them: the other members, not the memory itself; one that
    ended says when."""
    return [
        {
            "id": r.id,
            "type": r.relationship_type,
            "observation": r.observation,
            "others": [m for m in r.memory_ids if m != memory_id],
            "strength": r.strength,
            **({"valid_until": to_text(r.valid_until)} if r.valid_until is not None else {}),
        }
        for r in rels
    ]
