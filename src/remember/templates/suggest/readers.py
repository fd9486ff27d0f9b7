"""One reader per field: what the content says for a field, chosen by the field's name, type and siblings.

``read_field`` is the dispatcher behind ``prefill.candidates`` for the fields
the first extractors (ratings, money, quoted titles, names, venues, verdicts)
leave empty. A template's kind is told by its fields, so a user's template is
read like the built-in it resembles: one with ``author`` or ``season`` holds a
work, one with ``due_date`` or ``assignee`` a task, one with ``frequency`` a
habit, one with ``target_date`` or ``target_value`` a goal, one with
``idea_type`` an idea. It returns ``(kind, value)``, the kind naming what was
read (two fields reading the same date share a kind, and neither gets it), or
``("", None)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from remember.templates.fields import FieldDef
from remember.templates.suggest import aims, counts, roles, things, trips, works
from remember.templates.suggest.choices import read_choice
from remember.templates.suggest.datefields import choose
from remember.templates.suggest.dates import SaidDate
from remember.templates.suggest.flags import read_flag
from remember.templates.suggest.labels import labelled
from remember.templates.suggest.spans import only

MEDIA = frozenset({"author", "director", "cast", "platform", "season", "isbn", "pages", "release_year"})
GENRES = ("science fiction", "sci-fi", "fantasy", "thriller", "mystery", "romance", "horror", "memoir", "biography",
          "non-fiction", "nonfiction", "historical fiction", "literary fiction", "poetry", "comedy", "drama",
          "self-help", "true crime", "young adult", "graphic novel", "crime", "western")  # fmt: skip
_GENRE = re.compile(rf"(?<![\w-])({'|'.join(re.escape(g) for g in GENRES)})(?![\w-])", re.I)
_AMOUNT = re.compile(r"(?:[$€£¥]\s?)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(k\b)?\s*([a-z][a-z\-]*)?", re.I)
_CURRENT = re.compile(
    r"\b(?:i'?m at|at|down|up|done|currently at)\s+(?:[$€£¥]\s?)?(\d[\d,]*)(?:\s?[a-z\-]+)?\s+so far\b|\bi'?m at (\d[\d,]*)\b",  # noqa: E501
    re.I,
)
_UNITS = frozenset({"kg", "km", "lbs", "miles", "books", "push-ups", "pushups", "pages", "steps", "words", "hours",
                    "chapters", "kilos", "pounds", "runs", "songs", "courses"})  # fmt: skip
_URL = re.compile(r"https?://[^\s,;]+[^\s,;.!?)]")
_CUE_WORDS = re.compile(
    r"\b((?:right )?(?:before|after) (?:bed|work|lunch|dinner|breakfast|coffee|school|waking up|my [a-z]+))\b", re.I
)
_AUDIENCE = re.compile(r",\s*for ([a-z][\w\- ]{2,40})$")


def read_field(text: str, dates: Sequence[SaidDate], field: FieldDef, siblings: frozenset[str]) -> tuple[str, Any]:
    """(kind, value) for ``field`` from ``text``; ``dates`` are the dates it says (``dates.find_dates``)."""
    kind, name = field.type, field.name
    if kind in ("date", "datetime"):
        said = choose(name, dates, text)
        return (f"date:{said.value.isoformat()}", said.value.isoformat()) if said else ("", None)
    if kind == "enum" or (kind == "array" and field.item_type == "enum"):
        source = _without_storage(text) if name == "item_category" else text
        value = read_choice(source, field, tuple(s.replace("_", " ") for s in siblings if s != name))
        return (f"choice:{name}", value) if value is not None else ("", None)
    if kind == "boolean":
        flag = read_flag(text, name)
        return (f"flag:{name}", flag) if flag is not None else ("", None)
    if kind in ("integer", "number"):
        number = _number(text, name, siblings, field.validation.max)
        return (f"count:{name}", number) if number is not None else ("", None)
    if kind in ("string", "text") or (kind == "array" and field.item_type in ("string", "text")):
        words = _text(text, name, siblings, many=kind == "array")
        return (f"text:{name}", words) if words else ("", None)
    return "", None


def _text(text: str, name: str, siblings: frozenset[str], *, many: bool) -> str | list[str] | None:
    if name.endswith(("url", "_link", "links", "website")):
        links = list(dict.fromkeys(_URL.findall(text)))
        return (links or None) if many else only(links)
    reader = TEXT_READERS.get(name)
    if name == "title":
        reader = _title_reader(siblings)
    if reader is not None:
        value: str | list[str] | None = reader(text)
        if value:
            return value
    return labelled(text, name, many=many)


def _title_reader(siblings: frozenset[str]) -> Callable[[str], Any] | None:
    if siblings & MEDIA:
        return lambda text: only(works.titles(text))
    if "frequency" in siblings or "current_streak" in siblings:
        return aims.habit_title
    if siblings & {"target_date", "target_value", "metric"}:
        return aims.goal_title
    if siblings & {"due_date", "assignee", "estimate_hours"}:
        return aims.task_title
    if siblings & {"idea_type", "effort", "impact"}:
        return aims.idea_title
    return None


def _number(text: str, name: str, siblings: frozenset[str], top: Any) -> float | None:
    if name in ("target_value", "current_value") and siblings & {"target_date", "metric"}:
        return _goal_value(text, name)
    return counts.read_count(text, name, top if isinstance(top, int | float) else None)


def _goal_value(text: str, name: str) -> float | None:
    if name == "current_value":
        match = _CURRENT.search(text)
        return float((match.group(1) or match.group(2)).replace(",", "")) if match else None
    amount = _goal_amount(text)
    return amount[0] if amount else None


def _goal_amount(text: str) -> tuple[float, str | None] | None:
    """The number in a goal's title ("read 30 books", "save $10,000") and its unit."""
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


def _metric(text: str) -> str | None:
    amount = _goal_amount(text)
    return amount[1] if amount else None


def _job_title(text: str) -> str | None:
    return roles.job(text)[0]


def _company(text: str) -> str | None:
    return roles.job(text)[1]


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


def _genre(text: str) -> str | None:
    return only([m.group(1).lower() for m in _GENRE.finditer(text)])


def _director(text: str) -> str | None:
    return only(works.directors(text)) or only(works.creators(text))


TEXT_READERS: dict[str, Callable[[str], Any]] = {
    "author": lambda text: only(works.authors(text)),
    "director": _director,
    "cast": works.cast,
    "platform": works.platform,
    "genre": _genre,
    "job_title": _job_title,
    "company": _company,
    "relationship": roles.relationship,
    "where_met": roles.where_met,
    "interests": roles.interests,
    "children_names": roles.children,
    "project_name": aims.project_name,
    "project": aims.project_name,
    "recipe_name": aims.recipe_name,
    "concept_name": aims.concept_name,
    "assignee": aims.assignee,
    "source": aims.source,
    "item_name": lambda text: things.item(text)[0],
    "brand": lambda text: things.item(text)[1],
    "model": lambda text: things.item(text)[2],
    "storage_location": things.storage,
    "serial_number": things.serial,
    "lent_to": things.lent_to,
    "destination": trips.destination,
    "country": trips.country,
    "travel_companions": trips.with_names,
    "companions": trips.with_names,
    "attendees": trips.with_names,
    "accommodation": trips.accommodation,
    "foods_to_try": trips.foods,
    "places_to_visit": lambda text: trips.sights(text, trips.destination(text)),
    "cuisine": trips.cuisine,
    "cuisine_type": trips.cuisine,
    "metric": _metric,
    "cue": _cue,
    "target_audience": _audience,
}
