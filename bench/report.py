"""Percentiles and plain-text tables for benchmark output."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {"p50": float("nan"), "p95": float("nan"), "n": 0}

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"p50": statistics.median(ordered), "p95": at(0.95), "n": len(ordered)}


def timed(call: Callable[[T], object], items: Iterable[T]) -> dict[str, float]:
    """Percentiles of the milliseconds ``call`` takes on each of ``items``."""
    samples = []
    for item in items:
        started = time.perf_counter()
        call(item)
        samples.append((time.perf_counter() - started) * 1000)
    return percentiles(samples)


class Table:
    def __init__(self, title: str, columns: list[str]) -> None:
        self.title = title
        self.columns = columns
        self.rows: list[list[str]] = []

    def add(self, *cells: object) -> None:
        self.rows.append([_cell(c) for c in cells])

    def print(self) -> None:
        widths = [max(len(r[i]) for r in [self.columns, *self.rows]) for i in range(len(self.columns))]
        print(f"\n## {self.title}\n")
        print(" | ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=True)))
        print("-|-".join("-" * w for w in widths))
        for row in self.rows:
            print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)
