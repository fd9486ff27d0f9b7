"""Time in one place: aware UTC datetimes and their one text form.

Stored timestamps are ISO 8601 in UTC with microseconds and a ``Z``
(``2026-12-02T18:16:27.123456Z``): fixed width, so text order is time order in
SQLite. Input accepts any ISO 8601 date or datetime; a date means its midnight
UTC and a datetime without an offset is taken as UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from remember.errors import excerpt

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def to_text(moment: datetime) -> str:
    """The canonical stored form of ``moment`` (converted to UTC).

    ``isoformat`` rather than ``strftime("%Y")``: glibc does not zero-pad years
    before 1000, and the form must stay fixed width for text order to be time order.
    """
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def from_text(text: str) -> datetime:
    """Parse the canonical stored form (or any ISO 8601 datetime) back."""
    return parse_moment(text)


def parse_moment(value: str | datetime | date) -> datetime:
    """Parse an ISO 8601 date or datetime into an aware UTC datetime.

    Raises ``ValueError`` with a message that shows the accepted forms.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO 8601 date or datetime text, not {type(value).__name__}")
    text = value.strip()
    try:
        if len(text) == 10:
            return parse_moment(date.fromisoformat(text))
        return parse_moment(datetime.fromisoformat(text))
    except (ValueError, OverflowError):  # an offset can push year 1 or 9999 out of range in UTC
        raise ValueError(
            f"{excerpt(value)} is not an ISO 8601 date or datetime; "
            "use forms like '2026-02-10' or '2026-02-10T14:30:00Z'"
        ) from None
