"""Ways to reach someone said in the content: an email address, a phone number.

An email address is read wherever it is written. A phone number only after a
word that says it is one ("phone", "mobile", "call", "number") or when it starts
with an international "+", so that a date, an amount or a serial number is
never taken for one; it keeps 7 to 15 digits.
"""

from __future__ import annotations

import re

from remember.templates.suggest.spans import only

_EMAIL = re.compile(r"(?<![\w.+-])([\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b")
_NUMBER = r"(\+?\d[\d ().-]{5,20}\d)"
_PHONE = (
    re.compile(
        rf"\b(?i:phone|mobile|cell|tel|telephone|number|call|text|whatsapp)\b[:\s]*(?:(?i:is|at|on)\s+)?{_NUMBER}"
    ),
    re.compile(r"(?<![\w+])(\+\d[\d ().-]{5,20}\d)"),
)


_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")


def email(text: str) -> str | None:
    """The one email address written, or None."""
    return only([m.group(1) for m in _EMAIL.finditer(text)])


def phone(text: str) -> str | None:
    """The one phone number said as such, or None."""
    found = [m.group(1).strip() for pattern in _PHONE for m in pattern.finditer(text)]
    return only([n for n in found if 7 <= sum(c.isdigit() for c in n) <= 15 and not _DATE.fullmatch(n)])
