"""The shapes MCP tools take and return (pydantic, so clients get JSON Schemas)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from remember.clock import to_text
from remember.errors import FieldError
from remember.models import HistoryEntry, Memory, Page
from remember.service.memories import Stored
from remember.service.templates import TemplateView
from remember.templates import to_json_schema


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


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


class FieldErrorOut(_Out):
    field: str
    code: str
    message: str
    value: Any = None


class IgnoredFieldOut(_Out):
    field: str
    code: str = Field(description="computed (the server's value replaced it) or hidden (its show_if is false).")
    message: str


IGNORED = "Template field values given but not kept: computed fields (replaced) and fields hidden by show_if."


class MemoryOut(_Out):
    id: str
    content: str
    title: str | None
    type: str
    weight: float
    trust: float
    tags: list[str]
    references: list[str]
    context: dict[str, Any]
    location: dict[str, Any] | None
    template_id: str | None
    template_version: str | None
    structured_content: dict[str, Any] | None
    template_compliance: bool | None
    template_validation_errors: list[dict[str, Any]]
    created_at: str
    updated_at: str
    version: int
    deleted_at: str | None
    access_count: int
    last_accessed_at: str | None

    @classmethod
    def of(cls, memory: Memory) -> MemoryOut:
        return cls.model_validate(memory.as_dict())


class HistoryOut(_Out):
    version: int = Field(description="The version this change replaced.")
    action: str = Field(description="update, delete or restore.")
    previous: dict[str, Any] = Field(description="The replaced fields' previous values.")
    reason: str | None
    at: str

    @classmethod
    def of(cls, entry: HistoryEntry) -> HistoryOut:
        return cls.model_validate(entry.as_dict())


class MemoryDetailOut(MemoryOut):
    history: list[HistoryOut] | None = Field(default=None, description="Past changes, newest first, when asked for.")
    relationships: list[dict[str, Any]] | None = None


class MemoryPageOut(_Out):
    memories: list[MemoryOut]
    total: int = Field(description="How many memories match in all.")
    limit: int
    offset: int
    has_more: bool
    next_offset: int | None = Field(description="The offset of the next page, or null on the last page.")

    @classmethod
    def of(cls, page: Page) -> MemoryPageOut:
        return cls(
            memories=[MemoryOut.of(m) for m in page.items],
            total=page.total,
            limit=page.limit,
            offset=page.offset,
            has_more=page.has_more,
            next_offset=page.offset + len(page.items) if page.has_more else None,
        )


class DeletionOut(_Out):
    memory_id: str
    permanent: bool
    message: str
    deleted_at: str | None = None  # when it went to the trash (null after a permanent delete)


class PreferencesOut(_Out):
    preferences: dict[str, dict[str, Any]] = Field(description="Effective values by category, defaults filled in.")


class PreferenceChangeOut(_Out):
    preference_path: str
    old_value: Any
    new_value: Any
    reason: str | None
    at: str


class TemplateOut(_Out):
    id: str
    name: str
    description: str
    version: str
    category: str
    tags: list[str]
    is_default: bool = Field(description="Built-in and read-only (copy it to customise).")
    parent_template_id: str | None
    derived_from: str | None
    auto_apply: bool
    trigger_keywords: list[str]
    trigger_context: dict[str, Any]
    examples: list[str] = Field(default_factory=list)  # utterances that suggestions compare new memories with
    weight: float
    trust: float
    fields: list[dict[str, Any]] = Field(
        description="The template's own fields (inherited ones are in resolved_fields)."
    )
    usage_count: int = Field(description="Memories made with it.")
    last_used: str | None

    @classmethod
    def of(cls, view: TemplateView) -> TemplateOut:
        return cls.model_validate(_template_data(view))


class TemplateDetailOut(TemplateOut):
    resolved_fields: list[dict[str, Any]] = Field(description="Every field, inherited ones included.")
    ancestor_ids: list[str] = Field(description="The parent first, the root last.")
    json_schema: dict[str, Any] = Field(description="JSON Schema (2020-12) of structured_content.")

    @classmethod
    def of(cls, view: TemplateView) -> TemplateDetailOut:
        return cls.model_validate(
            {
                **_template_data(view),
                "resolved_fields": [f.as_dict() for f in view.resolved.fields],
                "ancestor_ids": list(view.resolved.ancestor_ids),
                "json_schema": to_json_schema(view.resolved),
            }
        )


class TemplatePageOut(_Out):
    templates: list[TemplateOut]
    total: int
    limit: int
    offset: int
    has_more: bool

    @classmethod
    def of(cls, views: Sequence[TemplateView], total: int, limit: int, offset: int) -> TemplatePageOut:
        """A page of ``views`` of ``total`` matching templates, from ``offset``."""
        return cls(
            templates=[TemplateOut.of(v) for v in views],
            total=total,
            limit=limit,
            offset=offset,
            has_more=offset + len(views) < total,
        )


class TemplateUpdateOut(_Out):
    """What an update made: the new version (remember_get_template reads the whole template)."""

    template_id: str
    version: str
    rechecked_memories: int = Field(description="Derived memories whose compliance was recomputed.")


class TemplateCopyOut(_Out):
    """A new template, created or copied (remember_get_template reads its fields)."""

    id: str
    name: str
    version: str
    derived_from: str | None


class AppliedOut(_Out):
    """A memory's template fields after a template was applied (its text is unchanged)."""

    id: str
    version: int
    template_id: str | None
    structured_content: dict[str, Any] | None
    template_compliance: bool | None
    template_validation_errors: list[dict[str, Any]]

    @classmethod
    def of(cls, memory: Memory) -> AppliedOut:
        data = memory.as_dict()
        return cls.model_validate({name: data[name] for name in cls.model_fields})


