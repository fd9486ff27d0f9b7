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
from remember.templates.fields import FIELD_TYPES, ITEM_TYPES, label
from remember.templates.kinds import KINDS, kinds_for, shape_of

EXCERPT = 160  # characters of a memory's text shown in a list
_NOT_EDITABLE = ("id", "is_default", "derived_from")
_ALWAYS = ("name", "version", "fields")
# The types as the editor lists them: plain values first, then lists, objects and computed fields.
TYPE_ORDER: tuple[str, ...] = ("string", "text", "number", "integer", "boolean", "date", "datetime", "enum")
TYPE_ORDER += ("array", "object", "computed")


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


def labelled(field: dict[str, Any]) -> dict[str, Any]:
    """A field's definition with the label a form shows it under (nested fields too)."""
    nested = [labelled(f) for f in field.get("fields", [])]
    return {**field, "label": label(field["name"]), **({"fields": nested} if nested else {})}


def kind_choices() -> dict[str, Any]:
    """The field types and item types, each kind's meaning, and which kinds fit each type (an array's
    as ``array/<item type>``), as the engine reads them: the template editor's choices."""
    types = [t for t in TYPE_ORDER if t in FIELD_TYPES]
    items = [t for t in TYPE_ORDER if t in ITEM_TYPES]
    fits = {t: kinds_for(shape_of(t)) for t in types if t != "array"}
    fits.update({f"array/{t}": kinds_for(shape_of("array", t)) for t in items})
    return {
        "types": types,
        "item_types": items,
        "kinds": {name: kind.holds for name, kind in KINDS.items()},
        "fits": {key: names for key, names in fits.items() if names},
    }


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
    """The definition without what the server assigns (id, built-in flag, origin of a copy) and without the
    attributes left at the engine's defaults, which read the same whether written or not."""
    unset = TemplateDefinition(id="", name="").as_dict()
    return {
        k: v for k, v in definition.as_dict().items() if k not in _NOT_EDITABLE and (k in _ALWAYS or v != unset.get(k))
    }


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
