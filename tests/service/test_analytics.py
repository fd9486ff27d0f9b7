"""AnalyticsService over a real database: memories over time, a template's figures and acceptance over time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed
from remember.service import Services
from remember.service.analytics_results import AcceptanceOverTime, TemplateSeries, Totals, TypeSeries
from remember.store import Store

ALICE, BOB = "alice", "bob"
MONDAY = datetime(2026, 2, 2, 10, 0, tzinfo=UTC)
RECIPE: dict[str, Any] = {
    "template_name": "Recipe",
    "fields": [
        {"name": "dish", "type": "string", "required": True},
        {"name": "cuisine", "type": "string"},
        {"name": "minutes", "type": "integer"},
    ],
    "auto_apply": True,
    "trigger_keywords": ["recipe", "cooked"],
}


class Clock:
    def __init__(self) -> None:
        self.now = MONDAY

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def timed(store: Store, clock: Clock) -> Services:
    return Services.over(store, clock)


def remember_on(services: Services, clock: Clock, day: int, user: str = ALICE, **fields: Any) -> Any:
    clock.now = MONDAY + timedelta(days=day)
    return services.memories.create(Caller(user), {"content": f"memory of day {day}", **fields})


def test_the_overview_counts_memories_per_week_by_type_and_template(timed: Services, clock: Clock) -> None:
    recipe = timed.templates.create(Caller(ALICE), RECIPE).id
    remember_on(timed, clock, 0, type="note")
    remember_on(timed, clock, 1, type="note")
    remember_on(timed, clock, 15, template_id=recipe, structured_content={"dish": "Dal", "cuisine": "Indian"})
    remember_on(timed, clock, 16, type="idea", trust=0.9)
    remember_on(timed, clock, 3, user=BOB, type="secret")
    found = timed.analytics.overview(Caller(ALICE), bucket="week")
    assert (found.bucket, found.when) == ("week", "created")
    assert found.periods == (date(2026, 2, 2), date(2026, 2, 9), date(2026, 2, 16))
    assert found.by_type == (
        TypeSeries(type="note", counts=(2, 0, 0), total=2),
        TypeSeries(type="idea", counts=(0, 0, 1), total=1),
        TypeSeries(type="recipe", counts=(0, 0, 1), total=1),
    )
    assert found.by_template == (
        TemplateSeries(template_id=None, name="(no template)", counts=(2, 0, 1), total=3),
        TemplateSeries(template_id=recipe, name="Recipe", counts=(0, 0, 1), total=1),
    )
    assert found.totals == Totals(
        memories=4, with_template=1, types=3, templates=1,
        first=datetime(2026, 2, 2, 10, 0, tzinfo=UTC), last=datetime(2026, 2, 18, 10, 0, tzinfo=UTC),
    )  # fmt: skip
    assert timed.analytics.overview(Caller(ALICE, 0.5)).totals.memories == 3
    assert [row.type for row in timed.analytics.overview(Caller(BOB)).by_type] == ["secret"]
    assert timed.analytics.overview(Caller(ALICE)).bucket == "day"  # 16 days: one bar a day


def test_the_period_follows_the_span_unless_asked(timed: Services, clock: Clock) -> None:
    assert timed.analytics.overview(Caller(ALICE)).periods == ()
    remember_on(timed, clock, 0)
    remember_on(timed, clock, 10)
    assert timed.analytics.overview(Caller(ALICE)).bucket == "day"
    assert len(timed.analytics.overview(Caller(ALICE)).periods) == 11
    monthly = timed.analytics.overview(Caller(ALICE), bucket="month")
    assert (monthly.periods, monthly.by_type[0].counts) == ((date(2026, 2, 1),), (2,))
    remember_on(timed, clock, 400)
    assert timed.analytics.overview(Caller(ALICE)).bucket == "week"
    remember_on(timed, clock, 800)
    assert timed.analytics.overview(Caller(ALICE)).bucket == "month"
    happened = timed.analytics.overview(Caller(ALICE), when="occurred", bucket="year")
    assert happened.periods == (date(2026, 1, 1), date(2027, 1, 1), date(2028, 1, 1))


def test_many_kinds_are_drawn_as_the_largest_and_the_others(timed: Services, clock: Clock) -> None:
    for n in range(14):
        for _ in range(14 - n):
            remember_on(timed, clock, 0, type=f"kind{n:02}", content=f"memory {n} {_}")
    rows = timed.analytics.overview(Caller(ALICE)).by_type
    assert [r.type for r in rows] == [*(f"kind{n:02}" for n in range(11)), "(others)"]
    assert rows[-1].total == 3 + 2 + 1


@pytest.mark.parametrize(
    ("options", "field", "says"),
    [
        ({"bucket": "hour"}, "bucket", "bucket is one of day, week, month, year"),
        ({"bucket": ["week"]}, "bucket", "bucket is one of"),
        ({"when": "updated"}, "when", "when is created (when stored) or occurred"),
    ],
)
def test_a_bad_option_is_refused_with_the_fix(timed: Services, options: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(ValidationFailed, match=r"bucket|when") as raised:
        timed.analytics.overview(Caller(ALICE), **options)
    assert raised.value.errors[0].field == field and says in raised.value.message


def test_too_many_periods_asks_for_a_longer_bucket(timed: Services, clock: Clock) -> None:
    remember_on(timed, clock, 0, context={"timestamp": "1900-01-01"})
    remember_on(timed, clock, 1)
    with pytest.raises(ValidationFailed, match="more than 1000 periods of a day; choose week, month, year"):
        timed.analytics.overview(Caller(ALICE), when="occurred", bucket="day")
    assert timed.analytics.overview(Caller(ALICE), when="occurred").bucket == "year"


def test_a_template_has_its_completion_and_acceptance_over_time(timed: Services, clock: Clock) -> None:
    recipe = timed.templates.create(Caller(ALICE), RECIPE).id
    remember_on(timed, clock, 0, template_id=recipe, structured_content={"dish": "Dal"})
    remember_on(timed, clock, 1, template_id=recipe, structured_content={"dish": "Pho", "cuisine": "Vietnamese",
                                                                         "minutes": 40})  # fmt: skip
    clock.now = MONDAY
    timed.suggestions.suggest(Caller(ALICE), "I cooked a recipe for dal")
    clock.now = MONDAY + timedelta(days=14)
    timed.suggestions.suggest(Caller(ALICE), "another recipe I cooked")
    plain = remember_on(timed, clock, 14, content="I cooked soup from a recipe", type="note")
    timed.applier.apply_template(Caller(ALICE), plain.id, recipe, {"dish": "Soup"})
    found = timed.analytics.template(Caller(ALICE), recipe)
    figures = found.report.analytics
    assert figures.memory_count == 3
    assert figures.field_usage_statistics["cuisine"].fill_rate == pytest.approx(1 / 3)
    assert [b.count for b in figures.completion_distribution] == [0, 2, 0, 0, 1]
    assert found.acceptance_over_time == AcceptanceOverTime(
        bucket="day", periods=tuple((MONDAY + timedelta(days=d)).date() for d in range(15)),
        shown=(1,) + (0,) * 13 + (1,), applied=(0,) * 14 + (1,),
    )  # fmt: skip
    weekly = timed.analytics.template(Caller(ALICE), recipe, bucket="week").acceptance_over_time
    assert (weekly.shown, weekly.applied) == ((1, 0, 1), (0, 0, 1))


def test_another_users_template_is_unknown(timed: Services) -> None:
    recipe = timed.templates.create(Caller(ALICE), RECIPE).id
    with pytest.raises(NotFound):
        timed.analytics.template(Caller(BOB), recipe)
    builtin = timed.analytics.template(Caller(BOB), "builtin:book_review")
    assert builtin.report.analytics.memory_count == 0 and builtin.acceptance_over_time.periods == ()
