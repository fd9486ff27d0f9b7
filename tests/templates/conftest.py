"""Helpers shared by the template engine tests: a fixed clock and quick template builders."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from remember.templates import ResolvedTemplate, ValidationResult, parse_template, resolve, validate_content

NOW = datetime(2026, 2, 11, 15, 30, tzinfo=UTC)


def template(*fields: dict[str, Any], name: str = "Test", **extra: Any) -> ResolvedTemplate:
    """A resolved template with ``fields`` and nothing else."""
    return resolve(parse_template({"id": "t", "name": name, "fields": list(fields), **extra}))


def check(resolved: ResolvedTemplate, content: Any) -> ValidationResult:
    return validate_content(resolved, content, now=NOW)


def codes(result: ValidationResult) -> list[tuple[str, str]]:
    return [(error.field, error.code) for error in result.errors]


@pytest.fixture
def now() -> datetime:
    return NOW
