"""The kinds of value a field may declare (``"kind": "person"``), and the field types each fits.

A kind says what a field holds (a person's name, an amount of money, a
deadline), so that suggestions can fill it from what the user says whatever
the field is called (``suggest.readers`` reads each kind). The vocabulary is
closed: each kind is a value the readers can find in a sentence. A kind fits
one or more *shapes* of field: one text, a list of texts, a number, a date, a
yes/no value or an enum.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import get_close_matches

from remember.errors import excerpt
from remember.templates.reading.problems import Problems

TEXT = "text"  # string or text
TEXTS = "texts"  # array of string or text
NUMBER = "number"  # number or integer
DATE = "date"  # date or datetime
BOOLEAN = "boolean"
CHOICE = "choice"  # enum
SHAPE_WORDS = {
    TEXT: "string or text fields",
    TEXTS: "arrays of string or text",
    NUMBER: "number or integer fields",
    DATE: "date or datetime fields",
    BOOLEAN: "boolean fields",
    CHOICE: "enum fields",
}


@dataclass(frozen=True)
class Kind:
    """What a field of this kind holds, in words, and the shapes of field it fits."""

    holds: str
    shapes: tuple[str, ...]


def _k(holds: str, *shapes: str) -> Kind:
    return Kind(holds, shapes)


KINDS: dict[str, Kind] = {
    # people and organisations
    "person": _k("a person's name", TEXT),
    "people": _k("the people someone was with, or who attended", TEXTS),
    "assignee": _k("the person a task is for", TEXT),
    "borrower": _k("the person something was lent to", TEXT),
    "author": _k("who wrote a book", TEXT),
    "director": _k("who directed or made a film or show", TEXT),
    "cast": _k("the actors of a film or show", TEXTS),
    "children": _k("the names of someone's children", TEXTS),
    "relationship": _k("how the user knows someone (my sister-in-law, my dentist)", TEXT),
    "job_title": _k("someone's role at work", TEXT),
    "company": _k("the organisation someone works at", TEXT),
    "met_at": _k("where the user met someone", TEXT),
    "interests": _k("what someone is into", TEXTS),
    # places and food
    "place": _k("a named place (at Nobu, trip to Japan)", TEXT),
    "venue": _k("a restaurant, café or bar the user went to", TEXT),
    "destination": _k("a place travelled to", TEXT),
    "country": _k("a country named after a place (Tromsø, Norway)", TEXT),
    "accommodation": _k("where someone stays on a trip", TEXT),
    "storage_place": _k("where a thing is kept", TEXT),
    "sights": _k("places to see", TEXTS),
    "cuisine": _k("a national cuisine (Thai, Ethiopian)", TEXT),
    "foods": _k("foods to try", TEXTS),
    # names of things
    "title": _k("the title of what the memory is about (a book, a task, a goal, a habit, an idea)", TEXT),
    "project": _k("the name of a project", TEXT),
    "recipe": _k("the name of a dish or recipe", TEXT),
    "concept": _k("a concept or technique learned", TEXT),
    "item": _k("a thing the user owns", TEXT),
    "brand": _k("the brand of a thing", TEXT),
    "model": _k("the model of a thing", TEXT),
    "serial_number": _k("a serial number", TEXT),
    "isbn": _k("a book's ISBN", TEXT),
    "genre": _k("a genre of book or film", TEXT),
    "platform": _k("a streaming or reading service (Netflix, Kindle)", TEXT),
    "source": _k("where something was learned (a book, a workshop)", TEXT),
    "unit": _k("what a goal is counted in (kg, books)", TEXT),
    "cue": _k("what sets off a habit (before bed)", TEXT),
    "audience": _k("whom an idea is for", TEXT),
    # amounts
    "rating": _k("a rating (4/5, 8 out of 10, five stars), put on the field's scale", NUMBER),
    "money": _k("an amount of money ($45, 20 euros)", NUMBER),
    "currency": _k("the currency of the amount said (EUR, GBP)", TEXT),
    "price_range": _k("a price range from $ to $$$$", TEXT, CHOICE),
    "percent": _k("a percentage (60% done)", NUMBER),
    "quantity": _k("how many of a thing there are", NUMBER),
    "hours": _k("a duration in hours (about 2 hours)", NUMBER),
    "servings": _k("how many people a dish serves", NUMBER),
    "prep_time": _k("minutes of preparation", NUMBER),
    "cook_time": _k("minutes of cooking", NUMBER),
    "pages": _k("a number of pages", NUMBER),
    "streak": _k("the current streak, in days", NUMBER),
    "best_streak": _k("the longest streak, in days", NUMBER),
    "times_per_period": _k("how many times a day, week or month", NUMBER),
    "season": _k("a season number of a show", NUMBER),
    "episodes": _k("a number of episodes", NUMBER),
    "year": _k("a year of release ((2022), from 2022)", NUMBER),
    "energy": _k("an energy level out of 10", NUMBER),
    "target_value": _k("the number a goal aims at (read 30 books)", NUMBER),
    "current_value": _k("how far a goal has got (I'm at 12 so far)", NUMBER),
    # dates
    "date": _k("the date said", DATE),
    "past_date": _k("the date said that has passed, or today", DATE),
    "start_date": _k("when something starts or started (from, starting, kicked off)", DATE),
    "end_date": _k("when something ends or ended (to, until, finished)", DATE),
    "finish_date": _k("when something was finished (finished, done), else the past date said", DATE),
    "deadline": _k("when something is due (by, due, before), else the coming date said", DATE),
    "review_date": _k("when to review something (by, before)", DATE),
    "next_meeting": _k("the date of the next meeting or call", DATE),
    "birthday": _k("a birth date, with its year", DATE),
    "first_met": _k("when the user first met someone (introduced, first met)", DATE),
    "purchase_date": _k("when something was bought, else the past date said", DATE),
    "lent_date": _k("when something was lent", DATE),
    "warranty_end": _k("when a warranty ends", DATE),
    # yes or no
    "would_recommend": _k("whether the user would recommend it", BOOLEAN),
    "would_return": _k("whether the user would go back", BOOLEAN),
    "would_rewatch": _k("whether the user would watch it again", BOOLEAN),
    # links and contacts
    "url": _k("a web address", TEXT, TEXTS),
    "email": _k("an email address", TEXT),
    "phone": _k("a phone number", TEXT),
}


def shape_of(field_type: str, item_type: str | None = None) -> str | None:
    """The shape of a field (``TEXT``, ``NUMBER``...), or None for objects, computed fields and other lists."""
    scalar = item_type if field_type == "array" else field_type
    shape = {"string": TEXT, "text": TEXT, "number": NUMBER, "integer": NUMBER, "date": DATE,
             "datetime": DATE, "boolean": BOOLEAN, "enum": CHOICE}.get(scalar or "")  # fmt: skip
    if field_type != "array" or shape is None:
        return shape
    return TEXTS if shape == TEXT else None


def kinds_for(shape: str | None) -> list[str]:
    """The kinds a field of ``shape`` may declare, in the vocabulary's order."""
    return [name for name, kind in KINDS.items() if shape in kind.shapes]


