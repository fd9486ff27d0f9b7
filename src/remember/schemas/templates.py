"""Templates as the edges answer with them: one (with its resolved fields and JSON Schema), a page,
a write's receipt, and a validation's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ConfigDict, Field

from remember.clock import to_text
from remember.schemas import AnyValue, Out, detail
from remember.schemas.memories import IGNORED, IgnoredFieldOut
from remember.service.templates import TemplateView
from remember.templates import to_json_schema


class FieldErrorOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("value"))

    field: str
    code: str
    message: str
    value: AnyValue = None  # the value given, or its excerpt


class TemplateOut(Out):
    # main: id, name, description, version, category, tags, is_default, auto_apply, trigger_keywords, fields
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra=detail(
            "parent_template_id",
            "derived_from",
            "trigger_context",
            "examples",
            "weight",
            "trust",
            "usage_count",
            "last_used",
            "space",
        ),
    )

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
    space: str | None = None

    @classmethod
    def of(cls, view: TemplateView) -> TemplateOut:
        data = _template_data(view)
        data.pop("identity", None)  # read with the whole template (remember_get_template)
        return cls.model_validate(data)


class TemplateDetailOut(TemplateOut):
    identity: list[str] = Field(default_factory=list)
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


class TemplatePageOut(Out):
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


class TemplateUpdateOut(Out):
    """What an update made: the new version (remember_get_template reads the whole template)."""

    template_id: str
    version: str
    rechecked_memories: int = Field(description="Derived memories whose compliance was recomputed.")


class TemplateCopyOut(Out):
    """A new template, created or copied (remember_get_template reads its fields)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("space"))

    id: str
    name: str
    version: str
    derived_from: str | None
    space: str | None = None

    @classmethod
    def of(cls, view: TemplateView) -> TemplateCopyOut:
        d = view.definition
        return cls(id=d.id, name=d.name, version=d.version, derived_from=d.derived_from, space=view.space)


class TemplateDeletionOut(Out):
    template_id: str
    trashed_memories: int = Field(description="Derived memories moved to the trash (restorable).")
    message: str


class ValidationOut(Out):
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
    if view.space is not None:  # a shared space's template names it; a personal or built-in one names none
        data["space"] = view.space
    return data
