"""The field model of a template: ``FieldDef`` and its validation ``Rules``.

Plain frozen dataclasses holding the definition as the user wrote it (after
aliases are folded in); ``as_dict`` gives back plain JSON that ``parse_fields``
reads again to an equal value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCALAR_TYPES = frozenset({"string", "text", "number", "integer", "boolean", "date", "datetime", "enum"})
FIELD_TYPES = SCALAR_TYPES | {"array", "object", "computed"}
TYPE_ALIASES = {"float": "number"}
ITEM_TYPES = SCALAR_TYPES | {"object"}

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Rules:
    """The ``validation`` block of a field. Unset rules are None."""

    pattern: str | None = None
    error_message: str | None = None
    min: int | float | str | None = None  # a string for date and datetime fields
    max: int | float | str | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value is not None}


@dataclass(frozen=True)
class FieldDef:
    """One field of a template.

    ``fields`` holds the nested fields of an ``object``, or the fields of each
    item of an ``array`` of objects. ``default`` None means no default.
    ``kind`` is the kind of value it holds (``kinds.KINDS``), when declared.
    """

    name: str
    type: str = "string"
    required: bool = False
    default: Any = None
    description: str = ""
    options: tuple[Scalar, ...] = ()
    validation: Rules = Rules()
    show_if: str | None = None
    formula: str | None = None
    item_type: str | None = None
    fields: tuple[FieldDef, ...] = ()
    kind: str | None = None

    @property
    def is_computed(self) -> bool:
        return self.type == "computed"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.kind is not None:
            out["kind"] = self.kind
        if self.required:
            out["required"] = True
        if self.default is not None:
            out["default"] = self.default
        if self.description:
            out["description"] = self.description
        if self.options:
            out["options"] = list(self.options)
        if rules := self.validation.as_dict():
            out["validation"] = rules
        if self.show_if is not None:
            out["conditional"] = {"show_if": self.show_if}
        if self.formula is not None:
            out["formula"] = self.formula
        if self.item_type is not None:
            out["item_type"] = self.item_type
        if self.fields:
            out["fields"] = [field.as_dict() for field in self.fields]
        return out


def iter_fields(fields: tuple[FieldDef, ...], prefix: str = "") -> list[tuple[str, FieldDef]]:
    """Every field with its dotted path, nested ones included, parents first."""
    found: list[tuple[str, FieldDef]] = []
    for field in fields:
        path = f"{prefix}{field.name}"
        found.append((path, field))
        found.extend(iter_fields(field.fields, f"{path}."))
    return found


def label(name: str) -> str:
    """A human label from a field name: ``date_finished`` -> ``Date finished``."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else name
