"""Template analytics: how a template is used, how complete and compliant its memories are."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from remember.clock import to_text
from remember.jsontypes import JsonValue
from remember.models import Memory, TemplateUsage, fields_as_json
from remember.templates import ResolvedTemplate, validate_content

TOP_VALUES = 5
# How complete the memories are, in bands: the last holds only the memories with every field filled.
COMPLETION_BANDS = (("0-24%", 0.0), ("25-49%", 0.25), ("50-74%", 0.5), ("75-99%", 0.75), ("100%", 1.0))

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class NumberSummary:
    """The range and mean of the numbers one field holds."""

    min: float
    max: float
    average: float


@dataclass(frozen=True)
class FieldUsage:
    """How many memories fill one field, and the range of its numbers when it holds any."""

    filled: int
    fill_rate: float
    numbers: NumberSummary | None = None

    def as_dict(self) -> dict[str, JsonValue]:
        numbers = fields_as_json(self.numbers) if self.numbers is not None else {}
        return {"filled": self.filled, "fill_rate": self.fill_rate, **numbers}


@dataclass(frozen=True)
class CommonValue:
    """A value of a field (an item of it, for a list) and how many memories hold it."""

    value: Scalar
    count: int


@dataclass(frozen=True)
class CompletionBand:
    """How many memories fill a band (``COMPLETION_BANDS``) of the template's fields."""

    band: str
    count: int


@dataclass(frozen=True)
class TemplateAnalytics:
    """Figures over the live memories made with a template; the rates are None when there are none."""

    template_id: str
    name: str
    version: str
    usage_count: int
    last_used: datetime | None
    memory_count: int
    average_completion_rate: float | None
    compliance_rate: float | None
    completion_distribution: tuple[CompletionBand, ...]
    most_common_values: Mapping[str, tuple[CommonValue, ...]]  # only the fields with values
    field_usage_statistics: Mapping[str, FieldUsage]  # every top-level field, in the template's order

    def as_dict(self) -> dict[str, JsonValue]:
        """The JSON the edges answer (``remember_template_analytics``, the dashboard, the CLI)."""
        return {
            **fields_as_json(self),
            "last_used": to_text(self.last_used) if self.last_used else None,
            "field_usage_statistics": {name: s.as_dict() for name, s in self.field_usage_statistics.items()},
        }


@dataclass
class FieldStats:
    """What the memories hold in one field, counted as they are read."""

    filled: int = 0
    values: Counter[str] = field(default_factory=Counter)
    numbers: list[float] = field(default_factory=list)

    def usage(self, total: int) -> FieldUsage:
        numbers = self.numbers
        summary = NumberSummary(min(numbers), max(numbers), sum(numbers) / len(numbers)) if numbers else None
        return FieldUsage(self.filled, self.filled / total if total else 0.0, summary)

    def most_common(self) -> tuple[CommonValue, ...]:
        return tuple(CommonValue(json.loads(v), c) for v, c in self.values.most_common(TOP_VALUES))


def analytics(
    resolved: ResolvedTemplate, usage: TemplateUsage, memories: Sequence[Memory], *, now: Any
) -> TemplateAnalytics:
    """Figures over the live (not deleted) memories made with the template."""
    stats = {f.name: FieldStats() for f in resolved.fields}
    completions: list[float] = []
    compliant = 0
    for memory in memories:
        content = memory.structured_content or {}
        completions.append(validate_content(resolved, content, now=now).completion)
        compliant += bool(memory.template_compliance)
        for name, value in content.items():
            if name in stats and not _empty(value):
                _count(stats[name], value)
    total = len(memories)
    return TemplateAnalytics(
        template_id=resolved.id,
        name=resolved.name,
        version=resolved.version,
        usage_count=usage.usage_count,
        last_used=usage.last_used,
        memory_count=total,
        average_completion_rate=sum(completions) / total if total else None,
        compliance_rate=compliant / total if total else None,
        completion_distribution=completion_distribution(completions),
        most_common_values={name: s.most_common() for name, s in stats.items() if s.values},
        field_usage_statistics={name: s.usage(total) for name, s in stats.items()},
    )


def completion_distribution(completions: Sequence[float]) -> tuple[CompletionBand, ...]:
    """How many memories fall in each band of ``COMPLETION_BANDS``."""
    counts = [0] * len(COMPLETION_BANDS)
    for completion in completions:
        band = max(i for i, (_, low) in enumerate(COMPLETION_BANDS) if completion >= low)
        counts[band] += 1
    return tuple(CompletionBand(label, n) for (label, _), n in zip(COMPLETION_BANDS, counts, strict=True))


def _count(stats: FieldStats, value: Any) -> None:
    stats.filled += 1
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, Mapping | list):
            continue
        stats.values[json.dumps(item)] += 1
        if isinstance(item, int | float) and not isinstance(item, bool):
            stats.numbers.append(float(item))


def _empty(value: Any) -> bool:
    return value is None or value in ("", [], {})
