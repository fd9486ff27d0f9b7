"""Titles, names and explicit yes/no statements said in the content.

- Titles: text in quotes, ``'Dune'``, ``"Dune"``, ``“Project Hail Mary”``,
  ``«Amélie»``; an apostrophe inside a word ("Luigi's") is not a quote.
- People: a capitalised name after a cue that introduces a person (see
  ``people``): "met Sarah Chen" gives "Sarah Chen".
- Venues and destinations: a capitalised name after "at"/"went to" (a venue)
  or after "trip to", "flew to", "days in", "visited"... (a destination).
- Companies: "works at Stripe", "works for Acme".
- Verdicts: "would recommend" / "wouldn't recommend", "will go back" /
  "never going back", "would watch it again" / "not worth a rewatch"; only
  explicit statements, never guessed from tone.
"""

from __future__ import annotations

import re

from remember.templates.suggest.places import NAME_PATTERN, proper_names

_QUOTED = re.compile(
    r"“([^”\n]{1,150})”|«\s*([^»\n]{1,150}?)\s*»|\"([^\"\n]{1,150})\"|"
    r"(?:(?<=^)|(?<=[\s(\[]))['\u2018]([^'\u2019\n]{1,150}?)['\u2019](?=$|[\s.,!?;:)\]])"
)
QUOTED = _QUOTED
VENUE_CUE = re.compile(rf"\b(?i:at|went to|go to|going to|back to|be back to)\s+(?:the\s+)?({NAME_PATTERN})")
DESTINATION_CUE = re.compile(
    rf"\b(?i:trip to|flew to|flying to|flights? to|flew into|travel(?:l?ing)? to|back from|visited|visiting|"
    r"(?:days?|weeks?|weekend|holiday|vacation|honeymoon) in|moving to|road trip through)"
    rf"\s+(?:the\s+)?({NAME_PATTERN})"
)
COMPANY_CUE = re.compile(rf"\b(?i:works? (?:at|for)|working (?:at|for)|job at|joined)\s+({NAME_PATTERN})")
_NEGATION = (
    r"(?:wouldn[\u2019']?t|would not|won[\u2019']?t|will not|can[\u2019']?t|cannot|don[\u2019']?t|do not|not|never)"
)
VERDICTS = {
    "recommend": (
        re.compile(rf"\b{_NEGATION}\s+(?:\w+\s+)?recommend", re.I),
        re.compile(r"\b(?:would|will|i[\u2019']?d|definitely|highly|totally|strongly|100%)\s+recommend", re.I),
    ),
    "return": (
        re.compile(rf"\b{_NEGATION}\s+(?:be\s+|going\s+|go(?:ing)?\s+|coming\s+)?back\b|\bnever again\b", re.I),
        re.compile(r"\b(?:would|will|i[\u2019']?d|definitely|gonna|going to|can[\u2019']?t wait to)"
                   r"\s+(?:go|come|be)\s+back\b", re.I),
    ),
    "rewatch": (
        re.compile(rf"\b{_NEGATION}\s+(?:\w+\s+)?(?:watch(?:ing)? (?:it |this )?again|rewatch)", re.I),
        re.compile(r"\b(?:would|will|i[\u2019']?d|definitely|gonna)\s+(?:watch (?:it |this )?again|rewatch)", re.I),
    ),
}  # fmt: skip


def find_titles(text: str) -> list[str]:
    """Distinct quoted spans of two characters or more, trimmed."""
    found = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(text)]
    titles = (title.strip() for title in found)
    return list(dict.fromkeys(title for title in titles if len(title) >= 2 and title[0].isalnum()))


def find_venues(text: str) -> list[str]:
    return proper_names(text, VENUE_CUE)


def find_destinations(text: str) -> list[str]:
    return proper_names(text, DESTINATION_CUE)


def find_companies(text: str) -> list[str]:
    return proper_names(text, COMPANY_CUE)


def find_verdicts(text: str) -> dict[str, bool]:
    """``recommend``, ``return`` and ``rewatch`` where the text says yes or no outright (not both)."""
    verdicts: dict[str, bool] = {}
    for kind, (negative, positive) in VERDICTS.items():
        no, yes = bool(negative.search(text)), bool(positive.search(text))
        if no != yes:
            verdicts[kind] = yes
    return verdicts
