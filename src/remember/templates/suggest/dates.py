"""Dates said in the content, read relative to ``now``: "yesterday", "last Friday", "on March 3rd".

Each date comes with its tense relative to today (``past``, ``today``,
``future``), which decides the fields it may fill. Forms read:

- ISO dates: ``2026-02-10``;
- ``today``, ``tonight``, ``this morning/afternoon/evening``, ``yesterday``,
  ``last night``, ``tomorrow``, ``TIL`` (today I learned);
- ``3 days ago``, ``a week ago``, ``two weeks ago``;
- ``last Friday`` (the most recent Friday before today);
- ``by Friday``, ``due Friday``, ``before Friday``, ``until Friday`` (the next Friday after today),
  and the same with ``Monday`` ... ``Sunday``;
- ``March 3``, ``March 3rd, 2026``, ``3 March``, ``the 3rd of March`` (the month
  capitalised): with a year as written, without one the occurrence nearest to today.

Not read, because the meaning is not clear: ``next Friday`` (this week's or
next week's?), a bare ``Friday`` or ``on Friday`` (past or coming?), ``last
week``, ``3/4`` (March 4 or April 3?).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")  # fmt: skip
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

# Month names must be capitalised: "I may 5 times" is not a date.
_MONTH = r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|" \
         r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"  # fmt: skip
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_RELATIVE = re.compile(
    r"\b(today|tonight|this (?:morning|afternoon|evening)|yesterday|last night|tomorrow)\b|(?-i:\b(TIL)\b)", re.I
)
_AGO = re.compile(r"\b(\d{1,3}|an?|one|two|three|four|five|six|seven) (day|week)s? ago\b", re.I)
_LAST_DAY = re.compile(rf"\blast ({'|'.join(DAYS)})\b", re.I)
_COMING_DAY = re.compile(rf"\b(?:by|due|before|until|till) ({'|'.join(DAYS)})\b", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.? {_DAY}\b(?:,? (\d{{4}})\b)?")
_DAY_MONTH = re.compile(rf"\b(?:the )?{_DAY} (?:of )?{_MONTH}\b(?:,? (\d{{4}})\b)?")
_OFFSETS = {"today": 0, "tonight": 0, "yesterday": -1, "last night": -1, "tomorrow": 1}


@dataclass(frozen=True)
class SaidDate:
    """A date found in the content and its tense relative to today."""

    value: date
    tense: str  # "past", "today" or "future"
    start: int = 0  # where it was said, and where it ends
    end: int = 0
    has_year: bool = False  # the year was written (an ISO date, "3 March 2025")


def find_dates(text: str, today: date) -> list[SaidDate]:
    """Every distinct date the text states clearly, in order of appearance."""
    found: list[tuple[re.Match[str], date, bool]] = []
    for match in _ISO.finditer(text):
        found.extend(_at(match, _safe_date(*map(int, match.groups())), True))
    for match in _RELATIVE.finditer(text):
        word = (match.group(1) or "today").lower()
        found.append((match, today + timedelta(days=_OFFSETS.get(word, 0)), False))
    for match in _AGO.finditer(text):
        count = int(match.group(1)) if match.group(1).isdigit() else NUMBER_WORDS[match.group(1).lower()]
        found.append((match, today - timedelta(days=count * (7 if match.group(2) == "week" else 1)), False))
    for match in _LAST_DAY.finditer(text):
        back = (today.weekday() - DAYS.index(match.group(1).lower())) % 7 or 7
        found.append((match, today - timedelta(days=back), False))
    for match in _COMING_DAY.finditer(text):
        ahead = (DAYS.index(match.group(1).lower()) - today.weekday()) % 7 or 7
        found.append((match, today + timedelta(days=ahead), False))
    for match in _MONTH_DAY.finditer(text):
        found.extend(_at(match, _calendar(match.group(1), match.group(2), match.group(3), today), bool(match.group(3))))
    for match in _DAY_MONTH.finditer(text):
        found.extend(_at(match, _calendar(match.group(2), match.group(1), match.group(3), today), bool(match.group(3))))
    distinct: dict[date, SaidDate] = {}
    for match, value, has_year in sorted(found, key=lambda item: item[0].start()):
        if value not in distinct:
            distinct[value] = SaidDate(value, _tense(value, today), match.start(), match.end(), has_year)
    return list(distinct.values())


def _calendar(month_name: str, day_text: str, year_text: str | None, today: date) -> date | None:
    month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(month_name.lower()[:3]))
    day = int(day_text)
    if year_text:
        return _safe_date(int(year_text), month, day)
    candidates = [d for y in (today.year - 1, today.year, today.year + 1) if (d := _safe_date(y, month, day))]
    return min(candidates, key=lambda d: abs((d - today).days), default=None)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _at(match: re.Match[str], value: date | None, has_year: bool) -> list[tuple[re.Match[str], date, bool]]:
    return [(match, value, has_year)] if value is not None else []


def _tense(value: date, today: date) -> str:
    if value == today:
        return "today"
    return "past" if value < today else "future"
