"""ISO 8601 dates and datetimes: parsing what users send, and the one stored form.

A date is stored as ``YYYY-MM-DD``. A datetime is stored in UTC as
``YYYY-MM-DDTHH:MM:SS.ffffffZ``: fixed width, so text order is time order in
the database's JSON filters. A datetime without an offset is taken as UTC; a
date given where a datetime is expected means its midnight UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from remember.clock import to_text
from remember.templates.limits import MAX_DATE_TEXT


def parse_date(value: object) -> date | None:
    """A date from a date, a datetime (its own calendar day) or an ISO 8601 string; else None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or len(value) > MAX_DATE_TEXT:
        return None
    text = value.strip()
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    moment = _parse_datetime_text(text)
    return moment.date() if moment is not None else None


def parse_datetime(value: object) -> datetime | None:
    """An aware UTC datetime from a datetime, a date or an ISO 8601 string; else None."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str) or len(value) > MAX_DATE_TEXT:
        return None
    moment = _parse_datetime_text(value.strip())
    return as_utc(moment) if moment is not None else None


def _parse_datetime_text(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
        as_utc(moment)  # an offset can push year 1 or 9999 out of range in UTC
    except (ValueError, OverflowError):
        return None
    return moment


def as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def format_date(value: date) -> str:
    return value.isoformat()


def format_datetime(value: datetime) -> str:
    return to_text(as_utc(value))
