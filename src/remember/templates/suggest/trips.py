"""Where and with whom: destinations and countries, companions, where one stays, what to see and eat, cuisines.

- destinations: the cues of ``phrases`` ("trip to Lisbon", "days in Iceland"),
  then "visit Patagonia", "heading to Bali", "Marrakech trip", then a place
  after "in" when nothing stronger names one; "Tromsø, Norway" gives the country;
- companions and attendees: capitalised names after "with" ("with Sam and
  Jo", "with my manager Dana") or after "attendees";
- "staying at the Komaneka resort", "try haggis", "see Machu Picchu";
- a cuisine: a nationality adjective ("Ethiopian food", "Thai green curry");
- a place of any sort: a venue ("at Nobu") or a destination, when only one is named.
"""

from __future__ import annotations

import re

from remember.templates.suggest.phrases import find_destinations, find_venues
from remember.templates.suggest.places import NAME_PATTERN, proper_names
from remember.templates.suggest.spans import clean, only

COUNTRIES = frozenset(
    {"Argentina", "Australia", "Austria", "Belgium", "Brazil", "Canada", "Chile", "China", "Colombia", "Croatia",
     "Czechia", "Denmark", "Egypt", "England", "Finland", "France", "Germany", "Greece", "Iceland", "India",
     "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kenya", "Mexico", "Morocco", "Netherlands",
     "New Zealand", "Norway", "Peru", "Philippines", "Poland", "Portugal", "Scotland", "Singapore",
     "South Africa", "South Korea", "Korea", "Spain", "Sweden", "Switzerland", "Thailand", "Turkey", "USA",
     "United States", "United Kingdom", "UK", "Vietnam", "Wales"}
)  # fmt: skip
CUISINES = ("Thai", "Mexican", "Italian", "Japanese", "Korean", "Indian", "Chinese", "French", "Greek", "Spanish",
            "Vietnamese", "Ethiopian", "Lebanese", "Turkish", "Moroccan", "Peruvian", "Brazilian", "German",
            "Persian", "Filipino", "Malaysian", "Indonesian", "Caribbean", "Cajun", "Georgian", "Sichuan",
            "Cantonese", "Nepalese", "Pakistani", "Portuguese", "Israeli", "Syrian")  # fmt: skip
_MORE_DESTINATIONS = re.compile(rf"\b(?i:visit|heading to|headed to|going to|off to)\s+(?:the\s+)?({NAME_PATTERN})")
_NAMED_TRIP = re.compile(rf"({NAME_PATTERN})\s+(?i:trip)\b")
_IN_PLACE = re.compile(rf"\bin (?:the\s+)?({NAME_PATTERN})")
_COUNTRY = re.compile(rf"\b{NAME_PATTERN},\s+({'|'.join(sorted(COUNTRIES, key=len, reverse=True))})\b")
_PERSON = r"[A-Z][\w'\u2019\-]+(?: [A-Z][\w'\u2019\-]+)?"
_ORG_WORDS = re.compile(r"\b(?:Corp|Inc|Ltd|LLC|Labs|Team|Group|Company|Co)\b")
_WITH = re.compile(rf"\bwith (?:my (?:[a-z\-]+ ){{1,2}})?({_PERSON}(?:(?:,\s*|\s+and\s+){_PERSON})*)")
_ATTENDEES = re.compile(rf"\battendees:?\s+({_PERSON}(?:(?:,\s*|\s+and\s+){_PERSON})*)", re.I)
_STAY = re.compile(r"\bstay(?:ing|ed)? (?:at|in) ((?:the |an? )?[^,.;!?]{2,50})", re.I)
_TRY = re.compile(r"\b(?:try|taste|eat)\s+([a-z][a-z \-]{2,30}?)(?=[,.;!?]|\s+and\b|$)", re.I)
_SEE = re.compile(rf"\b(?:see|visit)\s+({NAME_PATTERN})")
_CUISINE = re.compile(rf"\b({'|'.join(CUISINES)})\b")
_NOT_NAMES = frozenset({"I", "The", "My", "Our", "We"})


def destination(text: str) -> str | None:
    found = find_destinations(text)
    if not found:
        found = proper_names(text, _MORE_DESTINATIONS) or proper_names(text, _NAMED_TRIP)
    if not found:
        found = [name for name in proper_names(text, _IN_PLACE) if name not in CUISINES]
    return only(found)


def country(text: str) -> str | None:
    return only([m.group(1) for m in _COUNTRY.finditer(text)])


def with_names(text: str) -> list[str] | None:
    """The people someone was with (or who attended), when one list of names is given."""
    groups = [m.group(1) for m in [*_ATTENDEES.finditer(text), *_WITH.finditer(text)]]
    lists = [[n for n in re.split(r",\s*|\s+and\s+", g) if n and n not in _NOT_NAMES] for g in groups]
    if any(_ORG_WORDS.search(name) for names in lists for name in names):
        return None
    lists = [names for names in lists if names]
    distinct = {tuple(names) for names in lists}
    return list(lists[0]) if len(distinct) == 1 else None


def accommodation(text: str) -> str | None:
    return only([clean(m.group(1)) for m in _STAY.finditer(text)])


def foods(text: str) -> list[str] | None:
    found = [clean(m.group(1)) for m in _TRY.finditer(text)]
    return [f for f in found if f] or None


def sights(text: str, place: str | None) -> list[str] | None:
    found = [name for name in proper_names(text, _SEE) if name != place]
    return found or None


def cuisine(text: str) -> str | None:
    return only([m.group(1) for m in _CUISINE.finditer(text)])


def place(text: str) -> str | None:
    """The one place named: a venue ("dinner at Nobu") or a destination ("trip to Japan", "in Lisbon")."""
    return only([*find_venues(text), destination(text) or ""])
