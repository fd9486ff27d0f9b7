"""What the analytics service answers (``service/analytics.py``): a user's memories over time, the templates
worth a look, and a template's report with its suggestions per period; each with its JSON form, ``as_dict``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from remember.clock import to_text
from remember.jsontypes import JsonValue
from remember.models import TimeUnit, fields_as_json
from remember.service.suggestions import TemplateReport


@dataclass(frozen=True)
class Totals:
    """The user's memories in all, and how many types and templates they span (first and last: None when none)."""

    memories: int
    with_template: int
    types: int
    templates: int
    first: datetime | None
    last: datetime | None

    def as_dict(self) -> dict[str, JsonValue]:
        return {**fields_as_json(self), "first": _moment(self.first), "last": _moment(self.last)}


@dataclass(frozen=True)
class TypeSeries:
    """One type's memories in every period, and in all (fields in the order of the JSON)."""

    counts: tuple[int, ...]
    total: int
    type: str

    def as_dict(self) -> dict[str, JsonValue]:
        return fields_as_json(self)


@dataclass(frozen=True)
class TemplateSeries:
    """One template's memories in every period, and in all; the memories without a template, or the kinds
    past the ones drawn one by one (``template_id`` None, named so)."""

    counts: tuple[int, ...]
    total: int
    template_id: str | None
    name: str

    def as_dict(self) -> dict[str, JsonValue]:
        return fields_as_json(self)


@dataclass(frozen=True)
class Overview:
    """The user's memories: totals, and counts per period (``bucket``) by type and by template, the largest first."""

    bucket: TimeUnit
    when: str  # created or occurred: the moment of a memory counted
    totals: Totals
    periods: tuple[date, ...]  # the first day of each
    by_type: tuple[TypeSeries, ...]
    by_template: tuple[TemplateSeries, ...]

    def as_dict(self) -> dict[str, JsonValue]:
        return {
            "bucket": self.bucket,
            "when": self.when,
            "totals": self.totals.as_dict(),
            "periods": _days(self.periods),
            "by_type": [row.as_dict() for row in self.by_type],
            "by_template": [row.as_dict() for row in self.by_template],
        }


@dataclass(frozen=True)
class TemplateUse:
    """A template to pick on the analytics page, with how many memories were made with it."""

    id: str
    name: str
    usage_count: int
    is_default: bool
    space: str | None = None  # the key of the shared space that holds it; None: personal or built in

    def as_dict(self) -> dict[str, JsonValue]:
        return fields_as_json(self)


@dataclass(frozen=True)
class AcceptanceOverTime:
    """A template's suggestions shown and applied in every period (``bucket``)."""

    bucket: TimeUnit
    periods: tuple[date, ...]
    shown: tuple[int, ...]
    applied: tuple[int, ...]

    def as_dict(self) -> dict[str, JsonValue]:
        return {**fields_as_json(self), "periods": _days(self.periods)}


@dataclass(frozen=True)
class TemplateOverTime:
    """A template's report (``SuggestionService.analytics``) and its suggestions per period."""

    report: TemplateReport
    acceptance_over_time: AcceptanceOverTime

    def as_dict(self) -> dict[str, JsonValue]:
        return {**self.report.as_dict(), "acceptance_over_time": self.acceptance_over_time.as_dict()}


def _days(periods: Sequence[date]) -> list[str]:
    return [p.isoformat() for p in periods]


def _moment(moment: datetime | None) -> str | None:
    return to_text(moment) if moment else None
