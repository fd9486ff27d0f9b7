"""Plain JSON values: copying free-form content safely, and storing formula results."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from remember.templates.dates import format_date, format_datetime
from remember.templates.limits import MAX_JSON_DEPTH, MAX_JSON_NODES


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value; ``ValueError`` if it is not one or is too big."""
    budget = [MAX_JSON_NODES]
    return _copy(value, 0, budget)


def _copy(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"holds more than {MAX_JSON_NODES} values")
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"nests deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("holds a number that is not finite")
        return value
    if isinstance(value, list | tuple):
        return [_copy(item, depth + 1, budget) for item in value]
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise ValueError("has an object key that is not text")
        return {key: _copy(item, depth + 1, budget) for key, item in value.items()}
    raise ValueError(f"holds a {type(value).__name__}, which is not a JSON value")


def from_formula(value: Any) -> Any:
    """A formula result as stored: dates in their ISO form; anything unstorable is null."""
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return format_date(value)
    if isinstance(value, list):
        return [from_formula(item) for item in value]
    try:
        return json_copy(value)
    except ValueError:
        return None
