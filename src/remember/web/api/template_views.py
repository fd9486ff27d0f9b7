"""What the template pages show, shaped from the services' answers: a template with its inheritance,
its versions with what each changed, its memories with their compliance now."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remember.clock import to_text
from remember.models import Memory, TemplateVersion
from remember.schemas.templates import TemplateDetailOut
from remember.service.templates import TemplateView
from remember.templates import (
    FieldOrigin,
    ResolvedTemplate,
    TemplateDefinition,
    definition_changes,
    field_origins,
    field_summary,
    kind_note,
    validate_content,
)

EXCERPT = 160  # characters of a memory's text shown in a list
_NOT_EDITABLE = ("id", "is_default", "derived_from")


def detail(view: TemplateView, chain: Sequence[TemplateDefinition]) -> dict[str, Any]:
    """``remember_get_template``'s answer, with the chain of parents, each field's origin, and the
    definition as the editor edits it."""
    names = {d.id: d.name for d in chain}
    out = TemplateDetailOut.of(view).model_dump(mode="json", exclude_none=True)
    out["inheritance"] = {
        "chain": [{"id": d.id, "name": d.name, "version": d.version, "is_default": d.is_default} for d in chain],
        "fields": [_origin(o, names, view) for o in field_origins(chain)],
    }
    out["definition"] = editable(view.definition)
    return out


def _origin(origin: FieldOrigin, names: dict[str, str], view: TemplateView) -> dict[str, Any]:
    merged = view.resolved.field(origin.name)
    return {
        "name": origin.name,
        "summary": field_summary(merged) + kind_note(merged) if merged is not None else "",
        "description": merged.description if merged is not None else "",
        "source": origin.source,
        "source_name": names[origin.source],
        "overrides": list(origin.overrides),
        "inherited": origin.source != view.id,
    }


def editable(definition: TemplateDefinition) -> dict[str, Any]:
    """The definition without what the server assigns (id, built-in flag, origin of a copy)."""
    return {k: v for k, v in definition.as_dict().items() if k not in _NOT_EDITABLE}


def version_rows(current: TemplateDefinition, stored: Sequence[TemplateVersion]) -> list[dict[str, Any]]:
    """Versions newest first, each with what it changed from the one before (null for the first)."""
    if not stored:
        return [{"version": current.version, "at": None, "changes": None, "definition": editable(current)}]
    rows = []
    for i, version in enumerate(stored):
        before = stored[i - 1].definition if i else None
        rows.append(
            {
                "version": version.version,
                "at": to_text(version.at),
                "changes": definition_changes(before, version.definition) if before is not None else None,
                "definition": {k: v for k, v in version.definition.items() if k not in _NOT_EDITABLE},
            }
        )
    return rows[::-1]


def memory_rows(resolved: ResolvedTemplate, memories: Sequence[Memory], now: datetime) -> list[dict[str, Any]]:
    """Each memory with its compliance with the template as it is now (checked again, not read back)."""
    rows = []
    for memory in memories:
        result = validate_content(resolved, memory.structured_content or {}, now=now)
        text = memory.content
        rows.append(
            {
                "id": memory.id,
                "title": memory.title,
                "excerpt": text if len(text) <= EXCERPT else text[:EXCERPT] + "…",
                "template_version": memory.template_version,
                "created_at": to_text(memory.created_at),
                "compliant": result.valid,
                "errors": [e.as_dict() for e in result.errors],
            }
        )
    return rows
