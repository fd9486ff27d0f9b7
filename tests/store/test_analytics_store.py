"""The analytics queries of the store (store/sql/analytics.py) on both backends: counts per period."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from remember.models import HistoryEntry, Memory, MemoryCount, SuggestionCount, SuggestionEvent
from remember.store import Store

MONDAY = datetime(2026, 2, 2, 9, 30, tzinfo=UTC)  # a Monday


def memory(n: int, at: datetime, *, user: str = "alice", kind: str = "note", template: str | None = None,
           trust: float = 0.5, occurred: datetime | None = None) -> Memory:  # fmt: skip
    return Memory(
        id=f"m{n:04}", user_id=user, content=f"memory {n}", type=kind, weight=0.5, trust=trust,
        created_at=at, updated_at=at, occurred_at=occurred or at, template_id=template,
    )  # fmt: skip


@pytest.fixture
def seeded(store: Store) -> Store:
    rows = [
        memory(1, MONDAY, kind="note"),
        memory(2, MONDAY + timedelta(days=6, hours=14), kind="note"),  # Sunday 23:30: still week 1
        memory(3, MONDAY + timedelta(days=7), kind="book", template="builtin:book_review"),
        memory(4, MONDAY + timedelta(days=8), kind="book", template="builtin:book_review"),
        memory(5, MONDAY + timedelta(days=29), kind="meeting", template="tpl_meeting"),  # March
        memory(6, MONDAY + timedelta(days=8), kind="note", trust=0.9),  # above a 0.5 caller
        memory(7, MONDAY + timedelta(days=8), kind="note"),  # soon in the trash
        memory(8, MONDAY, user="bob", kind="secret"),
    ]
    store.memories.insert_many([(m, None) for m in rows])
    trashed = store.memories.get("alice", "m0007")
    assert trashed is not None
    gone = replace(trashed, deleted_at=MONDAY + timedelta(days=9), version=2)
    store.memories.replace(
        gone, expected_version=1, history=HistoryEntry("m0007", "alice", 1, "delete", {}, None, MONDAY)
    )
    return store


def test_memories_are_counted_per_week_type_and_template(seeded: Store) -> None:
    counts = seeded.analytics.memory_counts("alice", column="created_at", unit="week", max_trust=1.0)
    assert counts == [
        MemoryCount(date(2026, 2, 2), "note", None, 2),
        MemoryCount(date(2026, 2, 9), "book", "builtin:book_review", 2),
        MemoryCount(date(2026, 2, 9), "note", None, 1),
        MemoryCount(date(2026, 3, 2), "meeting", "tpl_meeting", 1),
    ]


def test_days_months_and_years_start_on_their_first_day(seeded: Store) -> None:
    def periods(unit: str) -> list[tuple[date, int]]:
        found = seeded.analytics.memory_counts("alice", column="created_at", unit=unit, max_trust=1.0)  # type: ignore[arg-type]
        totals: dict[date, int] = {}
        for c in found:
            totals[c.bucket] = totals.get(c.bucket, 0) + c.count
        return sorted(totals.items())

    assert periods("month") == [(date(2026, 2, 1), 5), (date(2026, 3, 1), 1)]
    assert periods("year") == [(date(2026, 1, 1), 6)]
    assert periods("day") == [
        (date(2026, 2, 2), 1), (date(2026, 2, 8), 1), (date(2026, 2, 9), 1), (date(2026, 2, 10), 2),
        (date(2026, 3, 3), 1),
    ]  # fmt: skip


def test_the_trust_level_the_trash_and_other_users_are_left_out(seeded: Store) -> None:
    low = seeded.analytics.memory_counts("alice", column="created_at", unit="year", max_trust=0.5)
    assert sum(c.count for c in low) == 5
    assert seeded.analytics.memory_span("alice", column="created_at", max_trust=0.5).count == 5
    full = seeded.analytics.memory_span("alice", column="created_at", max_trust=1.0)
    assert (full.count, full.first, full.last) == (6, MONDAY, MONDAY + timedelta(days=29))
    bob = seeded.analytics.memory_counts("bob", column="created_at", unit="week", max_trust=1.0)
    assert bob == [MemoryCount(date(2026, 2, 2), "secret", None, 1)]
    assert seeded.analytics.memory_counts("carol", column="created_at", unit="week", max_trust=1.0) == []
    assert seeded.analytics.memory_span("carol", column="created_at", max_trust=1.0).count == 0


def test_memories_are_counted_by_when_they_happened_too(store: Store) -> None:
    long_ago = datetime(1969, 7, 20, 20, 17, tzinfo=UTC)
    store.memories.insert_many([(memory(1, MONDAY, occurred=long_ago), None), (memory(2, MONDAY), None)])
    counts = store.analytics.memory_counts("alice", column="occurred_at", unit="month", max_trust=1.0)
    assert [(c.bucket, c.count) for c in counts] == [(date(1969, 7, 1), 1), (date(2026, 2, 1), 1)]
    span = store.analytics.memory_span("alice", column="occurred_at", max_trust=1.0)
    assert (span.first, span.last) == (long_ago, MONDAY)


def test_only_known_columns_and_units_reach_the_sql(store: Store) -> None:
    with pytest.raises(ValueError, match="moment column"):
        store.analytics.memory_counts("alice", column="content; DROP TABLE memories", unit="week", max_trust=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="time unit"):
        store.analytics.memory_counts("alice", column="created_at", unit="hour", max_trust=1.0)  # type: ignore[arg-type]


def test_suggestions_are_counted_per_period_shown_and_applied(store: Store) -> None:
    def event(template: str, kind: str, at: datetime) -> SuggestionEvent:
        return SuggestionEvent(template, kind, at, "m1")  # type: ignore[arg-type]

    store.suggestions.log("alice", [
        event("builtin:book_review", "shown", MONDAY),
        event("builtin:book_review", "shown", MONDAY + timedelta(days=1)),
        event("builtin:book_review", "applied", MONDAY + timedelta(days=1)),
        event("builtin:book_review", "shown", MONDAY + timedelta(days=15)),
        event("builtin:meeting_notes", "shown", MONDAY),
    ])  # fmt: skip
    store.suggestions.log("bob", [event("builtin:book_review", "applied", MONDAY)])
    counts = store.analytics.suggestion_counts("alice", "builtin:book_review", unit="week")
    assert counts == [SuggestionCount(date(2026, 2, 2), 2, 1), SuggestionCount(date(2026, 2, 16), 1, 0)]
    span = store.analytics.suggestion_span("alice", "builtin:book_review")
    assert (span.count, span.first, span.last) == (4, MONDAY, MONDAY + timedelta(days=15))
    assert store.analytics.suggestion_counts("carol", "builtin:book_review", unit="day") == []
    assert store.analytics.suggestion_span("carol", "builtin:book_review").count == 0
