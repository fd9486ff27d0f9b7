"""What changed between two versions of a template definition (plain JSON, as stored)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Attributes that change on every save, or say nothing about what the template asks for.
_SKIPPED = frozenset({"id", "version", "fields", "is_default"})


def definition_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """``{attributes: [{name, before, after}], added_fields, removed_fields, changed_fields: [{name, attributes}]}``."""
    names = [k for k in {**before, **after} if k not in _SKIPPED]
    attributes = [
        {"name": k, "before": before.get(k), "after": after.get(k)} for k in names if before.get(k) != after.get(k)
    ]
    old = _by_name(before.get("fields"))
    new = _by_name(after.get("fields"))
    changed = []
    for name in new:
        if name in old and old[name] != new[name]:
            keys = {**old[name], **new[name]}
            changed.append({"name": name, "attributes": [k for k in keys if old[name].get(k) != new[name].get(k)]})
    return {
        "attributes": attributes,
        "added_fields": [n for n in new if n not in old],
        "removed_fields": [n for n in old if n not in new],
        "changed_fields": changed,
    }


def _by_name(fields: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(fields, list):
        return {}
    return {str(f.get("name")): dict(f) for f in fields if isinstance(f, Mapping)}
