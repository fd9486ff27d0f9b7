"""What the edges hand the services: a new memory, a change to one, a change to a template.

The MCP tools and the CLI build these from their typed parameters; loose input
(an import file, a test) goes through ``from_mapping``. Values are checked by
the service, which reports every problem at once; a draft only says which
fields were given. The memory fields are the registry's editable ones
(``remember.memory_fields``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from remember.errors import FieldError, ValidationFailed
from remember.memory_fields import CLEARABLE, EDITABLE


@dataclass(frozen=True)
class MemoryDraft:
    """A new memory: every editable field, None when not given."""

    content: str | None = None
    title: str | None = None
    type: str | None = None
    weight: float | None = None
    trust: float | None = None
    tags: Sequence[str] | None = None
    references: Sequence[str] | None = None
    context: Mapping[str, Any] | None = None
    location: Mapping[str, Any] | None = None
    template_id: str | None = None
    structured_content: Mapping[str, Any] | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    supersedes: Sequence[str] | None = None  # the memories it replaces (a create only)

    def given(self) -> dict[str, Any]:
        """The fields given, by name."""
        return {name: getattr(self, name) for name in EDITABLE if getattr(self, name) is not None}

    @classmethod
    def from_mapping(cls, raw: Any) -> Self:
        """A draft of the fields in ``raw``; a name that is no memory field is an error."""
        given = _memory_fields(raw, also=("supersedes",))
        return cls(**{name: value for name, value in given.items() if value is not None})


@dataclass(frozen=True)
class MemoryPatch(MemoryDraft):
    """A change to a stored memory: the fields to set, and the ones to empty (``clear``)."""

    clear: frozenset[str] = field(default_factory=frozenset)

    def changes(self) -> dict[str, Any]:
        """Fields to set and (as None) fields to empty; a field both set and cleared is an error."""
        out = self.given()
        errors = [
            FieldError(name, "conflict", f"{name} is both given and in clear_fields; pick one.")
            for name in sorted(self.clear)
            if name in out
        ]
        errors += [
            FieldError(name, "not_clearable", f"{name} cannot be cleared; clearable: {', '.join(sorted(CLEARABLE))}.")
            for name in sorted(self.clear - CLEARABLE)
        ]
        if errors:
            raise ValidationFailed("The update cannot be applied.", errors)
        return {**out, **dict.fromkeys(sorted(self.clear))}

    @classmethod
    def from_mapping(cls, raw: Any) -> Self:
        """A patch of the fields in ``raw``: null empties a field; a name that is no memory field is an error."""
        given = _memory_fields(raw)
        clear = frozenset(name for name, value in given.items() if value is None)
        return cls(**{name: value for name, value in given.items() if value is not None}, clear=clear)


def _memory_fields(raw: Any, also: tuple[str, ...] = ()) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ValidationFailed.single("", "type", "Each memory must be an object of fields.")
    unknown = sorted(str(k) for k in raw if k not in EDITABLE and k not in also)
    if unknown:
        raise ValidationFailed(
            "The memory cannot be stored.",
            [
                FieldError(name, "unknown_field", f"{name} is not a memory field; fields: {', '.join(EDITABLE)}.")
                for name in unknown
            ],
        )
    return raw


def memory_draft(value: MemoryDraft | Mapping[str, Any]) -> MemoryDraft:
    return value if isinstance(value, MemoryDraft) else MemoryDraft.from_mapping(value)


def memory_patch(value: MemoryPatch | Mapping[str, Any]) -> MemoryPatch:
    return value if isinstance(value, MemoryPatch) else MemoryPatch.from_mapping(value)


@dataclass(frozen=True)
class TemplatePatch:
    """A change to one of the user's templates: attributes to set, fields to add, change or remove."""

    name: str | None = None
    description: str | None = None
    parent_template_id: str | None = None
    category: str | None = None
    tags: Sequence[str] | None = None
    auto_apply: bool | None = None
    trigger_keywords: Sequence[str] | None = None
    trigger_context: Mapping[str, Any] | None = None
    examples: Sequence[str] | None = None
    weight: float | None = None
    trust: float | None = None
    identity: Sequence[str] | None = None
    add_fields: Sequence[Any] = ()
    update_fields: Sequence[Any] = ()
    remove_fields: Sequence[Any] = ()
    version: str | float | None = None  # a number is turned into text

    def attributes(self) -> dict[str, Any]:
        """The template attributes given (fields and version aside)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name in ATTRIBUTES and getattr(self, f.name) is not None
        }

    def is_empty(self) -> bool:
        return not (self.attributes() or self.add_fields or self.update_fields or self.remove_fields or self.version)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> Self:
        """A patch of the keys in ``raw``; an unknown key is an error naming what may change."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(str(k) for k in raw if k not in known)
        if unknown:
            raise ValidationFailed(
                "The template update cannot be applied.",
                [
                    FieldError(k, "unknown_field", f"{k} cannot be changed; changeable: {', '.join(ATTRIBUTES)}.")
                    for k in unknown
                ],
            )
        values = {k: v for k, v in raw.items() if v is not None}
        for key in ("add_fields", "update_fields", "remove_fields"):
            if key in values and not isinstance(values[key], list):
                raise ValidationFailed.single(key, "type", f"{key} must be a list.", values[key])
        return cls(**values)


# Attributes a template patch may set directly (fields change through the field operations).
ATTRIBUTES = (
    "name", "description", "parent_template_id", "category", "tags", "auto_apply", "trigger_keywords",
    "trigger_context", "examples", "weight", "trust", "identity",
)  # fmt: skip
