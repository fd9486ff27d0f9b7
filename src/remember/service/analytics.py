"""Analytics over time: a user's memories per period by type and template, and a template's figures with
its suggestions shown and applied per period.

The store counts (one GROUP BY per figure); this service picks the period from the span of the data
unless the caller names one, fills the periods without data with zeros, and names the templates.
Only the caller's memories within its trust level are counted (``remember.caller``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import date, timedelta
from typing import Any, TypeVar

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.models import MemoryCount, MomentColumn, TimeSpan, TimeUnit
from remember.service.analytics_results import (
    AcceptanceOverTime,
    Overview,
    TemplateOverTime,
    TemplateSeries,
    TemplateUse,
    Totals,
    TypeSeries,
)
from remember.service.suggestions import SuggestionService
from remember.service.templates import TemplateService, template_space
from remember.service.visibility import trust_cap
from remember.store import AnalyticsStore
from remember.templates import builtin_templates

UNITS: tuple[TimeUnit, ...] = ("day", "week", "month", "year")
MOMENTS: dict[str, MomentColumn] = {"created": "created_at", "occurred": "occurred_at"}
MAX_PERIODS = 1000  # of a day, week or month; years are never too many (at most 9999)
MAX_SERIES = 12  # kinds drawn one by one; the rest are summed as OTHER
# The finest period that draws the span in at most about a hundred bars (spans in days).
AUTOMATIC: tuple[tuple[int, TimeUnit], ...] = ((62, "day"), (730, "week"), (3660, "month"))
NO_TEMPLATE = "(no template)"
OTHER = "(others)"
Kind = TypeVar("Kind", str, str | None)  # what a series is of: a memory type, or a template (None: none)


class AnalyticsService:
    def __init__(self, store: AnalyticsStore, templates: TemplateService, suggestions: SuggestionService) -> None:
        self.store = store
        self.templates = templates
        self.suggestions = suggestions

    def overview(
        self,
        caller: Caller,
        *,
        bucket: str | None = None,
        when: str = "created",
        readers: Sequence[Caller] | None = None,
    ) -> Overview:
        """The memories of the spaces of ``readers`` (the caller acting in each, ``SpaceService.reading``; default:
        the caller's own): totals, and counts per period by type and by template.

        ``bucket`` is day, week, month or year (None: chosen by the span); ``when`` is ``created``
        (when each memory was stored) or ``occurred`` (when the remembered thing happened).
        """
        column = _moment(when)
        chosen = _unit(bucket)
        spaces = readers or [caller]
        span = _joined([self.store.memory_span(r.user, column=column, max_trust=r.trust) for r in spaces])
        unit = chosen or automatic_unit(span)
        periods = period_starts(span, unit)
        counts = [
            c for r in spaces for c in self.store.memory_counts(r.user, column=column, unit=unit, max_trust=r.trust)
        ]
        names = {d.id: d.name for r in spaces for d in self.templates.view_of(r).all()}
        by_type = tuple(TypeSeries(c, sum(c), key) for key, c in _series(counts, periods, lambda c: c.type))
        by_template = tuple(
            _template_series(key, c, names) for key, c in _series(counts, periods, lambda c: c.template_id)
        )
        return Overview(unit, when, _totals(span, counts), tuple(periods), by_type, by_template)

    def templates_used(self, caller: Caller, readers: Sequence[Caller] | None = None) -> list[TemplateUse]:
        """The templates worth a look, most used first: those of the spaces of ``readers`` (the caller acting in
        each, ``SpaceService.reading``; default: the caller's own), each naming its shared space, and the built-ins
        made memories with there, once, their memories counted in every one of those spaces."""
        rows: list[TemplateUse] = []
        builtin: dict[str, int] = defaultdict(int)
        for reader in readers or [caller]:
            usage = self.templates.store.templates.usage(reader.user, max_trust=trust_cap(reader))
            for view in self.templates.view_of(reader).all():
                count = usage[view.id].usage_count if view.id in usage else 0
                if not view.is_default:
                    rows.append(TemplateUse(view.id, view.name, count, False, template_space(reader, view)))
                elif view.id in usage:
                    builtin[view.id] += count
        rows += [TemplateUse(d.id, d.name, builtin[d.id], True) for d in builtin_templates() if d.id in builtin]
        return sorted(rows, key=lambda r: (-r.usage_count, r.name.casefold(), r.id))

    def template(self, caller: Caller, template_id: str, *, bucket: str | None = None) -> TemplateOverTime:
        """A template's report (``SuggestionService.analytics``) and its suggestions shown and applied
        per period (NotFound for a template the user cannot see)."""
        chosen = _unit(bucket)
        report = self.suggestions.analytics(caller, template_id)
        found = report.analytics.template_id
        span = self.store.suggestion_span(caller.user, found)
        unit = chosen or automatic_unit(span)
        periods = period_starts(span, unit)
        counted = {c.bucket: c for c in self.store.suggestion_counts(caller.user, found, unit=unit)}
        over_time = AcceptanceOverTime(
            unit,
            tuple(periods),
            shown=tuple(counted[p].shown if p in counted else 0 for p in periods),
            applied=tuple(counted[p].applied if p in counted else 0 for p in periods),
        )
        return TemplateOverTime(report, over_time)


def automatic_unit(span: TimeSpan) -> TimeUnit:
    if span.first is None or span.last is None:
        return "week"
    days = (span.last.date() - span.first.date()).days
    return next((unit for limit, unit in AUTOMATIC if days <= limit), "year")


def period_start(day: date, unit: TimeUnit) -> date:
    """The first day of the period ``day`` falls in (weeks start on Monday)."""
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "year":
        return day.replace(month=1, day=1)
    return day


def next_period(start: date, unit: TimeUnit) -> date:
    if unit == "day":
        return start + timedelta(days=1)
    if unit == "week":
        return start + timedelta(days=7)
    if unit == "month":
        return date(start.year + start.month // 12, start.month % 12 + 1, 1)
    return date(start.year + 1, 1, 1)


def period_starts(span: TimeSpan, unit: TimeUnit) -> list[date]:
    """Every period from the first moment's to the last's (refused past ``MAX_PERIODS`` but for years)."""
    if span.first is None or span.last is None:
        return []
    last = period_start(span.last.date(), unit)
    out = [period_start(span.first.date(), unit)]
    while out[-1] < last:
        if len(out) >= MAX_PERIODS and unit != "year":
            coarser = ", ".join(UNITS[UNITS.index(unit) + 1 :])
            raise ValidationFailed.single(
                "bucket", "max", f"The data spans more than {MAX_PERIODS} periods of a {unit}; choose {coarser}.", unit
            )
        out.append(next_period(out[-1], unit))
    return out


def _series(
    counts: Iterable[MemoryCount], periods: Sequence[date], key: Callable[[MemoryCount], Kind]
) -> list[tuple[Kind, tuple[int, ...]]]:
    """One row per kind (by ``key``): its count in every period, the largest in all first; past
    ``MAX_SERIES`` kinds the rest are one row (kind ``OTHER``)."""
    place = {p: i for i, p in enumerate(periods)}
    rows: dict[Kind, list[int]] = defaultdict(lambda: [0] * len(periods))
    for count in counts:
        if count.bucket in place:  # a memory stored after the span was read waits for the next look
            rows[key(count)][place[count.bucket]] += count.count
    ordered: list[tuple[Kind, list[int]]] = sorted(rows.items(), key=lambda kv: (-sum(kv[1]), str(kv[0] or "")))
    if len(ordered) > MAX_SERIES:
        rest = [sum(column) for column in zip(*(v for _, v in ordered[MAX_SERIES - 1 :]), strict=True)]
        ordered[MAX_SERIES - 1 :] = [(OTHER, rest)]
    return [(k, tuple(v)) for k, v in ordered]


def _template_series(key: str | None, counts: tuple[int, ...], names: dict[str, str]) -> TemplateSeries:
    if key == OTHER:
        return TemplateSeries(counts, sum(counts), None, OTHER)
    return TemplateSeries(counts, sum(counts), key, _template_name(key, names))


def _template_name(template_id: str | None, names: dict[str, str]) -> str:
    if template_id is None:
        return NO_TEMPLATE
    return names.get(template_id, template_id)


def _joined(spans: Sequence[TimeSpan]) -> TimeSpan:
    """The span of several spaces' rows: all of them counted, from the first to the last."""
    firsts = [s.first for s in spans if s.first is not None]
    lasts = [s.last for s in spans if s.last is not None]
    return TimeSpan(sum(s.count for s in spans), min(firsts, default=None), max(lasts, default=None))


def _totals(span: TimeSpan, counts: Sequence[MemoryCount]) -> Totals:
    return Totals(
        memories=span.count,
        with_template=sum(c.count for c in counts if c.template_id),
        types=len({c.type for c in counts}),
        templates=len({c.template_id for c in counts if c.template_id}),
        first=span.first,
        last=span.last,
    )


def _moment(when: Any) -> MomentColumn:
    if when not in MOMENTS:
        raise ValidationFailed.single(
            "when", "options", "when is created (when stored) or occurred (when it happened).", when
        )
    return MOMENTS[when]


def _unit(bucket: Any) -> TimeUnit | None:
    if bucket is None:
        return None
    if bucket not in UNITS:
        raise ValidationFailed.single("bucket", "options", f"bucket is one of {', '.join(UNITS)}.", bucket)
    found: TimeUnit = bucket
    return found
