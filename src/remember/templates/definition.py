"""A template definition: ``TemplateDefinition``, read from and written to plain JSON.

``parse_template`` checks the whole definition and raises one ``TemplateError``
listing every problem. A template with a parent is checked again once
resolved (``resolve``), since its formulas may name the parent's fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from remember.errors import FieldError, TemplateError, excerpt
from remember.templates.fields import FieldDef
from remember.templates.reading.attributes import read_template_attributes
from remember.templates.reading.field_defs import read_fields
from remember.templates.reading.fit import check_fields
from remember.templates.reading.problems import Problems


@dataclass(frozen=True)
class TemplateDefinition:
    """A template as defined, before inheritance: its own fields and its attributes.

    ``id`` is empty until a store assigns one; ``is_default`` marks the read-only
    built-ins; ``derived_from`` names the template a copy was made from;
    ``examples`` are short utterances that fit the template, compared with what
    the user says when suggesting templates.
    """

    id: str
    name: str
    description: str = ""
    version: str = "1.0"
    fields: tuple[FieldDef, ...] = ()
    parent_template_id: str | None = None
    category: str = "general"
    tags: tuple[str, ...] = ()
    auto_apply: bool = False
    trigger_keywords: tuple[str, ...] = ()
    trigger_context: dict[str, Any] = field(default_factory=dict)
    weight: float = 0.5
    trust: float = 0.0
    is_default: bool = False
    derived_from: str | None = None
    examples: tuple[str, ...] = ()
    identity: tuple[str, ...] = ()  # the fields that name the thing a memory of it is about

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON that ``parse_template`` reads back to an equal value; ``examples`` only when there are some."""
        data = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "fields": [f.as_dict() for f in self.fields],
            "parent_template_id": self.parent_template_id,
            "category": self.category,
            "tags": list(self.tags),
            "auto_apply": self.auto_apply,
            "trigger_keywords": list(self.trigger_keywords),
            "trigger_context": dict(self.trigger_context),
            "weight": self.weight,
            "trust": self.trust,
            "is_default": self.is_default,
            "derived_from": self.derived_from,
        }
        if self.examples:
            data["examples"] = list(self.examples)
        if self.identity:
            data["identity"] = list(self.identity)
        return data


def parse_fields(raw: object) -> tuple[FieldDef, ...]:
    """Read and check a list of field definitions on their own (no parent)."""
    problems = Problems()
    fields = read_fields(raw, problems)
    errors = problems.errors + check_fields(fields, skip_defaults=problems.bad)
    if errors:
        raise TemplateError(_headline("the fields are invalid", errors), errors)
    return fields


def parse_template(raw: object) -> TemplateDefinition:
    """Read and check a whole template definition; every problem is reported at once."""
    if not isinstance(raw, dict):
        raise TemplateError.single("", "invalid", "a template definition must be a JSON object", raw)
    problems = Problems()
    attributes = read_template_attributes(raw, problems)
    fields = read_fields(raw.get("fields", []), problems)
    has_parent = attributes.get("parent_template_id") is not None
    if not raw.get("fields") and not has_parent:
        problems.add("fields", "invalid", "a template needs at least one field")
    # A child's formulas may name its parent's fields: those are checked by resolve().
    errors = problems.errors + check_fields(fields, references=not has_parent, skip_defaults=problems.bad)
    if not has_parent:
        errors += identity_problems(attributes.get("identity", ()), fields)
    if errors:
        name = attributes.get("name") or "(unnamed)"
        raise TemplateError(_headline(f"template {excerpt(name)} is invalid", errors), errors)
    return TemplateDefinition(fields=fields, **attributes)


def identity_problems(identity: tuple[str, ...], fields: tuple[FieldDef, ...]) -> list[FieldError]:
    """An identity names fields of the template, each once."""
    names = {f.name for f in fields}
    errors = [
        FieldError(
            "identity", "unknown_field",
            f"identity names {excerpt(name)}, which is not a field of the template; "
            f"name some of: {', '.join(sorted(names)) or '(no fields)'}.", name,
        )
        for name in identity
        if name not in names
    ]  # fmt: skip
    if len(set(identity)) != len(identity):
        errors.append(FieldError("identity", "duplicate", "identity names a field more than once.", list(identity)))
    return errors


def _headline(start: str, errors: list[FieldError]) -> str:
    count = len(errors)
    return f"{start}: {count} problem{'s' if count != 1 else ''}; fix each one below"
