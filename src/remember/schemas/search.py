"""Search results and a question's context with its numbered sources."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from remember.schemas import Out, detail
from remember.schemas.memories import MemoryOut


class SearchHitOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("why"))  # with explain only

    memory: MemoryOut
    score: float = Field(description="Relevance; higher is better (comparable within one search).")
    why: dict[str, Any] | None = Field(default=None, description="With explain: the parts of the score.")
    relationships: list[dict[str, Any]] | None = None


class SearchOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("plan"))  # with explain only

    results: list[SearchHitOut]
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    alpha: float = Field(
        description="The blend used: 1 = by meaning only, 0 = by keywords only; chosen per search when none was given."
    )
    plan: dict[str, Any] | None = None


class SourceOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("truncated", "related_to"))

    number: int = Field(description="The [n] that cites this memory in the context.")
    memory_id: str
    title: str | None
    when: str = Field(description="When the remembered thing happened (YYYY-MM-DD).")
    score: float
    truncated: bool = Field(description="Only the start of the memory fit in the budget.")
    related_to: int | None = None  # the [n] of the source it was pulled in for (include_related)
    space: str | None = None
    relationships: list[dict[str, Any]] | None = None


class QueryOut(Out):
    question: str
    context: str = Field(description="The memories, numbered [1], [2], ..., within the token budget.")
    tokens: int = Field(description="Estimated tokens of the context (about 4 characters each).")
    sources: list[SourceOut]
    answer: str | None = Field(
        default=None, description="An answer with [n] citations from the client's model, when it can sample."
    )
