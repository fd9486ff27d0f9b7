"""Where each field of a resolved template comes from: which template in the chain defines it,
and which ancestors' fields of the same name it overrides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remember.templates.definition import TemplateDefinition


@dataclass(frozen=True)
class FieldOrigin:
    """One merged field: the template whose definition is in effect, and the ones it replaces (root first)."""

    name: str
    source: str
    overrides: tuple[str, ...] = ()


def field_origins(chain: Sequence[TemplateDefinition]) -> list[FieldOrigin]:
    """The origin of every field of ``chain`` (the root first, the template itself last), in merge order."""
    defined: dict[str, list[str]] = {}
    for definition in chain:
        for own in definition.fields:
            defined.setdefault(own.name, []).append(definition.id)
    return [FieldOrigin(name, ids[-1], tuple(ids[:-1])) for name, ids in defined.items()]
