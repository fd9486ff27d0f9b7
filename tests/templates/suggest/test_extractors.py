"""Each extractor: what it reads, and what it must not read."""

from __future__ import annotations

from datetime import date

import pytest

from remember.templates.suggest.amounts import Money, Rating, find_money, find_price_ranges, find_ratings
from remember.templates.suggest.dates import find_dates
from remember.templates.suggest.people import person_names
from remember.templates.suggest.phrases import (
    find_companies,
    find_destinations,
    find_titles,
    find_venues,
    find_verdicts,
)

TODAY = date(2026, 2, 11)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "expected", "tense"),
    [
        ("sushi yesterday", date(2026, 2, 10), "past"),
        ("it was last night", date(2026, 2, 10), "past"),
        ("finished it last Friday", date(2026, 2, 6), "past"),
        ("last Wednesday", date(2026, 2, 4), "past"),
        ("on 2026-02-10", date(2026, 2, 10), "past"),
        ("on March 3rd", date(2026, 3, 3), "future"),
        ("on the 3rd of March 2025", date(2025, 3, 3), "past"),
        ("since Dec 25, 2025", date(2025, 12, 25), "past"),
        ("birthday is October 12", date(2025, 10, 12), "past"),
        ("pay it by Friday", date(2026, 2, 13), "future"),
        ("due Wednesday", date(2026, 2, 18), "future"),
        ("three days ago", date(2026, 2, 8), "past"),
        ("a week ago", date(2026, 2, 4), "past"),
        ("today was long", TODAY, "today"),
        ("tomorrow", date(2026, 2, 12), "future"),
    ],
)
def test_dates(text: str, expected: date, tense: str) -> None:
    [found] = find_dates(text, TODAY)
    assert (found.value, found.tense) == (expected, tense)


@pytest.mark.parametrize(
    "text", ["next Friday", "on Friday", "last week", "on 3/4", "in May", "I may 5 times", "2026-02-30", "Q3"]
)
def test_dates_not_read(text: str) -> None:
    assert find_dates(text, TODAY) == []


def test_the_same_date_said_twice_is_one() -> None:
    assert len(find_dates("yesterday, 2026-02-10", TODAY)) == 1
    assert len(find_dates("yesterday and today", TODAY)) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [("easily 5 stars", Rating(5, 5)), ("4/5", Rating(4, 5)), ("rated it 8 out of 10", Rating(8, 10)),
     ("4.5 stars", Rating(4.5, 5)), ("five-star", Rating(5, 5)), ("9/10 would watch", Rating(9, 10)),
     ("73/100", Rating(73, 100))],
)  # fmt: skip
def test_ratings(text: str, expected: Rating) -> None:
    assert find_ratings(text) == [expected]


@pytest.mark.parametrize("text", ["rated it 8", "on 3/4/2026", "7/8 of the pie", "12/10 would pet", "24/7", "starry"])
def test_ratings_not_read(text: str) -> None:
    assert find_ratings(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("$45", Money(45, None)), ("€20", Money(20, "EUR")), ("£12.50", Money(12.5, "GBP")), ("$1,200", Money(1200, None)),
     ("budget $8k", Money(8000, None)), ("45 dollars", Money(45, None)), ("20 euros", Money(20, "EUR")),
     ("USD 300", Money(300, "USD"))],
)  # fmt: skip
def test_money(text: str, expected: Money) -> None:
    assert find_money(text) == [expected]


@pytest.mark.parametrize("text", ["lose 10 pounds", "$$$", "45 minutes", "room 212", "$$ and packed"])
def test_money_not_read(text: str) -> None:
    assert find_money(text) == []


def test_price_ranges() -> None:
    assert find_price_ranges("$$ and always packed") == ["$$"]
    assert find_price_ranges("14 courses, $$$$ but great") == ["$$$$"]
    assert find_price_ranges("$45 for two") == []
    assert find_price_ranges("$$$$$ is not a range") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("finished 'Dune' yesterday", ["Dune"]), ("“Project Hail Mary” was great", ["Project Hail Mary"]),
     ('watched "The Bear"', ["The Bear"]), ("«Amélie» again", ["Amélie"])],
)  # fmt: skip
def test_titles(text: str, expected: list[str]) -> None:
    assert find_titles(text) == expected


@pytest.mark.parametrize("text", ["Went to Luigi's for mom's birthday", "it's the kids' favourite", "rock 'n' roll"])
def test_apostrophes_are_not_quotes(text: str) -> None:
    assert find_titles(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("I just met Sarah Chen at the conference.", ["Sarah Chen"]), ("coffee with Maria Lopez", ["Maria Lopez"]),
     ("My coworker Lina has two kids", ["Lina"]), ("got introduced to Dr. Patel", ["Patel"]),
     ("Jake's birthday is soon", ["Jake"]), ("my new neighbour is called Tom", ["Tom"])],
)  # fmt: skip
def test_people(text: str, expected: list[str]) -> None:
    assert person_names(text) == expected


@pytest.mark.parametrize(
    "text", ["met with the team", "Met with legal", "Sarah said hi", "meeting on Monday", "talked to my boss"]
)
def test_people_not_read(text: str) -> None:
    assert person_names(text) == []


def test_venues_destinations_and_companies() -> None:
    assert find_venues("Had great sushi at Nobu yesterday") == ["Nobu"]
    assert find_venues("went to Luigi's for dinner") == ["Luigi's"]
    assert find_destinations("Just got back from 10 days in Vietnam") == ["Vietnam"]
    assert find_destinations("Planning a trip to Japan in April") == ["Japan"]
    assert find_companies("she works at Google now") == ["Google"]
    assert find_venues("at the office at 5") == []
    assert find_destinations("Lisbon was gorgeous") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("would recommend", {"recommend": True}), ("wouldn't recommend it", {"recommend": False}),
     ("Highly recommend!", {"recommend": True}), ("Wouldn't go back", {"return": False}),
     ("will definitely go back", {"return": True}), ("never going back", {"return": False}),
     ("would watch it again", {"rewatch": True}), ("not worth a rewatch", {}),
     ("I won't watch it again", {"rewatch": False}),
     ("loved it", {}), ("the recommended dose", {}), ("came back home", {})],
)  # fmt: skip
def test_verdicts_only_when_explicit(text: str, expected: dict[str, bool]) -> None:
    assert find_verdicts(text) == expected