def read_kind(raw: object, field_type: str, item_type: str | None, path: str, problems: Problems) -> str | None:
    """The field's ``kind`` when it is one of ``KINDS`` and fits the field's type; else None and a problem."""
    if raw is None:
        return None
    shape = shape_of(field_type, item_type)
    what = _described(field_type, item_type)
    if not isinstance(raw, str) or raw not in KINDS:
        fitting = kinds_for(shape)
        close = get_close_matches(raw, fitting, n=1) if isinstance(raw, str) else []
        guess = f"; did you mean {close[0]!r}?" if close else ""
        choices = f"the kinds for {what}: {', '.join(fitting)}" if fitting else f"{what} takes no kind"
        problems.add(path, "unknown_kind", f"unknown kind {excerpt(raw)}{guess} ({choices})", raw)
        return None
    if shape not in KINDS[raw].shapes:
        fits = ", or ".join(SHAPE_WORDS[s] for s in KINDS[raw].shapes)
        problems.add(path, "kind", f"kind {raw!r} is for {fits}, not {what}", raw)
        return None
    return raw


def _described(field_type: str, item_type: str | None) -> str:
    if field_type != "array":
        return f"{'an' if field_type[:1] in 'aeiou' else 'a'} {field_type} field"
    return f"an array of {item_type}" if item_type else "an array without an item_type"
