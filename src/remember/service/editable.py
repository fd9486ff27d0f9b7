"""A memory's editable fields: which exist, and cleaning a set of them at once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from remember.errors import FieldError, ValidationFailed
from remember.memory_fields import CLEARABLE, EDITABLE
from remember.service import checks

Errors = list[FieldError]
_CHECKS: dict[str, Callable[[Any, Errors], Any]] = {
    "content": lambda v, e: checks.text(v, "content", e, limit=checks.MAX_CONTENT, required=True),
    "title": lambda v, e: checks.text(v, "title", e, limit=checks.MAX_TITLE) or None,
    "type": checks.memory_type,
    "weight": lambda v, e: checks.unit(v, "weight", e),
    "trust": lambda v, e: checks.unit(v, "trust", e),
    "tags": checks.tags,
    "references": checks.references,
    "context": checks.context,
    "location": checks.location,
    "template_id": lambda v, e: checks.identifier(v, "template_id", e),
    "structured_content": lambda v, e: checks.json_object(
        v, "structured_content", e, limit=checks.MAX_STRUCTURED_BYTES
    ),
    "valid_from": lambda v, e: checks.instant(v, "valid_from", e),
    "valid_until": lambda v, e: checks.instant(v, "valid_until", e),
}


def clean(raw: Mapping[str, Any], *, headline: str) -> dict[str, Any]:
    """Check every given field; raise ValidationFailed listing all problems."""
    errors: Errors = []
    out: dict[str, Any] = {}
    for name in EDITABLE:
        if name not in raw:
            continue
        value = raw[name]
        out[name] = None if value is None and name in CLEARABLE else _CHECKS[name](value, errors)
    if errors:
        raise ValidationFailed(headline, errors)
    return out
