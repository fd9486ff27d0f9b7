"""Each template's suggestion totals per user, kept beside the events they count.

A suggestion reads the user's totals for every template it scores (``templates/suggest/learning.py``),
and a create logs the suggestions it showed, so the record grows with every create. The totals are
moved in the transaction that appends the events, by what those events add: reading them costs
the same however long the record is. What they hold is what ``FROM_EVENTS`` counts over the whole
record (the migration step that adds them runs it once), and only that:

- ``shown``, ``applied``: the template's events of each kind; ``last_applied``: its latest applied;
- ``ignored``: its shown events for a memory the user gave another template. Appending an event
  can change that count only for the memories the appended events name, so those memories are
  counted before and after the append, and the difference is added.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from remember.models import SuggestionEvent, SuggestionStats
from remember.store.sql.dialect import chunks
from remember.store.sql.session import Session

CHUNK = 500  # memory ids per statement (an import appends many events at once)

# A shown event is ignored when another template was applied to its memory.
_IGNORED = (
    "e.event = 'shown' AND EXISTS (SELECT 1 FROM suggestion_events a WHERE a.user_id = e.user_id "
    "AND a.event = 'applied' AND a.memory_id = e.memory_id AND a.template_id <> e.template_id)"
)
FROM_EVENTS = (
    "SELECT e.user_id, e.template_id, count(*) FILTER (WHERE e.event = 'shown'), "
    "count(*) FILTER (WHERE e.event = 'applied'), max(e.at) FILTER (WHERE e.event = 'applied'), "
    f"count(*) FILTER (WHERE {_IGNORED}) "
    "FROM suggestion_events e GROUP BY e.user_id, e.template_id"
)
_ADD = (
    "INSERT INTO suggestion_totals (user_id, template_id, shown, applied, last_applied, ignored) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, template_id) DO UPDATE SET "
    "shown = suggestion_totals.shown + excluded.shown, applied = suggestion_totals.applied + excluded.applied, "
    "last_applied = CASE WHEN suggestion_totals.last_applied IS NULL "
    "OR excluded.last_applied > suggestion_totals.last_applied "
    "THEN excluded.last_applied ELSE suggestion_totals.last_applied END, "
    "ignored = suggestion_totals.ignored + excluded.ignored"
)
_READ = "SELECT template_id, shown, applied, last_applied, ignored FROM suggestion_totals WHERE user_id = ?"


def read(s: Session, user_id: str) -> dict[str, SuggestionStats]:
    """Per template id, the user's totals."""
    from_moment = s.dialect.from_optional_moment
    return {
        tid: SuggestionStats(tid, int(shown), int(applied), from_moment(last), int(ignored))
        for tid, shown, applied, last, ignored in s.all(_READ, (user_id,))
    }


def ignored_of(s: Session, user_id: str, memory_ids: Sequence[str]) -> Counter[str]:
    """Per template id, how many of its shown events for these memories are ignored (counted here rather than
    grouped in SQL, which would have SQLite walk the user's events in template order)."""
    found: Counter[str] = Counter()
    for part in chunks(memory_ids, CHUNK):
        params: list[Any] = [user_id]
        among = s.any_of("e.memory_id", part, params)
        rows = s.all(
            f"SELECT e.template_id FROM suggestion_events e WHERE e.user_id = ? AND {among} AND {_IGNORED}", params
        )
        found.update(tid for (tid,) in rows)
    return found


def add(s: Session, user_id: str, events: Sequence[SuggestionEvent], ignored: Counter[str]) -> None:
    """Add to the user's totals what ``events`` count and the change ``ignored`` of the shown events ignored."""
    shown: Counter[str] = Counter(e.template_id for e in events if e.event == "shown")
    applied: Counter[str] = Counter(e.template_id for e in events if e.event == "applied")
    last: dict[str, Any] = {}
    for e in events:
        if e.event == "applied":
            moment = s.dialect.moment(e.at)  # compared as the column compares them, as max() did
            last[e.template_id] = moment if e.template_id not in last else max(last[e.template_id], moment)
    templates = sorted({*shown, *applied, *(t for t, n in ignored.items() if n)})
    s.many(_ADD, [(user_id, t, shown[t], applied[t], last.get(t), ignored[t]) for t in templates])


def backfill(s: Session) -> None:
    """Count every user's totals from their whole record (the migration step that adds the table)."""
    s.run("INSERT INTO suggestion_totals (user_id, template_id, shown, applied, last_applied, ignored) " + FROM_EVENTS)
