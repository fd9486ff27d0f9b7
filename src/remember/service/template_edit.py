"""Applying an update to a template definition: attributes, added, changed and removed fields, version."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from remember.errors import FieldError, ValidationFailed, excerpt
from remember.service.drafts import TemplatePatch
from remember.templates import version_text

_VERSION = re.compile(r"^(\d+)\.(\d+)$")


def edited(current: Mapping[str, Any], patch: TemplatePatch) -> dict[str, Any]:
    """The definition (plain JSON) with every change applied; ValidationFailed lists all problems."""
    errors: list[FieldError] = []
    raw = {**current, **patch.attributes()}
    fields = [dict(f) for f in current.get("fields", [])]
    fields = _removed(fields, patch.remove_fields, errors)
    fields = _updated(fields, patch.update_fields, errors)
    fields = _added(fields, patch.add_fields, errors)
    raw["fields"] = fields
    raw["version"] = _next_version(str(current.get("version", "1.0")), patch.version, errors)
    if errors:
        raise ValidationFailed("The template update cannot be applied.", errors)
    return raw


def replaced(current: Mapping[str, Any], raw: Any) -> dict[str, Any]:
    """A whole new definition in place of ``current``: its id and origin kept, its version bumped
    unless ``raw`` names a new one."""
    if not isinstance(raw, Mapping):
        raise ValidationFailed.single("definition", "type", "A template definition must be an object.")
    errors: list[FieldError] = []
    out = {k: v for k, v in raw.items() if k not in ("id", "is_default", "derived_from", "version")}
    out.update(id=current["id"], is_default=False, derived_from=current.get("derived_from"))
    given = raw.get("version")
    version = str(current.get("version", "1.0"))
    out["version"] = _next_version(version, None if version_text(given) == version else given, errors)
    if errors:
        raise ValidationFailed("The template cannot be saved.", errors)
    return out


def _names(fields: list[dict[str, Any]]) -> list[str]:
    return [str(f.get("name")) for f in fields]


def _removed(fields: list[dict[str, Any]], names: Sequence[Any], errors: list[FieldError]) -> list[dict[str, Any]]:
    known = _names(fields)
    for i, name in enumerate(names):
        if name not in known:
            errors.append(
                FieldError(
                    f"remove_fields[{i}]", "unknown_field", f"No field {excerpt(name)} to remove; fields: {known}."
                )
            )
    return [f for f in fields if f.get("name") not in set(names)]


def _updated(fields: list[dict[str, Any]], changes: Sequence[Any], errors: list[FieldError]) -> list[dict[str, Any]]:
    by_name = {str(f.get("name")): i for i, f in enumerate(fields)}
    for i, change in enumerate(changes):
        name = change.get("name") if isinstance(change, Mapping) else None
        if name not in by_name:
            message = f"update_fields[{i}] must name an existing field ({', '.join(by_name)}) in 'name'."
            errors.append(FieldError(f"update_fields[{i}]", "unknown_field", message, name))
            continue
        assert isinstance(change, Mapping)
        fields[by_name[name]] = {**fields[by_name[name]], **change}
    return fields


def _added(fields: list[dict[str, Any]], additions: Sequence[Any], errors: list[FieldError]) -> list[dict[str, Any]]:
    known = set(_names(fields))
    for i, field in enumerate(additions):
        name = field.get("name") if isinstance(field, Mapping) else None
        if name in known:
            message = f"Field {excerpt(name)} exists already; change it with update_fields."
            errors.append(FieldError(f"add_fields[{i}]", "duplicate", message, name))
            continue
        fields.append(dict(field) if isinstance(field, Mapping) else field)
        known.add(str(name))
    return fields


def _next_version(current: str, given: object, errors: list[FieldError]) -> str:
    """The requested version (it must differ; a number is turned into text, as in a definition),
    or the current one with its minor number raised."""
    requested = version_text(given)
    if requested is not None:
        if not isinstance(requested, str) or not requested.strip() or len(requested) > 32:
            errors.append(FieldError("version", "invalid", "version must be a short text such as '1.1'.", requested))
        elif requested.strip() == current:
            errors.append(FieldError("version", "invalid", f"The template is at version {current} already.", requested))
        return str(requested).strip()
    match = _VERSION.match(current)
    if match:
        return f"{match[1]}.{int(match[2]) + 1}"
    return f"{current}.1"
