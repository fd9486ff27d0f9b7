"""Trigger keyword matching: which of a template's keywords the content says.

Keywords and content are compared as sequences of stems (``text.stems``), so
matches respect word boundaries and tolerate case and inflection: "eating at"
matches the keyword "ate at", "TIL" matches "til", and "ate" is never found in
"private". Each keyword counts once. A phrase of several words is stronger
evidence than a single word; the evidence of several keywords combines as
independent signals: ``1 - prod(1 - w)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remember.templates.suggest.text import stems

#: Evidence of one matched keyword of one word, and of a phrase of two or more.
WORD_WEIGHT = 0.45
PHRASE_WEIGHT = 0.6


@dataclass(frozen=True)
class KeywordIndex:
    """A template's trigger keywords as stem sequences, grouped by their first stem."""

    by_first: dict[str, tuple[tuple[tuple[str, ...], str], ...]]

    @classmethod
    def build(cls, keywords: Sequence[str]) -> KeywordIndex:
        grouped: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        seen: set[tuple[str, ...]] = set()
        for keyword in keywords:
            sequence = tuple(stems(keyword))
            if sequence and sequence not in seen:
                seen.add(sequence)
                grouped.setdefault(sequence[0], []).append((sequence, keyword))
        return cls({first: tuple(entries) for first, entries in grouped.items()})


@dataclass(frozen=True)
class KeywordMatch:
    """The keywords found (as the template spells them) and their combined evidence, 0 to 1."""

    matched: tuple[str, ...]
    score: float


def match_keywords(content_stems: Sequence[str], index: KeywordIndex) -> KeywordMatch:
    """Every keyword of ``index`` found in the stemmed content, with the combined evidence."""
    found: dict[str, int] = {}
    for position, word in enumerate(content_stems):
        for sequence, keyword in index.by_first.get(word, ()):
            end = position + len(sequence)
            if keyword not in found and tuple(content_stems[position:end]) == sequence:
                found[keyword] = len(sequence)
    missing = 1.0
    for length in found.values():
        missing *= 1.0 - (PHRASE_WEIGHT if length > 1 else WORD_WEIGHT)
    # Longest phrases first: they say most about why the template was chosen.
    ordered = sorted(found, key=lambda keyword: -found[keyword])
    return KeywordMatch(tuple(ordered), 1.0 - missing)
