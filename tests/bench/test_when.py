"""Reading the time a query names, relative to when it is asked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.search_ideas.when import span

NOW = datetime(2023, 5, 17, 15, 30, tzinfo=UTC)  # a Wednesday


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did I do yesterday?", "2023-05-16", "2023-05-17"),
        ("What artist did I start listening to last Friday?", "2023-05-12", "2023-05-13"),
        ("Which bike did I fix the past weekend?", "2023-05-13", "2023-05-15"),
        ("What did I buy last week?", "2023-05-08", "2023-05-15"),
        ("Who did I meet last month?", "2023-04-01", "2023-05-01"),
        ("Where did we go last year?", "2022-01-01", "2023-01-01"),
        ("How much did I make from eggs this month?", "2023-05-01", "2023-05-17T15:30"),
        ("the trips I took in the past three months", "2023-02-16T15:30", "2023-05-17T15:30"),
        ("babies born in the last few months", "2023-02-16T15:30", "2023-05-17T15:30"),
        ("doctor's appointments in March", "2023-03-01", "2023-04-01"),
        ("the first BBQ in June", "2022-06-01", "2022-07-01"),  # June has not come yet this year
        ("What did Caroline paint in August 2021?", "2021-08-01", "2021-09-01"),
        ("in December 2023", "2023-12-01", "2024-01-01"),
    ],
)
def test_spans(query: str, start: str, end: str) -> None:
    assert span(query, NOW) == (day(start), day(end))


def test_an_amount_ago_is_roughly_that_long_ago() -> None:
    found = span("the milestone I mentioned four weeks ago", NOW)
    assert found is not None
    assert found[0] < day("2023-04-19T15:30") < found[1]
    assert (found[1] - found[0]).days == 14  # a quarter of the distance either side
    five = span("What did I post 5 days ago?", NOW)
    assert five is not None and five[0] < day("2023-05-12T15:30") < five[1]
    assert span("a day ago", NOW) == (day("2023-05-15T15:30"), day("2023-05-17T15:30"))


@pytest.mark.parametrize(
    "query",
    [
        "When did Melanie go camping?",  # asks for a date: names no span
        "How many days ago did I run the 5K?",  # asks for an amount of time
        "What is the last book I read?",
        "my favourite weekday",
        "",
    ],
)
def test_no_span(query: str) -> None:
    assert span(query, NOW) is None
