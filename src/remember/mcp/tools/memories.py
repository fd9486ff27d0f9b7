"""MCP tools for memories: create, get, update, delete, restore, list."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, Resolve
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from remember import preferences as known
from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.mcp import elicit
from remember.mcp.state import member_of, services_of
from remember.mcp.tools.hints import READS, WRITES, Tools, hints
from remember.mcp.tools.params import (
    AsOf,
    Filters,
    Links,
    MemoryId,
    Offset,
    Reason,
    Space,
    Spaces,
    Superseded,
    memory_links,
    when,
)
from remember.schemas.memories import (
    CreatedMemoryOut,
    DeletionOut,
    HistoryOut,
    MemoryDetailOut,
    MemoryPageOut,
    RestoredOut,
    WrittenMemoryOut,
    public,
)
from remember.schemas.suggestions import SuggestionOut
from remember.service import space_reads
from remember.service.drafts import MemoryDraft, MemoryPatch
from remember.service.memories import Stored


class ContextIn(BaseModel):
    """Its source and time."""

    model_config = ConfigDict(extra="forbid")
    conversation_id: str | None = Field(default=None, description="Its conversation.")
    summary: str | None = Field(default=None, description="A summary.")
    participants: list[str] | None = Field(default=None, description="Who took part.")
    source: str | None = Field(default=None, description="e.g. 'chat'.")
    timestamp: str | None = Field(None, description="When it happened (ISO 8601; default now).")


class LocationIn(BaseModel):
    """Where."""

    model_config = ConfigDict(extra="forbid")
    lat: float | None = Field(default=None, description="-90 to 90.")
    lon: float | None = Field(default=None, description="-180 to 180.")
    address: str | None = Field(default=None, description="Address or place.")


Content = Annotated[
    str | dict[str, Any] | None,
    Field(description="The text; with a template_id, its fields as an object."),
]
Title = Annotated[str | None, Field(description="A short title.")]
MemType = Annotated[str | None, Field(description="note, person, meeting, book, fact, ...")]
Weight = Annotated[float | None, Field(description="Significance, 0 to 1 (default 0.5).")]
Trust = Annotated[float | None, Field(description="Trust needed to read it, 0 to 1 (default 0.5).")]
Tags = Annotated[list[str] | None, Field(description="Labels (case ignored).")]
References = Annotated[list[str] | None, Field(description="Related http(s) URLs.")]
TemplateId = Annotated[str | None, Field(description="The template it follows.")]
Structured = Annotated[dict[str, Any] | None, Field(description="The template's fields (or as content).")]
# Checked against ContextIn and LocationIn (unknown keys refused); described in a line each rather than
# as nested schemas, which would take a tenth of the tool list in create and update alone.
MemoryContext = Annotated[
    ContextIn | None,
    WithJsonSchema({"type": "object", "description": "conversation_id, summary, participants [..], source, "
                    "timestamp (when it happened, ISO 8601; default now)."}),
]  # fmt: skip
Location = Annotated[
    LocationIn | None,
    WithJsonSchema({"type": "object", "description": "lat (-90 to 90), lon (-180 to 180), address."}),
]
Clearable = Literal["title", "location", "template_id", "structured_content", "valid_until"]


def remember_create_memory(
    ctx: Context,
    answers: Annotated[ElicitationResult[BaseModel], Resolve(elicit.missing_fields)],
    content: Content = None,
    title: Title = None,
    type: MemType = None,
    weight: Weight = None,
    trust: Trust = None,
    tags: Tags = None,
    references: References = None,
    context: MemoryContext = None,
    location: Location = None,
    template_id: TemplateId = None,
    structured_content: Structured = None,
    skip_template_suggestion: Annotated[bool, Field(description="No template suggestions.")] = False,
    supersedes: Annotated[list[str] | None, Field(description="Replaced ids.")] = None,
    valid_from: Annotated[str | None, Field(description="True from (default: context.timestamp).")] = None,
    valid_until: Annotated[str | None, Field(description="When it ends.")] = None,
    space: Space = None,
) -> CreatedMemoryOut:
    """Store something the user will want recalled: a fact, a person, a meeting, a book, a decision.

    Give a `title`, a `type`, a few `tags`, and `context.timestamp` if it happened earlier.
    With a `template_id`, give its fields as `content`; missing required ones are asked for or
    listed. Without one, `template_suggestions` may offer one (remember_apply_template).
    `duplicate`: same text stored; `identity`: one about the same thing, updated or superseded;
    `conflicts`: ones it may update.

    Example: {"content": "Sarah is a PM at Google.", "title": "Sarah", "type": "person"}
    Example: {"template_id": "builtin:book_review", "content": {"title": "Dune", "rating": 5}}
    """
    fields, structured = _split_content(content, structured_content)
    draft = MemoryDraft(
        content=fields, title=title, type=type, weight=weight, trust=trust, tags=tags, references=references,
        context=_plain(context), location=_plain(location), template_id=template_id,
        structured_content=structured, supersedes=supersedes, valid_from=valid_from, valid_until=valid_until,
    )  # fmt: skip
    services = services_of(ctx)
    caller = services.spaces.writing_with(member_of(ctx), space, template_id)
    if not isinstance(answers, AcceptedElicitation):
        return _stored_without_answers(ctx, caller, draft, answers)
    if answers.data is not None:
        given = {**(draft.structured_content or {}), **answers.data.model_dump()}
        draft = dataclasses.replace(draft, structured_content=given)
    stored = services.memories.store_new(caller, draft)
    memory = stored.memory
    suggestions = None
    if memory.template_id is None and not skip_template_suggestion and _suggesting(ctx):
        found = services.suggestions.for_memory(caller, memory)
        suggestions = [SuggestionOut(**s.as_dict()) for s in found]
    return CreatedMemoryOut.of_stored(stored, template_suggestions=suggestions)


def remember_get_memory(
    ctx: Context,
    memory_id: MemoryId,
    include_history: Annotated[bool, Field(description="With past changes, newest first.")] = False,
    include_relationships: Links = True,
) -> MemoryDetailOut:
    """Fetch one memory by id, with its relationships and, if asked, its history.

    Example: {"memory_id": "0b6f...", "include_history": true}
    """
    services = services_of(ctx)
    caller, memories = services.spaces.on_memory(member_of(ctx), memory_id), services.memories
    memory = memories.get(caller, memory_id)
    history = [HistoryOut.of(h) for h in memories.history(caller, memory_id)] if include_history else None
    linked = memory_links(ctx, [memory.id], caller).get(memory.id) if include_relationships else None
    return MemoryDetailOut(**public(memory), history=history, relationships=linked)


def remember_update_memory(
    ctx: Context,
    memory_id: MemoryId,
    content: str | dict[str, Any] | None = None,
    title: str | None = None,
    type: str | None = None,
    weight: float | None = None,
    trust: float | None = None,
    tags: Annotated[list[str] | None, Field(description="Replace the tags ([] removes).")] = None,
    references: Annotated[list[str] | None, Field(description="Replace the references.")] = None,
    context: Annotated[ContextIn | None, WithJsonSchema({"type": "object"})] = None,
    location: Annotated[LocationIn | None, WithJsonSchema({"type": "object"})] = None,
    template_id: str | None = None,
    structured_content: dict[str, Any] | None = None,
    clear_fields: Annotated[list[Clearable] | None, Field(description="Fields to empty.")] = None,
    reason: Reason = None,
    valid_from: str | None = None,
    valid_until: Annotated[str | None, Field(description="Ends it; kept.")] = None,
    space: Annotated[str | None, Field(description="Move it to this space (alone).")] = None,
) -> WrittenMemoryOut:
    """Change some fields of a memory (as in remember_create_memory); old values go to its history
    with `reason`. `structured_content` is merged (null removes a field); a new `template_id` drops
    fields it lacks. `space` moves it, history kept.

    Example: {"memory_id": "0b6f...", "title": "Sarah (Director)", "reason": "Promoted"}
    """
    fields, structured = _split_content(content, structured_content)
    patch = MemoryPatch(
        content=fields, title=title, type=type, weight=weight, trust=trust, tags=tags, references=references,
        context=_plain(context), location=_plain(location), template_id=template_id,
        structured_content=structured, valid_from=valid_from, valid_until=valid_until,
        clear=frozenset(clear_fields or ()),
    )  # fmt: skip
    services = services_of(ctx)
    if space is not None:
        return _moved(ctx, memory_id, space, patch, reason)
    caller = services.spaces.on_memory(member_of(ctx), memory_id, need="writer")
    services.spaces.require_template_here(caller, template_id)
    changed = services.memories.change(caller, memory_id, patch, reason=reason)
    return WrittenMemoryOut.of_stored(changed)


def _moved(ctx: Context, memory_id: str, space: str, patch: MemoryPatch, reason: str | None) -> WrittenMemoryOut:
    """A move is a change of its own: the other fields are changed before or after it."""
    if patch.changes():
        raise ValidationFailed.single(
            "space", "alone", "Give space alone to move the memory; change its other fields in another call."
        )
    moved = services_of(ctx).moves.move(member_of(ctx), memory_id, space, reason=reason)
    return WrittenMemoryOut.of_stored(Stored(moved))


def remember_delete_memory(
    ctx: Context,
    memory_id: MemoryId,
    permanent: Annotated[bool, Field(description="Erase it for good (only if the user asks).")] = False,
    reason: Reason = None,
) -> DeletionOut:
    """Delete a memory: to the trash (remember_restore_memory brings it back) unless `permanent`.

    Example: {"memory_id": "0b6f...", "reason": "Asked to"}
    """
    services = services_of(ctx)
    caller = services.spaces.on_memory(member_of(ctx), memory_id, need="writer")
    result = services.memories.delete(caller, memory_id, permanent=permanent, reason=reason)
    if result.permanent:
        return DeletionOut(memory_id=result.memory_id, permanent=True, message="Erased for good.")
    return DeletionOut(
        memory_id=result.memory_id,
        permanent=False,
        message="Moved to the trash; remember_restore_memory brings it back.",
        deleted_at=result.memory.as_dict()["deleted_at"] if result.memory else None,
    )


def remember_restore_memory(ctx: Context, memory_id: MemoryId, reason: Reason = None) -> RestoredOut:
    """Bring back a memory deleted without `permanent`."""
    services = services_of(ctx)
    caller = services.spaces.on_memory(member_of(ctx), memory_id, need="writer")
    back = services.memories.restore(caller, memory_id, reason=reason)
    return RestoredOut(memory_id=back.id, version=back.version, message="Restored, with its relationships.")


def remember_list_memories(
    ctx: Context,
    type: str | None = None,
    tags: Annotated[list[str] | None, Field(description="With these tags.")] = None,
    tags_match: Annotated[Literal["any", "all"], Field(description="Any or all tags.")] = "any",
    created_after: Annotated[str | None, Field(description="ISO 8601, inclusive.")] = None,
    created_before: Annotated[str | None, Field(description="ISO 8601, exclusive.")] = None,
    filters: Filters = None,
    sort_by: Literal["created_at", "updated_at", "weight", "occurred_at"] = "created_at",
    sort_order: Literal["asc", "desc"] = "desc",
    limit: Annotated[int, Field(description="Page size, 1 to 100.")] = 20,
    offset: Offset = 0,
    include_deleted: Literal["exclude", "include", "only"] = "exclude",
    as_of: AsOf = None,
    include_superseded: Superseded = False,
    spaces: Spaces = None,
) -> MemoryPageOut:
    """List the user's memories, newest first, by type, tags, dates or filters (by meaning:
    remember_search_memory).

    Example: {"type": "book", "created_after": "2026-01-01", "limit": 10}
    """
    services = services_of(ctx)
    page = space_reads.listing(
        services.memories, services.spaces.reading(member_of(ctx), spaces), filters=filters, type=type, tags=tags,
        tags_match=tags_match, created_after=created_after, created_before=created_before, sort_by=sort_by,
        sort_order=sort_order, limit=limit, offset=offset, deleted=include_deleted,
        when=when(as_of, include_superseded),
    )  # fmt: skip
    return MemoryPageOut.of(page)


TOOLS: Tools = [
    (remember_create_memory, WRITES),
    (remember_get_memory, READS),
    (remember_update_memory, WRITES),
    (remember_delete_memory, hints(read_only=False, destructive=True, idempotent=True)),
    (remember_restore_memory, hints(read_only=False, idempotent=True)),
    (remember_list_memories, READS),
]


def _stored_without_answers(
    ctx: Context, caller: Caller, draft: MemoryDraft, answers: ElicitationResult[BaseModel]
) -> CreatedMemoryOut:
    """The memory as given, when the user declined or cancelled the form asking for its missing fields."""
    action = "declined" if isinstance(answers, DeclinedElicitation) else "cancelled"
    try:
        stored = services_of(ctx).memories.store_new(caller, draft)
    except ValidationFailed as problem:
        headline = f"Nothing was stored: the user {action} to fill in the missing fields."
        raise ValidationFailed(headline, problem.errors) from problem
    return CreatedMemoryOut.of_stored(stored)


def _suggesting(ctx: Context) -> bool:
    return known.flag(services_of(ctx).preferences.effective(member_of(ctx)), "templates.auto_suggest")


def _split_content(
    content: str | dict[str, Any] | None, structured_content: dict[str, Any] | None
) -> tuple[str | None, dict[str, Any] | None]:
    """The text and the template fields: a template's fields may come as ``content`` (an object)."""
    if not isinstance(content, dict):
        return content, structured_content
    if structured_content is not None:
        raise ValidationFailed.single(
            "content", "conflict", "Give the template's fields either as content or as structured_content."
        )
    return None, content


def _plain(given: BaseModel | None) -> dict[str, Any] | None:
    return given.model_dump(exclude_none=True) if given is not None else None
