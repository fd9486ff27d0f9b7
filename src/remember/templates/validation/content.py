"""Validation of content against a resolved template, every problem at once (``run.py``).

``normalized`` holds only accepted values, so when the content is invalid it is a
partial preview.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from remember.errors import FieldError, ValidationFailed
from remember.templates.dates import as_utc
from remember.templates.resolved import ResolvedTemplate
from remember.templates.validation.coerce import describe
from remember.templates.validation.run import Checker


@dataclass(frozen=True)
class ValidationResult:
    """The outcome of ``validate_content``: every error, the completion and the normalized content."""

    valid: bool
    errors: tuple[FieldError, ...]
    completion: float  # share of visible, non-computed top-level fields that have a value
    normalized: dict[str, Any]
    ignored: tuple[FieldError, ...] = ()  # values given and not kept: computed fields, hidden fields
    hidden: tuple[str, ...] = ()  # fields whose show_if is false for this content (a form hides them)

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "errors": [error.as_dict() for error in self.errors],
            "completion": self.completion,
            "normalized": self.normalized,
            "ignored_fields": [{"field": e.field, "code": e.code, "message": e.message} for e in self.ignored],
        }

    def raise_if_invalid(self, headline: str = "the content does not fit the template") -> None:
        if not self.valid:
            raise ValidationFailed(headline, list(self.errors))


def validate_content(resolved: ResolvedTemplate, content: object, *, now: datetime | None = None) -> ValidationResult:
    """Check ``content`` against ``resolved``; never raises for any JSON value."""
    run = Checker(as_utc(now) if now is not None else datetime.now(UTC))
    if not isinstance(content, Mapping):
        run.fail("", "type", f"the content must be an object of fields, got {describe(content)}", content)
        return ValidationResult(False, tuple(run.errors), 0.0, {})
    normalized, visible, filled = run.scope(resolved.plan, content, "")
    completion = round(filled / visible, 4) if visible else 1.0
    return ValidationResult(
        not run.errors, tuple(run.errors), completion, normalized, tuple(run.ignored), tuple(run.hidden)
    )
