"""One reader per field: what the content says for a field, chosen by the field's type and kind.

``read_field`` is the dispatcher behind ``prefill.candidates`` for the fields
the first extractors (ratings, money, quoted titles, names, venues, verdicts)
leave empty. The field's type says which family of reader runs (dates,
choices, yes/no, numbers, texts); its kind (declared, else implied by its name:
``field_kinds``) says which reader of that family: a date field of kind
``deadline`` takes the date said after "by", a text field of kind ``author``
the name after "by". A ``title`` is read as the thing the template holds
(``subject``). A field whose kind has no reader is read from its own words
(``labels``). It returns ``(claim, value)``, the claim naming what was read (two
fields reading the same date share a claim, and neither gets it), or
``("", None)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from remember.templates.fields import FieldDef
from remember.templates.suggest import aims, contacts, counts, roles, things, trips, works
from remember.templates.suggest.choices import read_choice
from remember.templates.suggest.datefields import choose
from remember.templates.suggest.dates import SaidDate
from remember.templates.suggest.flags import read_flag
from remember.templates.suggest.labels import labelled
from remember.templates.suggest.spans import only
from remember.templates.suggest.subject import title_reader
from remember.templates.suggest.targets import goal_unit, goal_value

GENRES = ("science fiction", "sci-fi", "fantasy", "thriller", "mystery", "romance", "horror", "memoir", "biography",
          "non-fiction", "nonfiction", "historical fiction", "literary fiction", "poetry", "comedy", "drama",
          "self-help", "true crime", "young adult", "graphic novel", "crime", "western")  # fmt: skip
_GENRE = re.compile(rf"(?<![\w-])({'|'.join(re.escape(g) for g in GENRES)})(?![\w-])", re.I)
_URL = re.compile(r"https?://[^\s,;]+[^\s,;.!?)]")
_CUE_WORDS = re.compile(
    r"\b((?:right )?(?:before|after) (?:bed|work|lunch|dinner|breakfast|coffee|school|waking up|my [a-z]+))\b", re.I
)
_AUDIENCE = re.compile(r",\s*for ([a-z][\w\- ]{2,40})$")
GOAL_NUMBERS = frozenset({"target_value", "current_value"})


@dataclass(frozen=True)
class Siblings:
    """The kinds and names of a template's top-level fields (the field read included)."""

    kinds: frozenset[str]
    names: frozenset[str]


def read_field(
    text: str, dates: tuple[SaidDate, ...], field: FieldDef, kind: str | None, siblings: Siblings
) -> tuple[str, Any]:
    """(claim, value) for ``field`` of ``kind`` from ``text``; ``dates`` are the dates it says."""
    field_type, name = field.type, field.name
    if field_type in ("date", "datetime"):
        said = choose(name, dates, text, kind)
        return (f"date:{said.value.isoformat()}", said.value.isoformat()) if said else ("", None)
    if field_type == "enum" or (field_type == "array" and field.item_type == "enum"):
        source = _without_storage(text) if name == "item_category" else text
        value = read_choice(source, field, tuple(s.replace("_", " ") for s in siblings.names if s != name))
        return (f"choice:{name}", value) if value is not None else ("", None)
    if field_type == "boolean":
        flag = read_flag(text, name, kind)
        return (f"flag:{name}", flag) if flag is not None else ("", None)
    if field_type in ("integer", "number"):
        number = _number(text, field, kind, siblings)
        return (f"count:{name}", number) if number is not None else ("", None)
    if field_type in ("string", "text") or (field_type == "array" and field.item_type in ("string", "text")):
        words = _text(text, name, kind, siblings, many=field_type == "array")
        return (f"text:{name}", words) if words else ("", None)
    return "", None


def _text(text: str, name: str, kind: str | None, siblings: Siblings, *, many: bool) -> str | list[str] | None:
    if kind == "url":
        links = list(dict.fromkeys(_URL.findall(text)))
        return (links or None) if many else only(links)
    reader = title_reader(siblings.kinds, siblings.names) if kind == "title" else TEXT_READERS.get(kind or "")
    if reader is not None:
        value: str | list[str] | None = reader(text)
        if value:
            return value
    return labelled(text, name, many=many)


def _number(text: str, field: FieldDef, kind: str | None, siblings: Siblings) -> float | None:
    # A goal's numbers are read from its title; a field says it is one by its kind, or by a goal beside it.
    if kind in GOAL_NUMBERS and (field.kind or "unit" in siblings.kinds or "target_date" in siblings.names):
        return goal_value(text, kind)
    top = field.validation.max
    return counts.read_count(text, field.name, top if isinstance(top, int | float) else None, kind)


def _without_storage(text: str) -> str:
    place = things.storage(text)
    return text.replace(place, " ") if place else text


def _cue(text: str) -> str | None:
    said = labelled(text, "cue")
    return said if isinstance(said, str) else only([m.group(1) for m in _CUE_WORDS.finditer(text)])


def _audience(text: str) -> str | None:
    said = labelled(text, "target_audience")
    if isinstance(said, str):
        return said
    match = _AUDIENCE.search(text.rstrip(".!"))
    return match.group(1) if match else None


def _isbn(text: str) -> str | None:
    said = labelled(text, "isbn")
    return said if isinstance(said, str) else None


def _genre(text: str) -> str | None:
    return only([m.group(1).lower() for m in _GENRE.finditer(text)])


def _director(text: str) -> str | None:
    return only(works.directors(text)) or only(works.creators(text))


# kind -> reader; the kinds the first extractors fill (person, venue, currency...) and the title are read apart
TEXT_READERS: dict[str, Callable[[str], Any]] = {
    "author": lambda text: only(works.authors(text)),
    "director": _director,
    "cast": works.cast,
    "platform": works.platform,
    "genre": _genre,
    "isbn": _isbn,
    "job_title": lambda text: roles.job(text)[0],
    "company": lambda text: roles.job(text)[1],
    "relationship": roles.relationship,
    "met_at": roles.where_met,
    "interests": roles.interests,
    "children": roles.children,
    "project": aims.project_name,
    "recipe": aims.recipe_name,
    "concept": aims.concept_name,
    "assignee": aims.assignee,
    "source": aims.source,
    "item": lambda text: things.item(text)[0],
    "brand": lambda text: things.item(text)[1],
    "model": lambda text: things.item(text)[2],
    "storage_place": things.storage,
    "serial_number": things.serial,
    "borrower": things.lent_to,
    "place": trips.place,
    "destination": trips.destination,
    "country": trips.country,
    "people": trips.with_names,
    "accommodation": trips.accommodation,
    "foods": trips.foods,
    "sights": lambda text: trips.sights(text, trips.destination(text)),
    "cuisine": trips.cuisine,
    "unit": goal_unit,
    "cue": _cue,
    "audience": _audience,
    "email": contacts.email,
    "phone": contacts.phone,
}
