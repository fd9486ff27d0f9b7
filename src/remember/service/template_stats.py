"""Template analytics: how a template is used, how complete and compliant its memories are."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from remember.clock import to_text
from remember.models import Memory, TemplateUsage
from remember.templates import ResolvedTemplate, validate_content

TOP_VALUES = 5
# How complete the memories are, in bands: the last holds only the memories with every field filled.
COMPLETION_BANDS = (("0-24%", 0.0), ("25-49%", 0.25), ("50-74%", 0.5), ("75-99%", 0.75), ("100%", 1.0))


@dataclass
class FieldStats:
    filled: int = 0
    values: Counter[str] = field(default_factory=Counter)
    numbers: list[float] = field(default_factory=list)

    def as_dict(self, total: int) -> dict[str, Any]:
        out: dict[str, Any] = {"filled": self.filled, "fill_rate": self.filled / total if total else 0.0}
        if self.numbers:
            out |= {
                "min": min(self.numbers),
                "max": max(self.numbers),
                "average": sum(self.numbers) / len(self.numbers),
            }
        return out


def analytics(
    resolved: ResolvedTemplate, usage: TemplateUsage, memories: Sequence[Memory], *, now: Any
) -> dict[str, Any]:
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
    return {
        "template_id": resolved.id,
        "name": resolved.name,
        "version": resolved.version,
        "usage_count": usage.usage_count,
        "last_used": to_text(usage.last_used) if usage.last_used else None,
        "memory_count": total,
        "average_completion_rate": sum(completions) / total if total else None,
        "compliance_rate": compliant / total if total else None,
        "completion_distribution": completion_distribution(completions),
        "most_common_values": {
            name: [{"value": json.loads(v), "count": c} for v, c in s.values.most_common(TOP_VALUES)]
            for name, s in stats.items()
            if s.values
        },
        "field_usage_statistics": {name: s.as_dict(total) for name, s in stats.items()},
    }


def completion_distribution(completions: Sequence[float]) -> list[dict[str, Any]]:
    """How many memories fall in each band of ``COMPLETION_BANDS``."""
    counts = [0] * len(COMPLETION_BANDS)
    for completion in completions:
        band = max(i for i, (_, low) in enumerate(COMPLETION_BANDS) if completion >= low)
        counts[band] += 1
    return [{"band": label, "count": n} for (label, _), n in zip(COMPLETION_BANDS, counts, strict=True)]


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
