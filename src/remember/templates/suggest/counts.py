"""Quantities said with their unit: servings, minutes, pages, streaks, percentages, counts, hours.

Each kind of quantity has its own patterns ("serves 4", "feeds 6", "10
minutes prep", "bake for 45 minutes", "1 hour in the oven", "60-day streak",
"best streak 30 days", "3 times a week", "60% done", "about 2 hours", "season
2", "three episodes", "(2022)"); a number without its unit is never taken. A
field of another kind, or of none, is read from its own words: "<label>: 4",
"<label> 4", "4 <label>".
"""

from __future__ import annotations

import re

from remember.templates.suggest.field_kinds import kind_by_name
from remember.templates.suggest.spans import compiled

_N = r"(\d{1,5}(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twice|once)"
WORDS = {"a": 1, "an": 1, "one": 1, "once": 1, "two": 2, "twice": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}  # fmt: skip
_MIN = r"(?:minutes?|mins?)"
_HOURS = r"(?:hours?|hrs?)"
# kind -> patterns; a pattern whose unit is hours gives minutes for the kinds counted in minutes
COUNTS: dict[str, tuple[str, ...]] = {
    "servings": (rf"\bserves {_N}\b", rf"\bfeeds {_N}\b", rf"\b{_N} servings\b", rf"\bfor {_N} people\b"),
    "prep_time": (rf"\b{_N} ?{_MIN} (?:of )?prep", rf"\bprep(?: time)?:? {_N} ?{_MIN}"),
    "cook_time": (
        rf"\b{_N} ?{_MIN} (?:of )?(?:cook(?:ing)?|in the oven|on the grill|baking|to cook|simmering)",
        rf"\b(?:cook|bake|roast|simmer|grill|fry)(?: it)?(?: for)? {_N} ?{_MIN}",
        rf"\b(?:plus|and|then) {_N} (?:{_MIN} )?(?:in the oven|cooking|on the grill)",
        rf"\b{_N} ?{_HOURS} (?:in the oven|on the grill|of cooking|to cook)",
    ),
    "pages": (rf"(?<!after )(?<!read )\b{_N} pages\b(?! (?:a|per|every|each)\b)",),
    "streak": (
        rf"\b{_N}[- ]day streak\b",
        rf"(?<!best )\bstreak of {_N}\b",
        rf"\bday {_N} of\b",
        rf"\bfor {_N} days\b(?: now| straight| in a row)?",
    ),
    "best_streak": (rf"\bbest streak(?: so far)?(?: is| was| of|:)? {_N}\b",),
    "times_per_period": (rf"\b{_N}(?: times?)? (?:a|per|each) (?:day|week|month)\b",),
    "percent": (rf"\b{_N} ?(?:%|percent)",),
    "hours": (rf"\b(?:about |around |roughly |~)?{_N} ?{_HOURS}\b(?! (?:in the oven|ago|later))",),
    "season": (r"\bseason (\d{1,2})\b", r"\b(\d{1,2})(?:st|nd|rd|th) season\b"),
    "episodes": (rf"\b{_N} episodes?\b",),
    "year": (r"\((\d{4})\)", r"\bfrom (\d{4})\b"),
    "energy": (rf"\benergy\b[^.\d]{{0,24}}?{_N}\s*(?:/|out of)\s*10\b", rf"\benergy(?: level)?:? {_N}\b"),
    "quantity": (
        rf"(?:^|\b(?:have|own|bought|got|keep|are)\s+){_N} (?!{_MIN}|{_HOURS}|days?|weeks?|years?|times|%)[A-Za-z]",
    ),
}
_MINUTES = frozenset({"cook_time", "prep_time"})


def read_count(text: str, name: str, top: float | None = None, kind: str | None = None) -> float | None:
    """The one quantity said for the field ``name`` of ``kind``, or None (none said, or two different ones).

    ``kind`` is by default the kind the name implies. ``top`` is the field's
    maximum: "confidence 3/5" is 3 on a field up to 5, and nothing on another
    scale.
    """
    kind = kind or kind_by_name(name) or ""
    patterns = COUNTS.get(kind) or _by_label(name)
    values: list[float] = []
    for pattern in patterns:
        for match in compiled(pattern).finditer(text):
            scale = match.groupdict().get("scale")
            if scale is not None and (top is None or float(scale) != float(top)):
                continue
            value = _number(match.group(1))
            if value is None or (kind == "quantity" and match.group(1).lower() in ("a", "an", "once")):
                continue
            if kind in _MINUTES and re.search(_HOURS, match.group(0), re.I):
                value *= 60
            values.append(value)
    distinct = list(dict.fromkeys(values))
    return distinct[0] if len(distinct) == 1 else None


def _by_label(name: str) -> tuple[str, ...]:
    words = name.split("_")
    label = re.escape(" ".join(words)).replace(r"\ ", "[ _-]")
    return (
        rf"\b{label}\s*(?::|=|is|of|was)?\s*(\d{{1,7}}(?:\.\d+)?)\b(?:\s*(?:/|out of)\s*(?P<scale>\d+))?",
        rf"\b(\d{{1,7}}) {label}\b",
    )


def _number(text: str) -> float | None:
    if text.lower() in WORDS:
        return float(WORDS[text.lower()])
    try:
        return float(text)
    except ValueError:
        return None
