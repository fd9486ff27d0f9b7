"""MCP tools for relationships between memories: create, update, delete, search, and walk."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.mcp.state import member_of, services_of
from remember.mcp.tools.hints import READS, WRITES, Tools, hints
from remember.mcp.tools.params import (
    AlphaAsInSearch,
    AsOf,
    MemoryId,
    MinScoreAsInSearch,
    Offset,
    Reason,
    Spaces,
    when,
)
from remember.schemas.relationships import (
    RelatedOut,
    RelatedPageOut,
    RelationshipDeletionOut,
    RelationshipOut,
    RelationshipSearchOut,
    RelationshipUpdateOut,
)
from remember.service import space_reads
from remember.service.related import Criteria
from remember.service.relationships import RelationshipDraft

RelationshipId = str
Members = Annotated[list[str], Field(description="2 to 20 memory ids.")]
Kind = Annotated[str, Field(description="e.g. works_with, inspired_by.")]
Observation = Annotated[str | None, Field(description="What links them (searched).")]
Strength = Annotated[float | None, Field(description="0 to 1 (default 0.5).")]
Confidence = Annotated[float | None, Field(description="0 to 1 (default 0.8).")]
Tags = Annotated[list[str] | None, Field(description="Labels.")]
Types = Annotated[list[str] | None, Field(description="Only these types.")]
MinStrength = Annotated[float, Field(description="0 to 1.")]
MembersSpace = Annotated[str | None, Field(description="Default: their memories' space.")]


def remember_create_relationship(
    ctx: Context,
    memory_ids: Members,
    relationship_type: Kind,
    observation: Observation = None,
    strength: Strength = None,
    confidence: Confidence = None,
    tags: Tags = None,
    valid_from: Annotated[str | None, Field(description="True from (default: when its members are).")] = None,
    valid_until: Annotated[str | None, Field(description="When it ends.")] = None,
    space: MembersSpace = None,
) -> RelationshipOut:
    """Link two or more of the user's memories (all in one space): how they relate and what was observed.

    Example: {"memory_ids": ["0b6f...", "7c21..."], "relationship_type": "manages",
    "observation": "Sarah leads Tom's team"}
    """
    draft = RelationshipDraft(
        memory_ids, relationship_type, observation, strength, confidence, tags, valid_from, valid_until
    )
    services, caller = services_of(ctx), member_of(ctx)
    if space is not None:
        acting = services.spaces.writing(caller, space)
    else:
        acting = services.spaces.on_memories(caller, memory_ids)
    return RelationshipOut.of(services.relationships.create(acting, draft))


def remember_update_relationship(
    ctx: Context,
    relationship_id: RelationshipId,
    memory_ids: list[str] | None = None,
    relationship_type: str | None = None,
    observation: str | None = None,
    strength: float | None = None,
    confidence: float | None = None,
    tags: list[str] | None = None,
    reason: Reason = None,
    valid_until: Annotated[str | None, Field(description="Ends it; kept.")] = None,
    clear_fields: Annotated[list[Literal["valid_until"]] | None, Field(description="Fields to empty.")] = None,
) -> RelationshipUpdateOut:
    """Change some fields of a relationship (what is given replaces them, as in
    remember_create_relationship); old values stay in its history.

    Example: {"relationship_id": "5d1e...", "strength": 0.9, "reason": "Confirmed"}
    """
    changes = {
        "memory_ids": memory_ids, "relationship_type": relationship_type, "observation": observation,
        "strength": strength, "confidence": confidence, "tags": tags, "valid_until": valid_until,
    }  # fmt: skip
    services = services_of(ctx)
    caller = services.spaces.on_relationship(member_of(ctx), relationship_id, need="writer")
    if memory_ids is not None:
        services.spaces.relinking(caller, relationship_id, memory_ids)
    after = services.relationships.update(caller, relationship_id, changes, reason=reason, clear=clear_fields or ())
    return RelationshipUpdateOut.of(after)


def remember_delete_relationship(ctx: Context, relationship_id: RelationshipId) -> RelationshipDeletionOut:
    """Delete a relationship for good; its memories stay."""
    services = services_of(ctx)
    caller = services.spaces.on_relationship(member_of(ctx), relationship_id, need="writer")
    gone = services.relationships.delete(caller, relationship_id)
    return RelationshipDeletionOut(relationship_id=gone.id, message="Deleted; its memories are unchanged.")


def remember_search_relationships(
    ctx: Context,
    query: Annotated[str | None, Field(description="Matched with observations (none: newest first).")] = None,
    alpha: AlphaAsInSearch = None,
    types: Types = None,
    memory_id: Annotated[str | None, Field(description="Of this memory.")] = None,
    min_strength: MinStrength = 0.0,
    min_confidence: Annotated[float, Field(description="0 to 1.")] = 0.0,
    tags: Annotated[list[str] | None, Field(description="Any of these tags.")] = None,
    created_after: Annotated[str | None, Field(description="ISO 8601, inclusive.")] = None,
    created_before: Annotated[str | None, Field(description="ISO 8601, exclusive.")] = None,
    limit: Annotated[int, Field(description="1 to 100.")] = 10,
    offset: Offset = 0,
    min_score: MinScoreAsInSearch = None,
    spaces: Spaces = None,
) -> RelationshipSearchOut:
    """Find relationships by what was observed, by type, member, strength, tags or date.

    Example: {"query": "mentoring", "types": ["mentors"], "min_strength": 0.5}
    """
    criteria = Criteria(types, memory_id, min_strength, min_confidence, tags, created_after, created_before)
    services, caller = services_of(ctx), member_of(ctx)
    callers = services.spaces.reading_from(caller, memory_id, spaces)
    found = space_reads.relationships(
        services.related, callers, query, alpha=alpha, criteria=criteria, limit=limit, offset=offset,
        min_score=min_score,
    )  # fmt: skip
    return RelationshipSearchOut.of(found)


def remember_get_related(
    ctx: Context,
    memory_id: MemoryId,
    depth: Annotated[int, Field(description="Hops, 1 to 3.")] = 1,
    types: Types = None,
    min_strength: MinStrength = 0.0,
    as_of: AsOf = None,
) -> RelatedPageOut:
    """The memories linked to one, up to `depth` relationships away, each with its path.

    Example: {"memory_id": "0b6f...", "depth": 2, "types": ["works_with"]}
    """
    services = services_of(ctx)
    acting = services.spaces.on_memory(member_of(ctx), memory_id)
    found = services.related.related(
        acting, memory_id, depth=depth, types=types, min_strength=min_strength, when=when(as_of, False)
    )
    return RelatedPageOut(related=[RelatedOut.of(r) for r in found])


TOOLS: Tools = [
    (remember_create_relationship, WRITES),
    (remember_update_relationship, WRITES),
    (remember_delete_relationship, hints(read_only=False, destructive=True, idempotent=True)),
    (remember_search_relationships, READS),
    (remember_get_related, READS),
]
