"""Every year from 0001 to 9999 is stored, sorted and filtered right, on both backends."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remember.caller import Caller
from remember.clock import from_text, to_text
from remember.service import Services

# A day's margin at both ends: an offset may not push a moment out of the years datetime can hold.
DAYS = st.dates(min_value=date(1, 1, 2), max_value=date(9999, 12, 30))
MOMENTS = st.builds(
    lambda d, t: datetime.combine(d, t, tzinfo=UTC), DAYS, st.times().map(lambda t: t.replace(tzinfo=None))
)
USERS = itertools.count()
SPAN = {
    "template_name": "Span",
    "fields": [
        {"name": "name", "type": "string", "required": True},
        {"name": "began", "type": "date", "required": True},
        {"name": "ended", "type": "datetime", "required": True},
        {"name": "days", "type": "computed", "formula": "date_diff(ended, began)"},
        {"name": "label", "type": "computed", "formula": "concat(name, ' ', began)"},
    ],
}


def test_the_stored_form_is_fixed_width_for_every_year() -> None:
    assert to_text(datetime(999, 5, 1, tzinfo=UTC)) == "0999-05-01T00:00:00.000000Z"
    assert to_text(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000000Z"
    assert from_text("0001-01-01T00:00:00.000000Z") == datetime(1, 1, 1, tzinfo=UTC)


@given(st.lists(MOMENTS, min_size=2, max_size=4, unique=True), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_moments_of_any_year_round_trip_sort_and_filter(
    services: Services, moments: list[datetime], data: st.DataObject
) -> None:
    user = f"u{next(USERS)}"
    ids = {
        services.memories.create(Caller(user), {"content": "then", "context": {"timestamp": to_text(m)}}).id: m
        for m in moments
    }
    assert {i: services.memories.get(Caller(user), i).occurred_at for i in ids} == ids
    page = services.memories.list(Caller(user), sort_by="occurred_at", sort_order="asc", limit=10)
    assert [m.occurred_at for m in page.items] == sorted(moments)
    pivot = data.draw(st.sampled_from(moments))
    after = services.memories.list(Caller(user), filters={"context.timestamp": {"gte": pivot.isoformat()}}, limit=10)
    assert sorted(m.occurred_at for m in after.items) == sorted(m for m in moments if m >= pivot)


@given(DAYS, MOMENTS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_template_dates_of_any_year_are_kept_and_computed_from(
    services: Services, began: date, ended: datetime
) -> None:
    user = f"u{next(USERS)}"
    span = services.templates.create(Caller(user), SPAN).id
    content = {"name": "era", "began": began.isoformat(), "ended": ended.isoformat()}
    memory = services.memories.create(Caller(user), {"template_id": span, "structured_content": content})
    stored = memory.structured_content or {}
    assert (stored["began"], stored["ended"]) == (began.isoformat(), to_text(ended))
    began_at = datetime.combine(began, time(), tzinfo=UTC)
    assert stored["days"] == int((ended - began_at).total_seconds() / 86400)
    assert stored["label"] == f"era {began.isoformat()}"
    found = services.memories.list(
        Caller(user), filters={"structured_content.began": {"lte": began.isoformat()}}, limit=5
    )
    assert [m.id for m in found.items] == [memory.id]
    later = services.memories.list(Caller(user), filters={"structured_content.ended": {"gt": to_text(ended)}}, limit=5)
    assert later.items == ()
