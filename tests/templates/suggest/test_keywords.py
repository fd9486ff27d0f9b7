"""Keyword evidence: phrases beat single words, several keywords add up, each counts once."""

from __future__ import annotations

import pytest

from remember.templates.suggest.text import stems
from remember.templates.suggest.triggers import PHRASE_WEIGHT, WORD_WEIGHT, KeywordIndex, match_keywords

INDEX = KeywordIndex.build(["dinner at", "sushi", "ate at", "TIL", "restaurant"])


def match(content: str) -> tuple[tuple[str, ...], float]:
    found = match_keywords(stems(content), INDEX)
    return found.matched, round(found.score, 9)


def test_a_phrase_weighs_more_than_a_word() -> None:
    assert match("dinner at Nobu") == (("dinner at",), PHRASE_WEIGHT)
    assert match("great sushi") == (("sushi",), WORD_WEIGHT)


def test_evidence_combines_as_independent_signals() -> None:
    matched, score = match("Eating at Nobu, best sushi")
    assert matched == ("ate at", "sushi")
    assert score == pytest.approx(1 - (1 - PHRASE_WEIGHT) * (1 - WORD_WEIGHT))


def test_each_keyword_counts_once_and_case_does_not_matter() -> None:
    assert match("SUSHI sushi Sushi") == (("sushi",), WORD_WEIGHT)
    assert match("til octopuses have three hearts")[0] == ("TIL",)


def test_nothing_matched_is_zero() -> None:
    assert match("the weather is nice") == ((), 0.0)


def test_duplicate_keywords_are_folded() -> None:
    index = KeywordIndex.build(["Movie", "movies", "movie"])
    assert sum(len(entries) for entries in index.by_first.values()) == 1
