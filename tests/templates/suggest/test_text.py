"""Tokens and stems: inflection-tolerant, never matching inside a word."""

from __future__ import annotations

import pytest

from remember.templates.suggest.text import stems, tokens
from remember.templates.suggest.triggers import KeywordIndex, match_keywords


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("ate at", "eating at"),
        ("ate at", "Eat at"),
        ("finished reading", "Finished Reading"),
        ("bake", "baking"),
        ("baked", "bakes"),
        ("movie", "movies"),
        ("story", "stories"),
        ("plan", "planned"),
        ("run", "running"),
        ("co-worker", "coworker"),
        ("couldn't put it down", "couldnt put it down"),
        ("recipe", "recipes"),
    ],
)
def test_inflections_share_a_stem(left: str, right: str) -> None:
    assert stems(left) == stems(right)


@pytest.mark.parametrize(("left", "right"), [("meeting", "meet"), ("tiles", "til"), ("note", "not"), ("met", "meet")])
def test_unrelated_words_stay_apart(left: str, right: str) -> None:
    assert stems(left) != stems(right)


def test_tokens_split_on_word_boundaries_and_keep_currency_signs() -> None:
    assert tokens("TIL: €20, “Dune”!") == ["til", "€", "20", "dune"]


@pytest.mark.parametrize("content", ["a private dinner", "the debate", "Kate said hi", "at eleven"])
def test_no_match_inside_words(content: str) -> None:
    assert match_keywords(stems(content), KeywordIndex.build(["ate at", "ate"])).matched == ()
