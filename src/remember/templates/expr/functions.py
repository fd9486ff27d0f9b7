"""The functions an expression may call, and nothing else.

Each takes already-evaluated arguments (``if`` and ``coalesce`` are lazy, and
``now`` and ``today`` read the evaluation clock: those live in the evaluator).
Units of ``date_diff``: seconds, minutes, hours, days (the default), weeks,
months, years; the result is the count of whole units from the second moment to
the first, negative when the first is earlier.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from remember.templates.expr.values import EvalError, checked, less, number, temporal, type_name

# name -> (fewest, most) arguments; None means any number.
ARITY: dict[str, tuple[int, int | None]] = {
    "concat": (1, None),
    "now": (0, 0),
    "today": (0, 0),
    "date_diff": (2, 3),
    "count": (1, 1),
    "sum": (1, None),
    "min": (1, None),
    "max": (1, None),
    "len": (1, 1),
    "lower": (1, 1),
    "upper": (1, 1),
    "round": (1, 2),
    "if": (2, 3),
    "coalesce": (1, None),
}

_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800}
UNITS = (*_SECONDS, "months", "years")


def text_of(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    raise EvalError(f"concat() cannot join {type_name(value)}")


def fn_concat(args: list[Any]) -> Any:
    if any(arg is None for arg in args):
        return None  # a missing part leaves the whole value empty
    return checked("".join(text_of(arg) for arg in args))


def fn_date_diff(args: list[Any]) -> Any:
    if args[0] is None or args[1] is None:
        return None
    unit = args[2] if len(args) == 3 else "days"
    if unit not in UNITS:
        raise EvalError(f"date_diff() unit must be one of {', '.join(UNITS)}")
    end, start = temporal(args[0]), temporal(args[1])
    if end is None or start is None:
        raise EvalError("date_diff() needs two dates")
    if unit in _SECONDS:
        return int((end - start).total_seconds() / _SECONDS[unit])
    months = _whole_months(start, end) if start <= end else -_whole_months(end, start)
    return months if unit == "months" else int(months / 12)


def _whole_months(start: datetime, end: datetime) -> int:
    months = (end.year - start.year) * 12 + end.month - start.month
    if (end.day, end.time()) < (start.day, start.time()):
        months -= 1
    return months


def fn_count(args: list[Any]) -> Any:
    value = args[0]
    if value is None:
        return 0
    if isinstance(value, list):
        return sum(1 for item in value if item is not None)
    return 1


def _spread(args: list[Any]) -> list[Any]:
    """``sum(list)`` and ``sum(a, b, c)`` both work; nulls are skipped."""
    items = args[0] if len(args) == 1 and isinstance(args[0], list) else args
    return [item for item in items if item is not None]


def fn_sum(args: list[Any]) -> Any:
    total: float | int = 0
    for item in _spread(args):
        total = checked(total + number(item, "sum()"))
    return total


def _extreme(args: list[Any], want_max: bool) -> Any:
    best: Any = None
    for item in _spread(args):
        if best is None or (less(best, item) if want_max else less(item, best)):
            best = item
    return best


def fn_min(args: list[Any]) -> Any:
    return _extreme(args, want_max=False)


def fn_max(args: list[Any]) -> Any:
    return _extreme(args, want_max=True)


def fn_len(args: list[Any]) -> Any:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, str | list):
        return len(value)
    raise EvalError(f"len() needs text or a list, got {type_name(value)}")


def _text_arg(value: object, function: str) -> str:
    if not isinstance(value, str):
        raise EvalError(f"{function}() needs text, got {type_name(value)}")
    return value


def fn_lower(args: list[Any]) -> Any:
    return None if args[0] is None else _text_arg(args[0], "lower").lower()


def fn_upper(args: list[Any]) -> Any:
    return None if args[0] is None else checked(_text_arg(args[0], "upper").upper())


def fn_round(args: list[Any]) -> Any:
    if args[0] is None:
        return None
    value = number(args[0], "round()")
    places = number(args[1], "round()") if len(args) == 2 else 0
    if not isinstance(places, int) or not 0 <= places <= 15:
        raise EvalError("round() places must be a whole number from 0 to 15")
    # Halves round away from zero (2.5 -> 3), as people expect; Python's round() would give 2.
    rounded = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return int(rounded) if places == 0 else float(rounded)


FUNCTIONS: dict[str, Callable[[list[Any]], Any]] = {
    "concat": fn_concat,
    "date_diff": fn_date_diff,
    "count": fn_count,
    "sum": fn_sum,
    "min": fn_min,
    "max": fn_max,
    "len": fn_len,
    "lower": fn_lower,
    "upper": fn_upper,
    "round": fn_round,
}
