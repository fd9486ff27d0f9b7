"""The coercion policy: which JSON values each scalar type accepts, and its stored form.

- string, text: JSON strings only.
- number: JSON numbers (not booleans), finite; integers within 64 bits.
- integer: whole numbers; a float with no fraction (``5.0``) becomes ``5``.
- boolean: ``true`` or ``false`` only.
- date: an ISO 8601 date (a datetime is cut to its date); stored ``YYYY-MM-DD``.
- datetime: an ISO 8601 datetime or date, taken as UTC without an offset; stored
  ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC.
- enum: exactly one of the options (no case folding).

Strings are never turned into numbers or booleans: the exported JSON Schema
says exactly what is accepted, and a model gets a clear error to correct.
"""

from __future__ import annotations

import math
from typing import Any

from remember.templates.dates import format_date, format_datetime, parse_date, parse_datetime
from remember.templates.limits import MAX_INTEGER


class Refused(Exception):
    """The value does not have the field's type; the message says what was expected."""


def coerce(kind: str, value: Any) -> Any:
    return _COERCERS[kind](value)


def describe(value: object) -> str:
    """A short description of a refused value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"text {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _text(value: Any) -> Any:
    if isinstance(value, str):
        return value
    raise Refused("text")


def _number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refused("a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise Refused("a finite number")
    if isinstance(value, int) and abs(value) > MAX_INTEGER:
        raise Refused("a number within 64 bits")
    return value


def _integer(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused("a whole number")
    if abs(value) > MAX_INTEGER:
        raise Refused("a whole number within 64 bits")
    return value


def _boolean(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    raise Refused("true or false")


def _date(value: Any) -> Any:
    parsed = parse_date(value)
    if parsed is None:
        raise Refused("an ISO 8601 date like 2026-02-10")
    return format_date(parsed)


def _datetime(value: Any) -> Any:
    parsed = parse_datetime(value)
    if parsed is None:
        raise Refused("an ISO 8601 datetime like 2026-02-10T14:30:00Z")
    return format_datetime(parsed)


def _any_scalar(value: Any) -> Any:
    if isinstance(value, str | int | float) and not (isinstance(value, float) and not math.isfinite(value)):
        return value
    raise Refused("one of the options")


_COERCERS = {
    "string": _text,
    "text": _text,
    "number": _number,
    "integer": _integer,
    "boolean": _boolean,
    "date": _date,
    "datetime": _datetime,
    "enum": _any_scalar,
}
