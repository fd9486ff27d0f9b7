"""The relationships' endpoint: ``POST /api/relationships`` links memories, as
``remember_create_relationship`` does (the same draft and service: every member must be one of
the caller's memories within its trust level, or the answer is "not found" and nothing is stored). It
goes to the space that holds its first member, where the caller must be a writer, and its other members
must be memories of that space.
"""

from __future__ import annotations

from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.schemas.relationships import RelationshipOut
from remember.service.relationships import RelationshipDraft
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

KEYS = ("memory_ids", "relationship_type", "observation", "strength", "confidence", "tags")


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {"/api/relationships": {"POST": create}})


def create(call: Call) -> RelationshipOut:
    """``{"memory_ids": [two or more], "relationship_type", "observation"?, "strength"?, "confidence"?, "tags"?}``."""
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in KEYS)
    if unknown:
        raise ValidationFailed.single(
            unknown[0], "unknown_field", f"{', '.join(unknown)}: not a relationship field; fields: {', '.join(KEYS)}."
        )
    draft = RelationshipDraft(**{key: body.get(key) for key in KEYS})
    ids = draft.memory_ids
    first = ids[0] if isinstance(ids, list) and ids and isinstance(ids[0], str) else ""
    # It goes to the space of its first member, where the caller must write; the others must be in it too.
    return RelationshipOut.of(call.services.relationships.create(call.on_memory(first, "writer"), draft))
