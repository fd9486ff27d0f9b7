"""Memories as the edges answer with them: one, a page, a write's receipt, a deletion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from remember.errors import FieldError
from remember.models import HistoryEntry, Memory, Page
from remember.schemas import Out, detail
from remember.schemas.suggestions import SuggestionOut
from remember.service.memories import Stored
from remember.space_keys import is_space_key


class IgnoredFieldOut(Out):
    field: str
    code: str = Field(description="computed (the server's value replaced it) or hidden (its show_if is false).")
    message: str


# A memory's properties a result carries beside its main ones (id, content, title, type, tags, template_id,
# structured_content, version, validity): left out of the tool list's result schemas.
MEMORY_DETAIL = (
    "weight", "trust", "references", "context", "location", "template_version", "template_compliance",
    "template_validation_errors", "created_at", "updated_at", "deleted_at", "access_count", "last_accessed_at",
    "created_by",
)  # fmt: skip

IGNORED = "Template field values given but not kept: computed fields (replaced) and fields hidden by show_if."


class MemoryOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail(*MEMORY_DETAIL))

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
    validity: dict[str, Any] | None = None
    space: str | None = None
    created_by: str | None = None

    @classmethod
    def of(cls, memory: Memory) -> MemoryOut:
        return cls.model_validate(public(memory))


VALIDITY = ("valid_from", "valid_until", "supersedes", "superseded_by")


def public(memory: Memory) -> dict[str, Any]:
    """The memory's public form as results carry it: its validity in one object, with only what says
    something (``valid_from`` when it is not ``context.timestamp``; an end; what it replaced or was
    replaced by), so that a memory that is simply true carries none."""
    out = memory.as_dict()
    validity = {name: out.pop(name) for name in VALIDITY}
    if validity["valid_from"] == out["context"]["timestamp"]:
        del validity["valid_from"]
    out["validity"] = {k: v for k, v in validity.items() if v} or None
    if is_space_key(memory.user_id):  # a shared space's memory names it; a personal one names none
        out["space"] = memory.user_id
    return out


class HistoryOut(Out):
    version: int = Field(description="The version this change replaced.")
    action: str = Field(description="update, delete or restore.")
    previous: dict[str, Any] = Field(description="The replaced fields' previous values.")
    reason: str | None
    at: str
    effective_at: str | None = None
    by: str | None = None

    @classmethod
    def of(cls, entry: HistoryEntry) -> HistoryOut:
        return cls.model_validate(entry.as_dict())


class MemoryDetailOut(MemoryOut):
    history: list[HistoryOut] | None = Field(default=None, description="Past changes, newest first, when asked for.")
    relationships: list[dict[str, Any]] | None = None


class MemoryPageOut(Out):
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


class DeletionOut(Out):
    memory_id: str
    permanent: bool
    message: str
    deleted_at: str | None = None  # when it went to the trash (null after a permanent delete)


class RestoredOut(Out):
    memory_id: str
    version: int
    message: str


class WrittenMemoryOut(MemoryOut):
    ignored_fields: list[IgnoredFieldOut] = Field(default_factory=list, description=IGNORED)

    @classmethod
    def of_stored(cls, stored: Stored, **extra: Any) -> Self:
        if stored.duplicate is not None and "duplicate" in cls.model_fields:
            extra = {"duplicate": DuplicateOut(**stored.duplicate.as_dict()), **extra}
        if "identity" in cls.model_fields and stored.identity is not None:
            extra = {"identity": stored.identity.as_dict(), **extra}
        if "conflicts" in cls.model_fields and stored.conflicts:
            extra = {"conflicts": [h.as_dict() for h in stored.conflicts], **extra}
        return cls(**public(stored.memory), ignored_fields=_ignored(stored.ignored), **extra)


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
    identity: dict[str, Any] | None = Field(
        default=None, description="A memory about the same thing: action, memory_id, same, changes [{field, from, to}]."
    )
    conflicts: list[dict[str, Any]] | None = Field(
        default=None, description="Memories it may update: near, differing in a value (memory_id, similarity, differs)."
    )
