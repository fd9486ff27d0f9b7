"""A template with its inherited fields merged in: what validation, rendering and schemas work on."""

from __future__ import annotations

from dataclasses import dataclass, field

from remember.templates.definition import TemplateDefinition
from remember.templates.fields import FieldDef
from remember.templates.validation.compiled import ScopePlan


@dataclass(frozen=True)
class ResolvedTemplate:
    """A definition with its inherited fields merged in, ready for validation."""

    definition: TemplateDefinition
    fields: tuple[FieldDef, ...]
    ancestor_ids: tuple[str, ...]  # the parent first, the root last
    plan: ScopePlan = field(repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.definition.id

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def version(self) -> str:
        return self.definition.version

    def field(self, name: str) -> FieldDef | None:
        return next((f for f in self.fields if f.name == name), None)
