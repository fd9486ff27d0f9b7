"""A goal's numbers: the target in its title ("read 30 books", "save $10,000"), its unit, how far it has got.

The target and its unit are read from the goal's title (``aims.goal_title``);
a year ("run a marathon in 2027") is not a target. How far it has got is
said as "I'm at 12 so far", "down 4 kg so far".
"""

from __future__ import annotations

import re

from remember.templates.suggest import aims

_AMOUNT = re.compile(r"(?:[$€£¥]\s?)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(k\b)?\s*([a-z][a-z\-]*)?", re.I)
_CURRENT = re.compile(
    r"\b(?:i'?m at|at|down|up|done|currently at)\s+(?:[$€£¥]\s?)?(\d[\d,]*)(?:\s?[a-z\-]+)?\s+so far\b|\bi'?m at (\d[\d,]*)\b",  # noqa: E501
    re.I,
)
_UNITS = frozenset({"kg", "km", "lbs", "miles", "books", "push-ups", "pushups", "pages", "steps", "words", "hours",
                    "chapters", "kilos", "pounds", "runs", "songs", "courses"})  # fmt: skip


def goal_value(text: str, kind: str) -> float | None:
    """The ``target_value`` or the ``current_value`` of the goal the text states, or None."""
    if kind == "current_value":
        match = _CURRENT.search(text)
        return float((match.group(1) or match.group(2)).replace(",", "")) if match else None
    amount = _goal_amount(text)
    return amount[0] if amount else None


def goal_unit(text: str) -> str | None:
    """The unit of the goal's target ("books" in "read 30 books"), when it is a known one."""
    amount = _goal_amount(text)
    return amount[1] if amount else None


def _goal_amount(text: str) -> tuple[float, str | None] | None:
    """The number in a goal's title and its unit."""
    title = aims.goal_title(text)
    if not title:
        return None
    for match in _AMOUNT.finditer(title):
        number = float(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1)
        if 1900 <= number <= 2100 and not match.group(3):
            continue  # a year
        unit = match.group(3)
        return number, unit.lower() if unit and unit.lower() in _UNITS else None
    return None
