"""The fields a free text states, without a template: "grape: Merlot", "ISBN 9780593135204", a rating, a price.

Read from each text:

- labelled values: "<label>: <value>" or "<label> = <value>" (a label of one
  to three words), and an upper-case label before a number ("ISBN
  9780593135204", "VIN 1HGCM82633A004352");
- what the prefill extractors find in any text: a rating (``rating``), an
  amount of money (``price`` and, when named, ``currency``), one date
  (``date``), a quoted title (``title``), a person (``person``), a venue
  (``place``).

A value's type is guessed from how it is written: a number, a date, yes/no,
or text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from remember.templates.suggest.amounts import find_money, find_ratings
from remember.templates.suggest.dates import find_dates
from remember.templates.suggest.people import person_names
from remember.templates.suggest.phrases import find_titles, find_venues

_LABELLED = re.compile(
    r"(?:^|(?<=[,;.(\n])|(?<=\s-))\s*([A-Za-z][A-Za-z]*(?: [A-Za-z]+){0,2})\s*[:=]\s*([^,;\n]{1,60})"
)
_CODE = re.compile(r"\b([A-Z]{2,6})[ #:]\s*([0-9][0-9X\-]{5,})\b")
_NUMBER = re.compile(r"^[-+]?\d+(?:[.,]\d+)?\s*[a-z%]{0,4}$", re.I)
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_YES_NO = frozenset({"yes", "no", "y", "n", "true", "false"})
_NOT_LABELS = frozenset({"http", "https", "note", "notes", "todo", "til", "ps", "re", "fyi", "update", "idea"})


@dataclass(frozen=True)
class FoundField:
    """A field a text states: its name, the type its value is written as, and the value."""

    name: str
    type: str
    value: str


def field_values(text: str, today: date) -> dict[str, FoundField]:
    """Field name -> what the text states for it (the first value of each)."""
    found: dict[str, FoundField] = {}
    for name, value in _labelled(text):
        found.setdefault(name, FoundField(name, _type(value), value.strip()))
    ratings, money = find_ratings(text), find_money(text)
    if len(ratings) == 1:
        found.setdefault("rating", FoundField("rating", "number", str(ratings[0].value)))
    if len(money) == 1:
        found.setdefault("price", FoundField("price", "number", str(money[0].amount)))
        if money[0].currency:
            found.setdefault("currency", FoundField("currency", "string", money[0].currency))
    for name, kind, values in (
        ("date", "date", [d.value.isoformat() for d in find_dates(text, today)]),
        ("title", "string", find_titles(text)),
        ("person", "string", person_names(text)),
        ("place", "string", find_venues(text)),
    ):
        if len(values) == 1:
            found.setdefault(name, FoundField(name, kind, values[0]))
    return found


def missing_fields(
    texts: Sequence[str], known: Iterable[str], *, least: int = 3, share: float = 0.3
) -> list[tuple[FoundField, int]]:
    """Labelled fields the texts keep stating (in ``least`` texts and ``share`` of them) that ``known`` lacks."""
    have = {name.lower() for name in known}
    counts: Counter[str] = Counter()
    first: dict[str, FoundField] = {}
    for text in texts:
        pairs = [(name, value) for name, value in _labelled(text) if name not in have]
        for name, value in pairs:
            first.setdefault(name, FoundField(name, _type(value), value.strip()))
        counts.update({name for name, _ in pairs})
    needed = max(least, share * len(texts))
    return [(first[name], count) for name, count in counts.most_common() if count >= needed]


def _labelled(text: str) -> list[tuple[str, str]]:
    pairs = [(_name(m.group(1)), m.group(2)) for m in _LABELLED.finditer(text)]
    pairs += [(_name(m.group(1)), m.group(2)) for m in _CODE.finditer(text)]
    return [(name, value) for name, value in pairs if name and name not in _NOT_LABELS and value.strip()]


def _name(label: str) -> str:
    return "_".join(label.lower().split())


def _type(value: str) -> str:
    text = value.strip().lower()
    if _ISO.match(text):
        return "date"
    if text in _YES_NO:
        return "boolean"
    if _NUMBER.match(text) and not re.search(r"[a-z%]", text) and len(text.replace(".", "")) <= 9:
        return "number"  # longer runs of digits are codes (ISBN, serial numbers), kept as text
    return "string"
