"""Parameters more than one tool takes, described once (or not at all where the name says it all: the tool
list is read into every conversation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.caller import Caller
from remember.mcp.state import caller_of, services_of
from remember.models import Memory
from remember.preferences import defaults
from remember.schemas.relationships import links
from remember.service import validity

MemoryId = str
Offset = int  # how many to skip
TemplateId = Annotated[str, Field(description="e.g. 'builtin:book_review'.")]
Reason = Annotated[str | None, Field(description="Why (kept in history).")]
Filters = Annotated[
    dict[str, Any] | None,
    Field(
        description='e.g. {"weight": {"gte": 0.8}}: memory fields, structured_content.<path>, relationship_count; '
        "eq ne gt gte lt lte in nin contains exists; and/or/not."
    ),
]
# The filter language once, in remember_list_memories; the other tools that take it point there.
FiltersAsInList = Annotated[dict[str, Any] | None, Field(description="As in remember_list_memories.")]
Alpha = Annotated[float | None, Field(description="1 = by meaning, 0 = by keywords (default: auto).")]
AlphaAsInSearch = Annotated[float | None, Field(description="As in remember_search_memory.")]
MinScoreAsInSearch = Annotated[float | None, Field(description="As in remember_search_memory.")]
Links = bool  # with each one's relationships
AsOf = Annotated[str | None, Field(description="True at this date.")]
Superseded = Annotated[bool, Field(description="Ended ones too.")]
Space = Annotated[str | None, Field(description="A shared space's name or key (default: personal).")]
Spaces = Annotated[list[str] | None, Field(description="Spaces to read (default: all yours).")]


def when(as_of: str | None, include_superseded: bool) -> validity.When:
    return validity.when(as_of, include_superseded)


MinScore = Annotated[
    float | None,
    Field(description=f"Cosine floor if no keyword matched (default {defaults()['search.min_score']:g})."),
]


def memory_links(
    ctx: Context, memory_ids: Sequence[str], acting: Caller | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The relationships of these memories (of the space ``acting`` acts in), as memory results carry them."""
    found = services_of(ctx).relationships.links(acting or caller_of(ctx), memory_ids)
    return {memory_id: links(memory_id, rels) for memory_id, rels in found.items()}


def links_in_spaces(
    ctx: Context, callers: Sequence[Caller], memories: Sequence[Memory]
) -> dict[str, list[dict[str, Any]]]:
    """The relationships of memories read from several spaces, each from the space (of ``callers``) it is in."""
    out: dict[str, list[dict[str, Any]]] = {}
    for acting in callers:
        ids = [m.id for m in memories if m.user_id == acting.user]
        if ids:
            out.update(memory_links(ctx, ids, acting))
    return out
