"""Yes/no fields stated outright: "no visa required", "reservation needed", "has two kids", "haven't tried it".

A field of a verdict kind (``would_recommend``, ``would_return``,
``would_rewatch``) takes the verdict said outright ("would recommend", "never
going back"). Some field names have their own phrases for yes and for no
(``FLAGS``: words for that field, as ``choices.SYNONYMS`` are for an enum's
options); a field is filled only when exactly one of them is found. A field
of another name is read from its own words: "<label>: yes/no", "no <label>",
or the label of two words or more said as such ("follow up needed").
"""

from __future__ import annotations

import re

from remember.templates.suggest.field_kinds import kind_by_name
from remember.templates.suggest.phrases import find_verdicts
from remember.templates.suggest.spans import compiled

_NOT = r"(?:no|not|never|don'?t|doesn'?t|didn'?t|haven'?t|hasn'?t|won'?t|isn'?t)"
# field name -> (yes, no)
FLAGS: dict[str, tuple[str, str]] = {
    "reservation_needed": (
        r"reservation (?:needed|required|essential)|need(?:ed)? (?:a|to make a) reservation|book ahead",
        r"no reservations?(?: needed| required)?|walk-?ins?(?: welcome| only)",
    ),
    "visa_required": (
        r"(?<!no )visa (?:required|needed)(?!: no)(?:: yes)?|need a visa(?!\?)",
        r"no visa (?:needed|required)|visa(?: required| needed)?: no|visa-free|(?:don'?t|do not) need a visa",
    ),
    "follow_up_needed": (
        r"(?<!no )follow[- ]?up(?: needed| required)?|need to follow up|to follow up",
        r"no follow[- ]?ups?(?: needed| required)?|nothing to follow up",
    ),
    "has_children": (
        r"has (?:a|an|one|two|three|four|\d) (?:kids?|children|child|sons?|daughters?)|(?:his|her|their) (?:kids|son|daughter)",  # noqa: E501
        r"(?:no|doesn'?t have) kids|no children|childless",
    ),
    "tried": (
        r"^(?:i )?(?:made|cooked|baked|tried|whipped up)\b",
        rf"{_NOT} (?:\w+ )?tried|yet to try|want to try|saved (?:a|an|this|the)\b",
    ),
    "done": (r"\bdone\b|\bfinished\b|\bcompleted\b", rf"{_NOT} (?:yet )?done|still to do"),
}
# kind -> the verdict it holds (``phrases.find_verdicts``)
VERDICTS = {"would_recommend": "recommend", "would_return": "return", "would_rewatch": "rewatch"}
_RETURN_MORE = (re.compile(r"\bmust (?:go|come) back\b", re.I), re.compile(r"\bwon'?t be back\b", re.I))


def read_flag(text: str, name: str, kind: str | None = None) -> bool | None:
    """True or False when the text says so outright for the field ``name``; None otherwise.

    A field of a verdict kind (``would_recommend``...; by default the kind its
    name implies) takes the verdict; another is read by its name.
    """
    kind = kind or kind_by_name(name) or ""
    if kind in VERDICTS:
        return _verdict(text, VERDICTS[kind])
    if name in FLAGS:
        yes, no = FLAGS[name]
        return _one(bool(compiled(yes).search(text)), bool(compiled(no).search(text)))
    return _by_label(text, name)


def _verdict(text: str, kind: str) -> bool | None:
    said = find_verdicts(text).get(kind)
    if kind == "return" and said is None:
        return _one(bool(_RETURN_MORE[0].search(text)), bool(_RETURN_MORE[1].search(text)))
    return said


def _by_label(text: str, name: str) -> bool | None:
    label = re.escape(name.replace("_", " ")).replace(r"\ ", "[- ]")
    answered = compiled(rf"\b{label}\s*(?::|=|\?)\s*(yes|no|true|false|y|n)\b").search(text)
    if answered:
        return answered.group(1).lower() in ("yes", "true", "y")
    negated = bool(compiled(rf"\b{_NOT}\s+{label}\b").search(text))
    stated = " " in name.replace("_", " ") and bool(compiled(rf"(?<!no )(?<!not )\b{label}\b").search(text))
    return _one(stated and not negated, negated)


def _one(yes: bool, no: bool) -> bool | None:
    return yes if yes != no else None
