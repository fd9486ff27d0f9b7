"""Values given with their field's own words: "Next step: sketch the commands", "cue is my alarm going off".

For a field of any template, its name's words (``next_step`` -> "next step")
and the phrases known for fields of that name (``LABELS``) followed by ":",
"is", "are", "was" or "=" introduce its value, which runs to the end of the
clause (a comma ends a single value; a list runs to the sentence's end and is
split on commas and "and"). The phrases marked in ``BARE`` need no separator
("ISBN 0525559477", "starring Paul Giamatti", "grateful for coffee").
"""

from __future__ import annotations

import re

from remember.templates.suggest.spans import clean, compiled, split_list

LABELS: dict[str, str] = {
    "next_step": r"next steps?",
    "tomorrow_focus": r"tomorrow(?:['\u2019]s)? focus:?|focus (?:for )?tomorrow:?|tomorrow I (?:want|need) to focus on",
    "cue": r"(?:my )?cue",
    "reward": r"(?:my )?reward",
    "highlights": r"(?:the )?highlights?(?: of the day)?",
    "gratitude": r"grateful (?:today )?for|thankful (?:today )?for|gratitude",
    "inspiration": r"inspired by|inspiration",
    "target_audience": r"aimed at|target audience|audience|for people who",
    "recommend_to": r"(?:would |i['\u2019]d |will )?recommend (?:it |this )?to",
    "isbn": r"isbn(?:-1[03])?",
    "author": r"author|written by",
    "stakeholders": r"stakeholders",
    "attendees": r"attendees|attended by",
    "accommodation": r"staying at|accommodation",
    "metric": r"metric",
    "why": r"because|why",
}
BARE = frozenset({"isbn", "author", "stakeholders", "attendees", "gratitude", "inspiration", "target_audience",
                  "recommend_to", "reward", "accommodation", "tomorrow_focus", "serial_number"})  # fmt: skip
# Values that are one word ("ISBN 9780593135204 \u2014 Project Hail Mary").
ONE_WORD = frozenset({"isbn", "serial_number", "sku", "code", "zip", "postcode", "phone", "email"})
_CLAUSE_START = r"(?:^|(?<=[.,;:!?(])\s*|(?<=\s-)\s*|(?<=\u2014)\s*)"
_SEPARATOR = r"\s*(?::|=|\bis\b|\bare\b|\bwas\b|\bwere\b|\binclude\b)\s*"


def labelled(text: str, name: str, *, many: bool = False) -> str | list[str] | None:
    """The value given after the field's label, or None."""
    label = LABELS.get(name) or re.escape(name.replace("_", " ")).replace(r"\ ", "[ _-]")
    separator = rf"(?:{_SEPARATOR}|\s+)" if name in BARE else _SEPARATOR
    start = r"(?<![\w-])" if name in BARE else _CLAUSE_START
    end = r"[^.;!?\n]" if many else r"[^,.;!?\n]"
    match = compiled(rf"{start}(?:{label}){separator}({end}{{1,120}})").search(text)
    if not match:
        return None
    value = match.group(1)
    if name == "inspiration":
        value = value.split(":")[0]
    if many:
        items = split_list(value)
        return items or None
    if name in ONE_WORD:
        value = value.split()[0] if value.split() else ""
    cleaned = clean(value)
    return cleaned or None
