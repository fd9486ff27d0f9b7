"""Ratings, money and price ranges said in the content.

- Ratings: ``4/5``, ``8 out of 10``, ``rated it 8 out of 10``, ``4.5 stars``,
  ``five stars``; the scale is kept (5 for stars) so that the value can be put
  on a field's own scale. A bare number ("rated it 8") is not a rating: its scale
  is unknown. ``3/4/2026`` is a date, not a rating.
- Money: ``$45``, ``€20``, ``£12.50``, ``$1,200``, ``$8k``, ``45 dollars``,
  ``20 euros``, ``USD 300``. The currency is known only where the sign or word
  names one (``€`` EUR, ``£`` GBP, ``USD``...); ``$`` and ``dollars`` could be
  several, and ``pounds`` may be weight, so neither gives a currency.
- Price ranges: ``$`` to ``$$$$`` standing alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
SCALES = frozenset({5, 10, 100})
_NUMBER = r"(\d{1,3}(?:\.\d)?)"
_OUT_OF = re.compile(rf"(?<![\d/.]){_NUMBER}\s*(?:/|out of)\s*(\d{{1,3}})(?![\d/])", re.I)
_STARS = re.compile(rf"(?<![\d.]){_NUMBER}\s*(?:-\s*)?stars?\b|\b(one|two|three|four|five)[ -]stars?\b", re.I)
_AMOUNT = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\s?(k)?"
_SIGN_FIRST = re.compile(rf"(?<![\w$€£¥])(US\$|\$|€|£|¥|usd|eur|gbp)\s?{_AMOUNT}(?![\w$])", re.I)
_WORD_AFTER = re.compile(rf"(?<![\w.,]){_AMOUNT}\s?(dollars|bucks|euros?|usd|eur|gbp)\b", re.I)
_PRICE_RANGE = re.compile(r"(?<![\w$])(\${1,4})(?![\w$\d])")
CURRENCIES = {"€": "EUR", "£": "GBP", "us$": "USD", "usd": "USD", "eur": "EUR", "gbp": "GBP", "euro": "EUR",
              "euros": "EUR"}  # fmt: skip


@dataclass(frozen=True)
class Rating:
    """A rating and the scale it was given on (5, 10 or 100)."""

    value: float
    scale: int


@dataclass(frozen=True)
class Money:
    """An amount and its ISO currency code when the text names one."""

    amount: float
    currency: str | None


def find_ratings(text: str) -> list[Rating]:
    """Distinct ratings with a known scale."""
    found: list[Rating] = []
    for match in _OUT_OF.finditer(text):
        value, scale = float(match.group(1)), int(match.group(2))
        if scale in SCALES and 0 <= value <= scale:
            found.append(Rating(value, scale))
    for match in _STARS.finditer(text):
        value = float(match.group(1)) if match.group(1) else float(WORD_NUMBERS[match.group(2).lower()])
        if 0 <= value <= 5:
            found.append(Rating(value, 5))
    return list(dict.fromkeys(found))


def find_money(text: str) -> list[Money]:
    """Distinct amounts of money."""
    found: list[Money] = []
    for match in _SIGN_FIRST.finditer(text):
        found.append(
            Money(_amount(match.group(2), match.group(3), match.group(4)), CURRENCIES.get(match.group(1).lower()))
        )
    for match in _WORD_AFTER.finditer(text):
        found.append(
            Money(_amount(match.group(1), match.group(2), match.group(3)), CURRENCIES.get(match.group(4).lower()))
        )
    return list(dict.fromkeys(found))


def find_price_ranges(text: str) -> list[str]:
    """Distinct ``$``..``$$$$`` marks."""
    return list(dict.fromkeys(match.group(1) for match in _PRICE_RANGE.finditer(text)))


def _amount(whole: str, cents: str | None, thousands: str | None) -> float:
    value = float(whole.replace(",", "")) + (float(f"0.{cents}") if cents else 0.0)
    return value * 1000 if thousands else value
