"""Template suggestions, inferred templates, and a memory after a template was applied to it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from remember.models import Memory
from remember.schemas import Out


class SuggestionOut(Out):
    template_id: str
    name: str
    description: str
    confidence: float = Field(description="0 to 1.")
    reason: str = Field(description="Why it fits, e.g. \"matched 'dinner at'; mentions a place\".")
    prefill: dict[str, Any] = Field(description="Field values read from the text (nothing invented).")


class SuggestionsOut(Out):
    suggestions: list[SuggestionOut]


class InferredOut(BaseModel):
    """Proposed templates (or the one accepted) and fields templates lack."""

    proposals: list[dict[str, Any]]
    field_additions: list[dict[str, Any]]
    created_template_id: str | None = None
    applied: list[str] = Field(default_factory=list)
    skipped: list[dict[str, Any]] = Field(default_factory=list)


class AppliedOut(Out):
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
