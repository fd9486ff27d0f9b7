"""Prefill: the values a suggested template can take straight from the content.

``extract`` reads the content once (dates, ratings, money, price ranges,
quoted titles, people, venues, destinations, companies, verdicts);
``candidates`` maps what was found to a template's top-level fields by field
type and name; ``prefill`` keeps only the values that pass the field's own
validation. A value is offered only when it is unambiguous: two different
dates, ratings, amounts, titles or names mean none of them is used, and a
value that two fields could take goes to neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from remember.templates.fields import FieldDef
from remember.templates.inherit import ResolvedTemplate
from remember.templates.suggest.amounts import Money, Rating, find_money, find_price_ranges, find_ratings
from remember.templates.suggest.dates import SaidDate, find_dates
from remember.templates.suggest.people import person_names
from remember.templates.suggest.phrases import (
    find_companies,
    find_destinations,
    find_titles,
    find_venues,
    find_verdicts,
)
from remember.templates.suggest.readers import read_field
from remember.templates.validate import validate_content

# Field names, by what they hold.
PAST_DATES = frozenset({"date_finished", "watched_on", "last_visited", "visited_on", "learned_on", "first_met",
                        "purchase_date", "entry_date", "completed_on", "achieved_on", "last_done",
                        "last_interaction", "lent_on"})  # fmt: skip
FUTURE_DATES = frozenset({"due_date", "target_date", "review_on", "next_meeting", "deadline"})
ANY_DATES = frozenset({"date"})
RATINGS = frozenset({"rating", "score", "stars"})
PRICES = frozenset({"purchase_price", "price", "cost", "budget", "amount"})
TITLES = frozenset({"title", "recipe_name", "project_name", "concept_name", "item_name"})
PERSON_NAMES = frozenset({"name", "full_name", "person_name"})
VERDICT_FIELDS = {"would_recommend": "recommend", "would_return": "return", "would_rewatch": "rewatch"}
_TEXT = frozenset({"string", "text"})


@dataclass(frozen=True)
class Extracted:
    """Everything read from one content, before it is matched to a template."""

    dates: tuple[SaidDate, ...]
    ratings: tuple[Rating, ...]
    money: tuple[Money, ...]
    price_ranges: tuple[str, ...]
    titles: tuple[str, ...]
    people: tuple[str, ...]
    venues: tuple[str, ...]
    destinations: tuple[str, ...]
    companies: tuple[str, ...]
    verdicts: dict[str, bool]
    text: str = ""
    today: date = date.min


def extract(content: str, today: date) -> Extracted:
    """Read every kind of value from ``content``; dates are relative to ``today``."""
    return Extracted(
        dates=tuple(find_dates(content, today)),
        ratings=tuple(find_ratings(content)),
        money=tuple(find_money(content)),
        price_ranges=tuple(find_price_ranges(content)),
        titles=tuple(find_titles(content)),
        people=tuple(person_names(content)),
        venues=tuple(find_venues(content)),
        destinations=tuple(find_destinations(content)),
        companies=tuple(find_companies(content)),
        verdicts=find_verdicts(content),
        text=content,
        today=today,
    )


def candidates(found: Extracted, fields: tuple[FieldDef, ...], *, readers: bool = True) -> dict[str, Any]:
    """Values for top-level fields, before validation; a value two fields could take is dropped.

    ``readers=False`` keeps to the first extractors (ratings, money, quoted
    titles, names, venues, verdicts): the fields signal of the suggestion score
    was fitted on them, and counting every field the readers fill lets small
    talk through (measured: 0.93 rather than 0.97 of the dev set's
    non-matching utterances left alone).
    """
    proposals: dict[str, Any] = {}
    claims: dict[str, list[str]] = {}
    siblings = frozenset(f.name for f in fields)
    for field in fields:
        if field.is_computed:
            continue
        kind, value = _propose(found, field)
        if not kind and readers and found.text:
            kind, value = read_field(found.text, found.dates, field, siblings)
        if kind:
            proposals[field.name] = value
            claims.setdefault(kind, []).append(field.name)
    for names in claims.values():
        if len(names) > 1:
            for name in names:
                proposals.pop(name)
    return proposals


def prefill(found: Extracted, resolved: ResolvedTemplate, now: datetime) -> dict[str, Any]:
    """The candidates that pass their field's validation, in their normalized form."""
    proposed = candidates(found, resolved.fields)
    if not proposed:
        return {}
    result = validate_content(resolved, proposed, now=now)
    refused = {error.field.split(".")[0].split("[")[0] for error in result.errors}
    return {name: result.normalized[name] for name in proposed if name not in refused and name in result.normalized}


def _propose(found: Extracted, field: FieldDef) -> tuple[str, Any]:
    """(what kind of value, the value) for one field, or ("", None)."""
    name, kind = field.name, field.type
    if kind in ("date", "datetime") and not found.text and len(found.dates) == 1:
        said = found.dates[0]
        fits = name in ANY_DATES or (name in PAST_DATES and said.tense != "future")
        if fits or (name in FUTURE_DATES and said.tense != "past"):
            return "date", said.value.isoformat()
    if kind in ("number", "integer") and name in RATINGS and len(found.ratings) == 1:
        value = _on_scale(found.ratings[0], field)
        return ("rating", value) if value is not None else ("", None)
    if kind in ("number", "integer") and name in PRICES and len(found.money) == 1:
        return "money", found.money[0].amount
    if name == "currency" and kind in _TEXT and len(found.money) == 1 and found.money[0].currency:
        return "currency", found.money[0].currency
    if name == "price_range" and len(found.price_ranges) == 1:
        return "price_range", found.price_ranges[0]
    if kind == "boolean" and VERDICT_FIELDS.get(name) in found.verdicts:
        return f"verdict:{name}", found.verdicts[VERDICT_FIELDS[name]]
    if kind in _TEXT:
        return _text_value(found, name)
    return "", None


def _text_value(found: Extracted, name: str) -> tuple[str, Any]:
    sources = {
        "title": (name in TITLES, found.titles),
        "person": (name in PERSON_NAMES, found.people),
        "venue": (name == "restaurant_name", found.venues),
        "destination": (name == "destination", found.destinations),
        "company": (name == "company", found.companies),
    }
    for kind, (applies, values) in sources.items():
        if applies and len(values) == 1:
            return kind, values[0]
    return "", None


def _on_scale(rating: Rating, field: FieldDef) -> float | None:
    """The rating on the field's scale: as given when the scales agree, else scaled to the field's range.

    Scaling needs a field whose range starts at 0 or 1 and has a maximum; the
    result is kept only when it is a whole or half point (8/10 on 1-5 is 4;
    7/10 is 3.5; 73/100 is not placed on a 1-5 field).
    """
    top = field.validation.max
    low = field.validation.min
    if not isinstance(top, int | float) or isinstance(top, bool):
        return None
    if rating.scale == top:
        return rating.value
    if low not in (0, 1, None):
        return None
    scaled = rating.value * top / rating.scale
    return scaled if (scaled * 2).is_integer() else None
