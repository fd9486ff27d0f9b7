"""Prefill: the values a suggested template can take straight from the content.

``extract`` reads the content once (dates, ratings, money, price ranges,
quoted titles, people, venues, destinations, companies, verdicts);
``candidates`` maps what was found to a template's top-level fields by field
type and kind (declared, else implied by the field's name); ``prefill`` keeps
only the values that pass the field's own validation. A value is offered only
when it is unambiguous: two different dates, ratings, amounts, titles or names
mean none of them is used, and a value that two fields could take goes to
neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from remember.templates.fields import FieldDef
from remember.templates.inherit import ResolvedTemplate
from remember.templates.suggest.amounts import Money, Rating, find_money, find_price_ranges, find_ratings
from remember.templates.suggest.datefields import choose
from remember.templates.suggest.dates import SaidDate, find_dates
from remember.templates.suggest.field_kinds import kind_of
from remember.templates.suggest.flags import VERDICTS
from remember.templates.suggest.people import person_names
from remember.templates.suggest.phrases import (
    find_companies,
    find_destinations,
    find_titles,
    find_venues,
    find_verdicts,
)
from remember.templates.suggest.readers import Siblings, read_field
from remember.templates.validation.content import validate_content

# What the first extractors fill, by kind
THING_NAMES = frozenset({"project", "recipe", "concept", "item"})  # take a quoted title when there is no title
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
    kinds = [kind_of(field) for field in fields]
    titled = "title" in kinds
    siblings: Siblings | None = None
    for field, kind in zip(fields, kinds, strict=True):
        if field.is_computed:
            continue
        claim, value = _propose(found, field, kind, titled=titled)
        if not claim and readers and found.text:
            siblings = siblings or Siblings(frozenset(k for k in kinds if k), frozenset(f.name for f in fields))
            claim, value = read_field(found.text, found.dates, field, kind, siblings)
        if claim:
            proposals[field.name] = value
            claims.setdefault(claim, []).append(field.name)
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


def _propose(found: Extracted, field: FieldDef, kind: str | None, *, titled: bool) -> tuple[str, Any]:
    """(claim: what kind of value, the value) for one field, or ("", None).

    A quoted title goes to the template's ``title``, or, when it has none, to
    the field naming its thing (a project, a recipe, a concept, an item).
    """
    field_type = field.type
    if field_type in ("date", "datetime") and not found.text:
        said = choose(field.name, found.dates, found.text, kind)
        return ("date", said.value.isoformat()) if said else ("", None)
    if field_type in ("number", "integer") and kind == "rating" and len(found.ratings) == 1:
        value = _on_scale(found.ratings[0], field)
        return ("rating", value) if value is not None else ("", None)
    if field_type in ("number", "integer") and kind == "money" and len(found.money) == 1:
        return "money", found.money[0].amount
    if kind == "currency" and field_type in _TEXT and len(found.money) == 1 and found.money[0].currency:
        return "currency", found.money[0].currency
    if kind == "price_range" and len(found.price_ranges) == 1:
        return "price_range", found.price_ranges[0]
    if field_type == "boolean" and VERDICTS.get(kind or "") in found.verdicts:
        return f"verdict:{field.name}", found.verdicts[VERDICTS[kind or ""]]
    if field_type in _TEXT:
        return _text_value(found, kind, titled=titled)
    return "", None


def _text_value(found: Extracted, kind: str | None, *, titled: bool) -> tuple[str, Any]:
    if kind == "title" or (kind in THING_NAMES and not titled):
        claim, values = "title", found.titles
    else:
        named = {"person": found.people, "venue": found.venues, "destination": found.destinations,
                 "company": found.companies}  # fmt: skip
        claim, values = kind or "", named.get(kind or "", ())
    return (claim, values[0]) if claim and len(values) == 1 else ("", None)


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
