"""What the expression language's values mean: truth, equality, order, bounds.

Values are None (null), bool, int, float, str, date, datetime, list and dict.
Booleans are never numbers (``true == 1`` is false). A string is read as a date
or datetime only when compared with one. Any misuse raises ``EvalError``,
which the evaluator turns into null: a formula never crashes validation.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any

from remember.templates.dates import as_utc, parse_datetime
from remember.templates.limits import MAX_EXPRESSION_NUMBER, MAX_EXPRESSION_STRING


class EvalError(Exception):
    """A formula met values it cannot work on; never leaves the evaluator."""


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def number(value: object, what: str) -> float | int:
    if not is_number(value):
        raise EvalError(f"{what} needs a number, got {type_name(value)}")
    assert isinstance(value, int | float)
    return value


def checked(value: Any) -> Any:
    """Refuse results outside the bounds, so no formula can build huge numbers or strings."""
    if isinstance(value, float) and (math.isnan(value) or abs(value) > MAX_EXPRESSION_NUMBER):
        raise EvalError("the result is too large")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXPRESSION_NUMBER:
        raise EvalError("the result is too large")
    if isinstance(value, str) and len(value) > MAX_EXPRESSION_STRING:
        raise EvalError("the text is too long")
    return value


def truthy(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if is_number(value):
        return value != 0
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def temporal(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        return parse_datetime(value)
    return None


def _is_temporal(value: object) -> bool:
    return isinstance(value, date)  # datetime is a date too


def equal(left: object, right: object) -> bool:
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if is_number(left) and is_number(right):
        return left == right
    if _is_temporal(left) or _is_temporal(right):
        a, b = temporal(left), temporal(right)
        return a is not None and a == b
    return left == right


def less(left: object, right: object) -> bool:
    """``left < right`` for two numbers, two strings or two moments; anything else is an error."""
    if is_number(left) and is_number(right):
        return bool(left < right)  # type: ignore[operator]
    if isinstance(left, str) and isinstance(right, str):
        return left < right
    if _is_temporal(left) or _is_temporal(right):
        a, b = temporal(left), temporal(right)
        if a is not None and b is not None:
            return a < b
    raise EvalError(f"cannot order {type_name(left)} and {type_name(right)}")


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if is_number(value):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, date):
        return "a date"
    if isinstance(value, list):
        return "a list"
    return "an object"
