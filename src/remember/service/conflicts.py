"""Conflicts the engine can read, surfaced and never settled on its own (docs/memories.md, "Truth over time").

Two free-text memories disagree when they say the same thing but for a value: a number, a date, an amount,
a name or a place ("I live in Paris" / "I live in Berlin"; "The rent is $1,200" / "The rent is $1,350").
Read without a model: the values are found by pattern (``readable_values``); the rest of the two texts must
be near by meaning (vector cosine at least ``COSINE``, on the common scale of ``search/embedders/scale.py``,
compared with the embedder's own cosines through it) and share most of their keywords once the values are
set aside (Jaccard at least ``OVERLAP``, and ``MIN_SHARED`` of them); and each must hold a value of one
kind the other lacks.

A create names the current memories a new free-text memory may update, with the values that differ, for
the assistant to act on (update, or ``supersedes``); nothing is changed. A search ranks the newer of two
current memories that disagree first. The thresholds were chosen on LoCoMo dev turns, which are distinct
things said and must raise no hint (``python -m bench --only conflicts``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from remember.caller import Caller
from remember.filters import Filter, conjoin
from remember.models import Memory
from remember.search import text
from remember.service import visibility
from remember.store import Store

COSINE = 0.4  # a name or a number moves a short sentence's vector far: the keywords decide
OVERLAP = 0.5
MIN_SHARED = 2  # keywords both hold beside the values ("Thanks, Mel!" / "Thanks, Jon!" share one)
LONG = 12  # keywords of two texts past which half the overlap asked for rules a pair out before reading values
NEAREST = 5  # vector neighbours looked at on a create
KINDS = ("amount", "date", "number", "name")
# How much later the newer of two memories that disagree must have happened to rank first: another occasion,
# not the next note of the same one ("note 4" and "note 5" of one walk).
NEWER_BY = timedelta(hours=1)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "amount",
        re.compile(
            r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion|thousand)\b)?"
            r"|\b\d[\d,]*(?:\.\d+)?\s?(?:dollars|euros|pounds|usd|eur|gbp|bucks)\b",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}|{_MONTH}\.?\s+{_DAY}(?:,?\s+\d{{4}})?"
            rf"|{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?|{_MONTH}\s+\d{{4}}|(?:19|20)\d{{2}}"
            r"|\d{1,2}(?::\d{2})?\s?(?:am|pm))\b",
            re.I,
        ),
    ),
    ("number", re.compile(r"\b\d+(?:[.,]\d+)?\b")),
)
_NAME = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“]\s*|\n\s*)$")
# Capitalised words that name nothing: the first person, days and months (dates are read apart), greetings.
_NOT_NAMES = frozenset(
    {
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "im",
        "ive",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "yes",
        "no",
        "oh",
        "wow",
        "ok",
        "okay",
        "yeah",
        "sure",
        "great",
    }
)


def readable_values(text: str) -> dict[str, set[str]]:
    """The values of each kind in ``text``: amounts, dates (and times), other numbers, names and places."""
    found: dict[str, set[str]] = {kind: set() for kind in KINDS}
    rest = text
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(rest):
            found[kind].add(_plain(match.group()))
        rest = pattern.sub(" ", rest)
    for match in _NAME.finditer(rest):
        words = match.group().split()
        if _SENTENCE_START.search(rest[: match.start()]):
            words = words[1:]  # a capital that starts a sentence says nothing
        found["name"] |= {w.casefold() for w in words if w.casefold() not in _NOT_NAMES}
    return {kind: values for kind, values in found.items() if values}


def _plain(value: str) -> str:
    return " ".join(value.casefold().replace(",", "").split())


@dataclass(frozen=True)
class Difference:
    """Values of one kind that the older memory holds and the newer does not, and the other way round."""

    kind: str
    before: tuple[str, ...]
    after: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": list(self.before), "to": list(self.after)}


@lru_cache(maxsize=4_096)
def _values(text_: str) -> dict[str, frozenset[str]]:
    """``readable_values``, kept for the texts read again (a search compares its first places pair by pair)."""
    return {kind: frozenset(values) for kind, values in readable_values(text_).items()}


@lru_cache(maxsize=4_096)
def _terms(text_: str) -> frozenset[str]:
    return frozenset(text.query_terms(text_))


def differences(before: str, after: str) -> tuple[Difference, ...]:
    """The kinds of value in which the two texts differ, each holding one the other lacks."""
    old, new = _values(before), _values(after)
    out = []
    for kind in KINDS:
        a, b = old.get(kind, frozenset()), new.get(kind, frozenset())
        if a - b and b - a:
            out.append(Difference(kind, tuple(sorted(a - b)), tuple(sorted(b - a))))
    return tuple(out)


def same_but_values(before: str, after: str, found: Sequence[Difference]) -> bool:
    """Whether the two texts share most of their keywords, and at least ``MIN_SHARED``, once the values in which
    they differ (``found``) are set aside."""
    differing = {word for d in found for value in (*d.before, *d.after) for word in _terms(value)}
    left = _terms(before) - differing
    right = _terms(after) - differing
    shared = left & right
    return len(shared) >= MIN_SHARED and len(shared) / max(len(left | right), 1) >= OVERLAP


def _apart(before: str, after: str) -> bool:
    """Whether two texts of many words share too few to be about the same thing whatever their values (read
    before the values are: long texts, which most pairs of a search's first places are, cost the most to read)."""
    left, right = _terms(before), _terms(after)
    union = len(left | right)
    return union > LONG and len(left & right) / union < OVERLAP / 2


def disagree(before: str, after: str, cosine: float, least: float | None = None) -> tuple[Difference, ...]:
    """How the two texts disagree, when they say the same thing but for readable values; () when they do not.
    ``least``: ``COSINE`` as the embedder's own cosine between two stored texts (``scale.py``; None: ``COSINE``
    itself, the common scale's)."""
    if cosine < (COSINE if least is None else least) or _apart(before, after):
        return ()
    found = differences(before, after)
    return found if found and same_but_values(before, after, found) else ()


@dataclass(frozen=True)
class Hint:
    """A current memory a new one may update, how near it is, and the values that differ."""

    memory_id: str
    similarity: float
    differences: tuple[Difference, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "similarity": self.similarity,
            "differs": [d.as_dict() for d in self.differences],
        }


def hints(
    store: Store, caller: Caller, memory: Memory, vector: bytes, current: Filter | None, least: float | None = None
) -> tuple[Hint, ...]:
    """The current free-text memories, within the caller's reach, that ``memory`` (free text, just stored) may
    update: near it (``least``, as in ``disagree``) and differing from it in a readable value."""
    floor = COSINE if least is None else least
    tree = visibility.within_reach(caller, conjoin(current))
    near = store.index.vector_candidates(caller.user, vector, filter=tree, deleted="exclude", limit=NEAREST + 1)
    close = [(i, c) for i, c in near if i != memory.id and c >= floor]
    if not close:
        return ()
    by_id = {m.id: m for m in store.memories.get_many(caller.user, [i for i, _ in close])}
    out = []
    for memory_id, cosine in close:
        other = by_id.get(memory_id)
        if other is None or other.template_id is not None or other.content == memory.content:
            continue
        found = disagree(other.content, memory.content, cosine, floor)
        if found:
            out.append(Hint(memory_id, round(cosine, 4), found))
    return tuple(out)


def newer_first(items: Sequence[tuple[Memory, bytes | None]], least: float | None = None) -> list[int]:
    """The order of ``items`` (best first) with the newer of two that disagree moved just above the older
    (``least``, as in ``disagree``)."""
    import numpy as np

    order = list(range(len(items)))
    vectors = {i: np.frombuffer(v, dtype="<f4") for i, (_, v) in enumerate(items) if v is not None}
    for j in range(1, len(items)):
        newer, vector = items[j]
        if vector is None or newer.template_id is not None:
            continue
        for position, i in enumerate(order[: order.index(j)]):
            older = items[i][0]
            if older.template_id is not None or newer.starts - older.starts < NEWER_BY or i not in vectors:
                continue
            cosine = float(vectors[i] @ vectors[j])
            if disagree(older.content, newer.content, cosine, least):
                order.remove(j)
                order.insert(position, j)
                break
    return order
