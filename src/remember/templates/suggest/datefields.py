"""Which said date a date field takes: by the field's kind, the date's tense and the words before it.

A date said right after a cue has a role: "from 2027-05-03" and "started ... on
January 5" start something, "to 2027-05-10", "finished it last Friday" and
"wrapped up yesterday" end it, "by Friday" is a deadline, "next meeting
2026-02-20" the next meeting, "born on 1988-07-23" a birthday, "warranty until
..." a warranty's end, "introduced to ... yesterday" a first meeting. A field
takes the date by its kind: a kind with a role (``start_date``, ``deadline``)
takes the one date of its role; a kind of a tense (``past_date``, and
``deadline`` for the coming one) takes the one date of that tense that no role
claims. Two candidates mean none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from remember.templates.suggest.dates import SaidDate
from remember.templates.suggest.field_kinds import kind_by_name

# kind -> the roles whose dates it takes
ROLES: dict[str, frozenset[str]] = {
    "start_date": frozenset({"start"}),
    "end_date": frozenset({"end"}),
    "finish_date": frozenset({"end"}),
    "deadline": frozenset({"due"}),
    "review_date": frozenset({"due"}),
    "next_meeting": frozenset({"next"}),
    "birthday": frozenset({"born"}),
    "warranty_end": frozenset({"warranty"}),
    "first_met": frozenset({"first"}),
    "purchase_date": frozenset({"bought"}),
    "lent_date": frozenset({"lent"}),
}
# kind -> the tenses of the unclaimed dates it takes
TENSES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("past_date", "finish_date", "purchase_date"), frozenset({"past", "today"})),
    "deadline": frozenset({"future"}),
    "date": frozenset({"past", "today", "future"}),
}
_ADJACENT = {
    "start": r"from|starting|starts|since",
    "end": r"to|until|till|through|back|-|\u2013",
    "due": r"by|due|before",
}
_RANGE = re.compile(r"\s*(?:to|until|till|through|-|\u2013)\s*", re.I)
_SPECIFIC = (
    ("born", re.compile(r"\bborn\b|\bbirthday\b", re.I)),
    ("warranty", re.compile(r"\bwarranty\b|\bguarantee\b", re.I)),
    ("next", re.compile(r"\bnext (?:meeting|call|session|sync|check-?in)\b", re.I)),
    ("first", re.compile(r"\bintroduced\b|\bfirst met\b|\bmet (?:\w+ ){0,2}first\b", re.I)),
    ("lent", re.compile(r"\blent\b|\bloaned\b", re.I)),
    ("bought", re.compile(r"\bbought\b|\bpurchased\b|\bordered\b", re.I)),
)
_VERBS = (
    ("start", re.compile(r"\b(?:start(?:ed|ing|s)?|kick(?:ed)? off|began|begin(?:s|ning)?|flying|leaving|departing)\b", re.I)),  # noqa: E501
    ("end", re.compile(r"\b(?:finish(?:ed)?|wrapped up|complet(?:ed|e)|ended|done|fixed|achieved|hit|reached|shipped)\b", re.I)),  # noqa: E501
)  # fmt: skip


def roles(dates: Sequence[SaidDate], text: str) -> list[str | None]:
    """The role of each date (or None), read from the words between it and the date or clause before it."""
    found: list[str | None] = []
    previous_end = 0
    for index, said in enumerate(dates):
        window = _window(text, previous_end, said.start)
        said_words = text[said.start : said.end].lower()
        role = "due" if said_words.startswith(("by ", "due ", "before ", "until ", "till ")) else _role(window)
        if role == "end" and index and found[-1] is None and _RANGE.fullmatch(window):
            found[-1] = "start"  # "April 2 to April 12": the first date of a range starts it
        found.append(role)
        previous_end = said.end
    return found


def choose(name: str, dates: Sequence[SaidDate], text: str, kind: str | None = None) -> SaidDate | None:
    """The date for the field ``name`` of ``kind`` (by default, the kind its name implies), or None."""
    kind = kind or kind_by_name(name) or ""
    wanted, tenses = ROLES.get(kind, frozenset()), TENSES.get(kind, frozenset())
    if not (wanted or tenses) or not dates:
        return None
    said_roles = roles(dates, text)
    if wanted:
        mine = [_coming(d) if role == "due" else d for d, role in zip(dates, said_roles, strict=True) if role in wanted]
        mine = [d for d in mine if kind != "birthday" or d.has_year]
        if len(mine) == 1 and (not tenses or mine[0].tense in tenses or kind == "finish_date"):
            return mine[0]
        if mine:
            return None
    free = [d for d, role in zip(dates, said_roles, strict=True) if role is None and d.tense in tenses]
    return free[0] if len(free) == 1 else None


def _coming(said: SaidDate) -> SaidDate:
    """A deadline without a year ("by October 12") is the coming one, not the nearest."""
    if said.has_year or said.tense != "past":
        return said
    try:
        value = said.value.replace(year=said.value.year + 1)
    except ValueError:
        return said
    return SaidDate(value, "future", said.start, said.end, said.has_year)


def _window(text: str, since: int, until: int) -> str:
    window = text[since:until]
    cut = max(window.rfind(". "), window.rfind("; "), window.rfind("! "), window.rfind("? "))
    return window[cut + 1 :] if cut >= 0 else window


def _role(window: str) -> str | None:
    tail = window.rstrip().lower()
    for role, pattern in _SPECIFIC:
        if pattern.search(window):
            return role
    for role, words in _ADJACENT.items():
        if re.search(rf"(?:^|\s)(?:{words})(?: on| the)?$", tail):
            return role
    for role, pattern in _VERBS:
        if pattern.search(window):
            return role
    return None
