"""Figures over time for the dashboard's analytics: memories per period by type and template, and a
template's suggestions shown and applied per period.

Each figure is one GROUP BY in the database over the period its moment falls in (the dialect's
``time_bucket``: day, week, month or year, in UTC), filtered by the user's key of an index, so
the rows that come back are one per period and kind, never one per memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from remember.models import MemoryCount, MomentColumn, SuggestionCount, TimeSpan, TimeUnit
from remember.store.sql.base import Sql

MOMENT_COLUMNS: tuple[MomentColumn, ...] = ("created_at", "occurred_at")
UNITS: tuple[TimeUnit, ...] = ("day", "week", "month", "year")

_LIVE = "user_id = ? AND deleted_at IS NULL AND trust <= ?"
_EVENTS = "user_id = ? AND template_id = ?"


class AnalyticsTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def memory_span(self, user_id: str, *, column: MomentColumn, max_trust: float) -> TimeSpan:
        """How many live memories within ``max_trust`` the user has, and their first and last ``column``."""
        moment = _column(column)
        with self.sql.reading() as s:
            row = s.one(f"SELECT count(*), min({moment}), max({moment}) FROM memories WHERE {_LIVE}",
                        (user_id, max_trust))  # fmt: skip
        return self._span(row)

    def memory_counts(
        self, user_id: str, *, column: MomentColumn, unit: TimeUnit, max_trust: float
    ) -> list[MemoryCount]:
        """The user's live memories within ``max_trust`` counted per period of ``column``, type and template."""
        bucket = self.sql.dialect.time_bucket(_column(column), _unit(unit))
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {bucket}, type, template_id, count(*) FROM memories WHERE {_LIVE} "
                "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                (user_id, max_trust),
            )
        return [MemoryCount(_day(b), t, tid, int(n)) for b, t, tid, n in rows]

    def suggestion_span(self, user_id: str, template_id: str) -> TimeSpan:
        """How many suggestion events the user's record holds for the template, and the first and last."""
        with self.sql.reading() as s:
            row = s.one(f"SELECT count(*), min(at), max(at) FROM suggestion_events WHERE {_EVENTS}",
                        (user_id, template_id))  # fmt: skip
        return self._span(row)

    def suggestion_counts(self, user_id: str, template_id: str, *, unit: TimeUnit) -> list[SuggestionCount]:
        """Per period: how often the template was suggested to the user, and applied by them."""
        bucket = self.sql.dialect.time_bucket("at", _unit(unit))
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {bucket}, count(*) FILTER (WHERE event = 'shown'), count(*) FILTER (WHERE event = 'applied') "
                f"FROM suggestion_events WHERE {_EVENTS} GROUP BY 1 ORDER BY 1",
                (user_id, template_id),
            )
        return [SuggestionCount(_day(b), int(shown), int(applied)) for b, shown, applied in rows]

    def _span(self, row: Sequence[Any] | None) -> TimeSpan:
        count, first, last = row if row else (0, None, None)
        return TimeSpan(int(count or 0), self.sql.dialect.from_optional_moment(first),
                        self.sql.dialect.from_optional_moment(last))  # fmt: skip


def _day(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def _column(column: str) -> str:
    """Only a known column name ever reaches the SQL."""
    if column not in MOMENT_COLUMNS:
        raise ValueError(f"not a moment column of memories: {column!r}")
    return column


def _unit(unit: str) -> str:
    if unit not in UNITS:
        raise ValueError(f"not a time unit: {unit!r}")
    return unit
