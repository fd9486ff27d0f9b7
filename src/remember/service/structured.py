"""Memories made from templates: validating their fields and deriving what was left out.

With a template, a memory's ``structured_content`` is validated (defaults
applied, values coerced, computed fields evaluated) and stored normalized;
``content`` defaults to the fields rendered as text, ``title`` to the first
filled text field and ``type`` to the template's name in snake case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from remember.caller import Caller
from remember.errors import FieldError, ValidationFailed, excerpt
from remember.service.identity import identity_key
from remember.service.templates import TemplateService, UserTemplates
from remember.templates import ResolvedTemplate, render_text, validate_content


class TemplateContentInvalid(ValidationFailed):
    """Structured content that does not fit its template; ``missing`` lists absent required fields."""

    def __init__(self, resolved: ResolvedTemplate, errors: list[Any]) -> None:
        self.resolved = resolved
        self.missing = [e.field for e in errors if e.code == "required" and "." not in e.field and "[" not in e.field]
        super().__init__(f"The content does not fit template {excerpt(resolved.name)} ({resolved.id}).", errors)


@dataclass(frozen=True)
class Applied:
    resolved: ResolvedTemplate
    structured: dict[str, Any]
    ignored: tuple[FieldError, ...] = ()  # values given and not kept (computed or hidden fields)

    @property
    def text(self) -> str:
        return render_text(self.resolved, self.structured)

    @property
    def title(self) -> str | None:
        for field in self.resolved.fields:
            value = self.structured.get(field.name)
            if field.type in ("string", "enum") and isinstance(value, str) and value.strip():
                return value.strip()[:500]
        return None

    @property
    def type(self) -> str:
        return re.sub(r"[^a-z0-9]+", "_", self.resolved.name.casefold()).strip("_")[:64] or "note"

    def fields(self) -> dict[str, Any]:
        """The memory fields this application sets."""
        return {
            "template_id": self.resolved.id,
            "template_version": self.resolved.version,
            "structured_content": self.structured,
            "template_compliance": True,
            "template_validation_errors": (),
            "identity_key": identity_key(self.resolved.definition.identity, self.structured),
        }


def apply(
    templates: TemplateService, caller: Caller, template_id: str, content: Mapping[str, Any] | None, now: datetime,
    view: UserTemplates | None = None,
) -> Applied:  # fmt: skip
    """Validate ``content`` against the template (found in ``view``, by default the caller's templates);
    TemplateContentInvalid lists every problem."""
    resolved = (view or templates.view_of(caller)).resolved(template_id)
    result = validate_content(resolved, dict(content or {}), now=now)
    if not result.valid:
        raise TemplateContentInvalid(resolved, list(result.errors))
    return Applied(resolved, result.normalized, result.ignored)


def carried_over(
    templates: TemplateService, caller: Caller, template_id: str, content: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields of ``content`` that template ``template_id`` defines too: what a memory keeps
    when it changes templates (the others stay in its history)."""
    names = {f.name for f in templates.view_of(caller).resolved(template_id).fields}
    return {name: value for name, value in content.items() if name in names}


def merge_patch(target: Mapping[str, Any] | None, patch: Mapping[str, Any]) -> dict[str, Any]:
    """RFC 7386 JSON Merge Patch: keys in ``patch`` replace, nested objects merge, null removes."""
    merged = dict(target or {})
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_patch(merged[key], value)
        else:
            merged[key] = value
    return merged
