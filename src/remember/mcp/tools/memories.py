"""MCP tools for memories: create, get, update, delete, restore, list."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import Resolve
from pydantic import BaseModel, Field

from remember.errors import ValidationFailed
from remember.mcp import elicit
from remember.mcp.registry import HasTools, ToolContext, add_tool, hints
from remember.mcp.schemas import (
    ContextIn,
    CreatedMemoryOut,
    DeletionOut,
    HistoryOut,
    LocationIn,
    MemoryDetailOut,
    MemoryOut,
    MemoryPageOut,
    SuggestionOut,
)
from remember.service.drafts import MemoryDraft, MemoryPatch

MemoryId = Annotated[str, Field(description="The memory's id, as returned when it was created or listed.")]
Content = Annotated[
    str | dict[str, Any] | None,
    Field(description="The text to remember. With a template_id it may instead be an object of the template's fields."),
]
Title = Annotated[str | None, Field(description="A short title.")]
MemType = Annotated[str | None, Field(description="What kind of memory: note, person, meeting, book, fact, ...")]
Weight = Annotated[float | None, Field(description="Significance from 0 to 1 (default 0.5).")]
Trust = Annotated[float | None, Field(description="Access level needed to read it, 0 to 1 (default 0.5).")]
Tags = Annotated[list[str] | None, Field(description="Labels, e.g. ['work', 'project-x']. Case is ignored.")]
References = Annotated[list[str] | None, Field(description="Related http(s) URLs.")]
TemplateId = Annotated[str | None, Field(description="Id of the memory template this memory follows.")]
Structured = Annotated[
    dict[str, Any] | None, Field(description="The template's fields as an object (when template_id is given).")
]
Reason = Annotated[str | None, Field(description="Why this change is made; kept in the memory's history.")]
Clearable = Literal["title", "location", "template_id", "structured_content"]


def register(server: HasTools, tc: ToolContext) -> None:
    memories = tc.services.memories

    def remember_create_memory(
        answers: Annotated[ElicitationResult[BaseModel], Resolve(elicit.missing_fields)],
        content: Content = None,
        title: Title = None,
        type: MemType = None,
        weight: Weight = None,
        trust: Trust = None,
        tags: Tags = None,
        references: References = None,
        context: ContextIn | None = None,
        location: LocationIn | None = None,
        template_id: TemplateId = None,
        structured_content: Structured = None,
        skip_template_suggestion: Annotated[
            bool, Field(description="Do not suggest templates for this memory.")
        ] = False,
    ) -> CreatedMemoryOut:
        """Store something worth remembering about the user: a fact, a person, a meeting, a book, a decision.

        Use it when the user tells you something they will want recalled later. Give a
        `title`, a `type` and a few `tags` so it can be found again; set `context.timestamp`
        when the thing happened at another time than now.

        With a `template_id` (see remember_list_templates), give the template's fields as
        `content` (an object) or `structured_content`; `content` text, `title` and `type` are
        then derived when left out. Missing required fields are asked from the user when the
        client supports it; otherwise the error lists them. Without a template, the answer
        may carry `template_suggestions` (with the fields already readable from the text):
        offer the best one to the user and apply it with remember_apply_template.

        Example: {"content": "Sarah is a product manager at Google; met her at PyCon.",
                  "title": "Sarah (PM, Google)", "type": "person", "tags": ["people", "pycon"]}
        Example: {"template_id": "builtin:book_review",
                  "content": {"title": "Dune", "author": "Frank Herbert", "rating": 5}}
        """
        fields, structured = _split_content(content, structured_content)
        draft = MemoryDraft(
            content=fields, title=title, type=type, weight=weight, trust=trust, tags=tags, references=references,
            context=_plain(context), location=_plain(location), template_id=template_id,
            structured_content=structured,
        )  # fmt: skip
        user = tc.user()
        if isinstance(answers, AcceptedElicitation):
            if answers.data is not None:
                given = {**(draft.structured_content or {}), **answers.data.model_dump()}
                draft = dataclasses.replace(draft, structured_content=given)
        else:
            action = "declined" if isinstance(answers, DeclinedElicitation) else "cancelled"
            try:
                memory = memories.create(user, draft)
            except ValidationFailed as problem:
                headline = f"Nothing was stored: the user {action} to fill in the missing fields."
                raise ValidationFailed(headline, problem.errors) from problem
            return CreatedMemoryOut(**memory.as_dict())
        memory = memories.create(user, draft)
        suggestions = None
        if memory.template_id is None and not skip_template_suggestion and _suggesting(tc, user):
            found = tc.services.suggestions.for_memory(user, memory)
            suggestions = [SuggestionOut(**s.as_dict()) for s in found]
        return CreatedMemoryOut(**memory.as_dict(), template_suggestions=suggestions)

    def remember_get_memory(
        memory_id: MemoryId,
        include_history: Annotated[bool, Field(description="Also return past changes, newest first.")] = False,
    ) -> MemoryDetailOut:
        """Fetch one memory by id, optionally with the history of its changes.

        Example: {"memory_id": "0b6f3c1e-5d0a-4c6e-9a3b-1f2e3d4c5b6a", "include_history": true}
        """
        user = tc.user()
        memory = memories.get(user, memory_id)
        history = [HistoryOut.of(h) for h in memories.history(user, memory_id)] if include_history else None
        return MemoryDetailOut(**memory.as_dict(), history=history)

    def remember_update_memory(
        memory_id: MemoryId,
        content: Content = None,
        title: Title = None,
        type: MemType = None,
        weight: Weight = None,
        trust: Trust = None,
        tags: Annotated[list[str] | None, Field(description="Replaces all tags ([] removes them).")] = None,
        references: Annotated[list[str] | None, Field(description="Replaces all references.")] = None,
        context: ContextIn | None = None,
        location: LocationIn | None = None,
        template_id: TemplateId = None,
        structured_content: Structured = None,
        clear_fields: Annotated[
            list[Clearable] | None, Field(description="Fields to empty, e.g. ['location'].")
        ] = None,
        reason: Reason = None,
    ) -> MemoryOut:
        """Change some fields of a memory; fields left out stay as they are.

        The version goes up by one and the replaced values are kept in the memory's
        history with your `reason` (see remember_get_memory with include_history).
        `structured_content` is merged into the stored fields (null removes one); with a
        new `template_id`, stored fields that template does not define are dropped.

        Example: {"memory_id": "0b6f3c1e-...", "title": "Sarah (Director, Google)",
                  "reason": "She was promoted"}
        """
        fields, structured = _split_content(content, structured_content)
        patch = MemoryPatch(
            content=fields, title=title, type=type, weight=weight, trust=trust, tags=tags, references=references,
            context=_plain(context), location=_plain(location), template_id=template_id,
            structured_content=structured, clear=frozenset(clear_fields or ()),
        )  # fmt: skip
        return MemoryOut.of(memories.update(tc.user(), memory_id, patch, reason=reason))

    def remember_delete_memory(
        memory_id: MemoryId,
        permanent: Annotated[
            bool,
            Field(description="Erase it and its history for good. Only when the user explicitly asks for that."),
        ] = False,
        reason: Reason = None,
    ) -> DeletionOut:
        """Delete a memory. By default it goes to the trash and remember_restore_memory brings it back.

        Example: {"memory_id": "0b6f3c1e-...", "reason": "The user asked to forget it"}
        """
        result = memories.delete(tc.user(), memory_id, permanent=permanent, reason=reason)
        if result.permanent:
            return DeletionOut(memory_id=result.memory_id, permanent=True, message="Erased for good.")
        return DeletionOut(
            memory_id=result.memory_id,
            permanent=False,
            message="Moved to the trash; remember_restore_memory brings it back.",
            memory=MemoryOut.of(result.memory) if result.memory else None,
        )

    def remember_restore_memory(memory_id: MemoryId, reason: Reason = None) -> MemoryOut:
        """Bring back a memory deleted without `permanent`.

        Example: {"memory_id": "0b6f3c1e-..."}
        """
        return MemoryOut.of(memories.restore(tc.user(), memory_id, reason=reason))

    def remember_list_memories(
        type: Annotated[str | None, Field(description="Only memories of this type.")] = None,
        tags: Annotated[list[str] | None, Field(description="Only memories with these tags.")] = None,
        tags_match: Annotated[Literal["any", "all"], Field(description="Whether any or all tags must match.")] = "any",
        created_after: Annotated[str | None, Field(description="ISO 8601 date or datetime (inclusive).")] = None,
        created_before: Annotated[str | None, Field(description="ISO 8601 date or datetime (exclusive).")] = None,
        filters: Annotated[
            dict[str, Any] | None,
            Field(
                description="Advanced filter: fields with operators eq ne gt gte lt lte in nin contains exists, "
                'combined with and/or/not, e.g. {"structured_content.rating": {"gte": 4}}.'
            ),
        ] = None,
        sort_by: Annotated[
            Literal["created_at", "updated_at", "weight", "occurred_at"], Field(description="Order by this field.")
        ] = "created_at",
        sort_order: Annotated[Literal["asc", "desc"], Field(description="Ascending or descending.")] = "desc",
        limit: Annotated[int, Field(description="Page size, 1 to 100.")] = 20,
        offset: Annotated[int, Field(description="How many to skip (for the next page use next_offset).")] = 0,
        include_deleted: Annotated[
            Literal["exclude", "include", "only"], Field(description="Whether to show deleted memories.")
        ] = "exclude",
    ) -> MemoryPageOut:
        """List the user's memories, newest first, with filters and pages.

        Use it to browse or to answer "what do I have about X" when you know the type or
        tags; to find by meaning use remember_search_memory.

        Example: {"type": "book", "tags": ["fiction"], "created_after": "2026-01-01", "limit": 10}
        """
        page = memories.list(
            tc.user(),
            filters=filters,
            type=type,
            tags=tags,
            tags_match=tags_match,
            created_after=created_after,
            created_before=created_before,
            sort_by=sort_by,
            sort_order=sort_order,
            limit=limit,
            offset=offset,
            deleted=include_deleted,
        )
        return MemoryPageOut.of(page)

    add_tool(server, remember_create_memory, title="Remember something", hints=hints(read_only=False))
    add_tool(server, remember_get_memory, title="Get a memory", hints=hints(read_only=True, idempotent=True))
    add_tool(server, remember_update_memory, title="Update a memory", hints=hints(read_only=False))
    add_tool(
        server,
        remember_delete_memory,
        title="Delete a memory",
        hints=hints(read_only=False, destructive=True, idempotent=True),
    )
    add_tool(server, remember_restore_memory, title="Restore a memory", hints=hints(read_only=False, idempotent=True))
    add_tool(server, remember_list_memories, title="List memories", hints=hints(read_only=True, idempotent=True))


def _suggesting(tc: ToolContext, user: str) -> bool:
    return bool(tc.services.preferences.effective(user)["templates.auto_suggest"])


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