class RestoredOut(_Out):
    memory_id: str
    version: int
    message: str


class TemplateDeletionOut(_Out):
    template_id: str
    trashed_memories: int = Field(description="Derived memories moved to the trash (restorable).")
    message: str


class ValidationOut(_Out):
    valid: bool
    errors: list[FieldErrorOut]
    completion: float = Field(description="Share of the visible fields that are filled, 0 to 1.")
    normalized: dict[str, Any] = Field(description="The content with defaults, coercions and computed fields.")
    ignored_fields: list[IgnoredFieldOut] = Field(default_factory=list, description=IGNORED)


def _template_data(view: TemplateView) -> dict[str, Any]:
    data = view.definition.as_dict()
    usage = view.usage
    data["usage_count"] = usage.usage_count
    data["last_used"] = to_text(usage.last_used) if usage.last_used else None
    return data


class SearchHitOut(_Out):
    memory: MemoryOut
    score: float = Field(description="Relevance; higher is better (comparable within one search).")
    why: dict[str, Any] | None = Field(default=None, description="With explain: the parts of the score.")
    relationships: list[dict[str, Any]] | None = None


class SearchOut(_Out):
    results: list[SearchHitOut]
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    alpha: float = Field(description="The blend used: 1 = by meaning only, 0 = by keywords only.")


class SourceOut(_Out):
    number: int = Field(description="The [n] that cites this memory in the context.")
    memory_id: str
    title: str | None
    when: str = Field(description="When the remembered thing happened (YYYY-MM-DD).")
    score: float
    truncated: bool = Field(description="Only the start of the memory fit in the budget.")
    related_to: int | None = None  # the [n] of the source it was pulled in for (include_related)
    relationships: list[dict[str, Any]] | None = None


class QueryOut(_Out):
    question: str
    context: str = Field(description="The memories, numbered [1], [2], ..., within the token budget.")
    tokens: int = Field(description="Estimated tokens of the context (about 4 characters each).")
    sources: list[SourceOut]
    answer: str | None = Field(
        default=None, description="An answer with [n] citations from the client's model, when it can sample."
    )


class SuggestionOut(_Out):
    template_id: str
    name: str
    description: str
    confidence: float = Field(description="0 to 1.")
    reason: str = Field(description="Why it fits, e.g. \"matched 'dinner at'; mentions a place\".")
    prefill: dict[str, Any] = Field(description="Field values read from the text (nothing invented).")


class WrittenMemoryOut(MemoryOut):
    ignored_fields: list[IgnoredFieldOut] = Field(default_factory=list, description=IGNORED)

    @classmethod
    def of_stored(cls, stored: Stored, **extra: Any) -> Self:
        if stored.duplicate is not None and "duplicate" in cls.model_fields:
            extra = {"duplicate": DuplicateOut(**stored.duplicate.as_dict()), **extra}
        return cls(**stored.memory.as_dict(), ignored_fields=_ignored(stored.ignored), **extra)


def _ignored(errors: Sequence[FieldError]) -> list[IgnoredFieldOut]:
    return [IgnoredFieldOut(field=e.field, code=e.code, message=e.message) for e in errors]


class DuplicateOut(BaseModel):
    memory_id: str
    match: Literal["repeat", "same", "similar"]
    similarity: float
    action: Literal["stored", "skipped", "merged"]


class CreatedMemoryOut(WrittenMemoryOut):
    duplicate: DuplicateOut | None = Field(
        default=None,
        description="The memory already holding this text, and what was done (stored beside, skipped, merged).",
    )
    template_suggestions: list[SuggestionOut] | None = Field(
        default=None,
        description="Templates this free-text memory may fit; apply one with remember_apply_template.",
    )


class SuggestionsOut(_Out):
    suggestions: list[SuggestionOut]


class InferredOut(BaseModel):
    """Proposed templates (or the one accepted) and fields templates lack."""

    proposals: list[dict[str, Any]]
    field_additions: list[dict[str, Any]]
    created_template_id: str | None = None
    applied: list[str] = Field(default_factory=list)
    skipped: list[dict[str, Any]] = Field(default_factory=list)
