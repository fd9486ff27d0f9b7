"""Did you mean: the names close to an unknown one."""

from __future__ import annotations

from remember.spelling import close_to, did_you_mean

COMMANDS = ["serve", "ui", "add", "get", "list", "update", "rm", "restore", "search", "similar", "context"]


def test_the_closest_names_are_offered_best_first() -> None:
    assert close_to("lst", COMMANDS) == ["list"]
    assert close_to("serach", COMMANDS) == ["search"]
    assert close_to("LIST", COMMANDS) == ["list"]


def test_names_far_less_alike_than_the_closest_are_left_out() -> None:
    assert close_to("bok_reveiw", ["book_review", "movie_review", "restaurant_review"]) == ["book_review"]


def test_dashes_are_ignored_and_names_beginning_with_it_offered() -> None:
    assert close_to("--wieght", ["--weight", "--when", "--json"]) == ["--weight"]
    assert close_to("--rem", ["--remove-tag", "--reason", "--ref"]) == ["--ref", "--remove-tag"]


def test_nothing_close_offers_nothing() -> None:
    assert close_to("zzzzzz", COMMANDS) == []
    assert close_to("x", []) == []
    assert did_you_mean([]) == ""


def test_options_are_listed_in_words() -> None:
    assert did_you_mean(["list"]) == " Did you mean list?"
    assert did_you_mean(["a", "b", "c"]) == " Did you mean a, b or c?"
