"""The time a query is about, read from its date words: "last Friday", "three weeks ago", "in March".

Only phrases that name a span of time are read; "when did..." names none (its
answer is a date, and the date words of every memory are indexed for that). The
span is relative to ``now``, the moment the question is asked. Search ranks the
memories that happened within it higher (docs/search.md says by how much it
pays).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

Span = tuple[datetime, datetime]

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "few": 3, "several": 3,
}  # fmt: skip
_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]  # fmt: skip
_COUNT = r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few|several)"
_UNIT = r"(day|week|month|year)s?"

_AGO = re.compile(rf"\b{_COUNT} {_UNIT} ago\b")
_PAST = re.compile(rf"\b(?:past|last) (?:{_COUNT} )?{_UNIT}\b")
_THIS = re.compile(rf"\bthis {_UNIT}\b")
_WEEKEND = re.compile(r"\b(?:last|past|this) weekend\b")
_WEEKDAY = re.compile(rf"\blast ({'|'.join(_WEEKDAYS)})\b")
_MONTH = re.compile(rf"\bin ({'|'.join(_MONTHS)})(?: (\d{{4}}))?\b")
_DAY_WORDS = re.compile(r"\b(yesterday|today|tonight|this morning)\b")


def span(query: str, now: datetime) -> Span | None:
    """The span of time ``query`` is about, or None when it names none."""
    q = " ".join(query.lower().split())
    for read in (_ago, _weekend, _weekday, _past, _this, _month, _day_word):
        found = read(q, now)
        if found is not None:
            return found
    return None


def _count(word: str | None) -> int:
    if word is None:
        return 1
    return int(word) if word.isdigit() else _NUMBERS[word]


def _ago(q: str, now: datetime) -> Span | None:
    m = _AGO.search(q)
    if m is None:
        return None
    days = _count(m.group(1)) * _DAYS[m.group(2)]
    slack = max(1.0, days * 0.25)  # "three weeks ago" is roughly, not exactly, 21 days
    centre = now - timedelta(days=days)
    return centre - timedelta(days=slack), centre + timedelta(days=slack)


def _past(q: str, now: datetime) -> Span | None:
    m = _PAST.search(q)
    if m is None:
        return None
    if m.group(1) is None and m.group(2) != "day":  # "last week": the calendar week before this one
        return _previous_unit(m.group(2), now)
    return now - timedelta(days=_count(m.group(1)) * _DAYS[m.group(2)]), now


def _previous_unit(unit: str, now: datetime) -> Span:
    start, _ = _current_unit(unit, now)
    if unit == "week":
        return start - timedelta(days=7), start
    if unit == "month":
        return (start - timedelta(days=1)).replace(day=1), start
    return start.replace(year=start.year - 1), start


def _current_unit(unit: str, now: datetime) -> Span:
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "day":
        return midnight, now
    if unit == "week":
        return midnight - timedelta(days=midnight.weekday()), now
    if unit == "month":
        return midnight.replace(day=1), now
    return midnight.replace(month=1, day=1), now


def _this(q: str, now: datetime) -> Span | None:
    m = _THIS.search(q)
    return None if m is None else _current_unit(m.group(1), now)


def _weekend(q: str, now: datetime) -> Span | None:
    if _WEEKEND.search(q) is None:
        return None
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    saturday = midnight - timedelta(days=(midnight.weekday() - 5) % 7 or 7)
    return saturday, saturday + timedelta(days=2)


def _weekday(q: str, now: datetime) -> Span | None:
    m = _WEEKDAY.search(q)
    if m is None:
        return None
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    day = midnight - timedelta(days=(midnight.weekday() - _WEEKDAYS.index(m.group(1))) % 7 or 7)
    return day, day + timedelta(days=1)


def _month(q: str, now: datetime) -> Span | None:
    m = _MONTH.search(q)
    if m is None:
        return None
    month = _MONTHS.index(m.group(1)) + 1
    year = int(m.group(2)) if m.group(2) else (now.year if month <= now.month else now.year - 1)
    start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
    return start, end


def _day_word(q: str, now: datetime) -> Span | None:
    m = _DAY_WORDS.search(q)
    if m is None:
        return None
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if m.group(1) == "yesterday":
        return midnight - timedelta(days=1), midnight
    return midnight, now
