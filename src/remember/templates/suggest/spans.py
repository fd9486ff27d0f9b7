"""Helpers shared by the field readers: trimming a phrase, splitting a list, removing quoted spans.

A phrase read after a cue ("remind me to renew my passport by Friday") keeps
what names the thing and drops what the other fields hold: a trailing date
("by Friday", "tomorrow"), a trailing article or preposition, the sentence's
end.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CALENDAR = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|january|february|march|april|"
    r"may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|"
    r"summer|winter|spring|fall|autumn|\d{4}-\d{2}-\d{2}"
)
_TRAILING_TIME = re.compile(
    r"(?:\s+(?:today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week)|last (?:night|week)|"
    rf"again|now|so far|(?:by|before|until|due|on|in)? ?(?:the )?(?:{_CALENDAR})(?: \d{{1,2}}(?:st|nd|rd|th)?)?"
    r"(?:,? \d{4})?))+$",
    re.I,
)
_TRAILING_SMALL = re.compile(r"(?:\s+(?:the|a|an|of|and|or|my|our|by|before))+$", re.I)
_LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+(?:for\s+)?|\s*&\s*)")


def clean(phrase: str, *, keep_question: bool = False) -> str:
    """``phrase`` without surrounding spaces and punctuation, a trailing time or a trailing small word."""
    value = phrase.strip().rstrip(".,;:!" if keep_question else ".,;:!?").strip()
    for _ in range(3):
        trimmed = _TRAILING_SMALL.sub("", _TRAILING_TIME.sub("", value)).strip().rstrip(",;:")
        if trimmed == value:
            break
        value = trimmed
    return value


def split_list(phrase: str) -> list[str]:
    """``"coffee, my sister and a quiet morning"`` -> ``["coffee", "my sister", "a quiet morning"]``.

    The list ends at the first comma after its "and" ("Maya and the finance
    team, critical priority" is two items).
    """
    text = clean(phrase)
    joined = re.search(r"\s+and\s+", text)
    if joined:
        comma = text.find(",", joined.end())
        text = text[:comma] if comma >= 0 else text
    items = [clean(item) for item in _LIST_SPLIT.split(text)]
    return list(dict.fromkeys(item for item in items if item))


def unquoted(text: str) -> str:
    """The text with quoted spans blanked out (a title's words are not evidence for other fields)."""
    from remember.templates.suggest.phrases import QUOTED

    return QUOTED.sub(lambda match: " " * len(match.group(0)), text)


def first(pattern: re.Pattern[str], text: str) -> str | None:
    """The first non-empty group of the first match, or None."""
    match = pattern.search(text)
    if match is None:
        return None
    return next((group for group in match.groups() if group), None)


def only(values: list[str]) -> str | None:
    """The single distinct value, or None when there are none or several (ambiguous)."""
    distinct = list(dict.fromkeys(v for v in values if v))
    return distinct[0] if len(distinct) == 1 else None


def all_groups(pattern: re.Pattern[str], text: str) -> list[str]:
    """The first non-empty group of every match."""
    found = []
    for match in pattern.finditer(text):
        group = next((g for g in match.groups() if g), None)
        if group:
            found.append(group)
    return found


@lru_cache(maxsize=4096)
def compiled(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """A pattern built from a field's words, compiled once (the ``re`` module's own cache is smaller than the
    number of patterns the readers build over a user's templates)."""
    return re.compile(pattern, flags)
