"""Prefill: values mapped to fields by type and name, validated, and only when unambiguous."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from remember.templates import builtin_lookup, builtin_template, parse_template, resolve
from remember.templates.suggest import extract, prefill

NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)  # a Wednesday evening


def fill(template_id: str, content: str) -> dict[str, Any]:
    definition = builtin_template(f"builtin:{template_id}")
    assert definition is not None
    return prefill(extract(content, NOW.date()), resolve(definition, builtin_lookup()), NOW)


def test_restaurant_review() -> None:
    assert fill("restaurant_review", "Had great sushi at Nobu yesterday, 5 stars, $$$, would go back") == {
        "restaurant_name": "Nobu",
        "rating": 5.0,
        "price_range": "$$$",
        "last_visited": "2026-02-10T00:00:00.000000Z",
        "would_return": True,
    }


def test_book_review_scales_a_rating_out_of_ten() -> None:
    assert fill("book_review", "finished 'Dune' last Friday, 8 out of 10, would recommend") == {
        "title": "Dune",
        "rating": 4.0,
        "date_finished": "2026-02-06",
        "would_recommend": True,
    }


@pytest.mark.parametrize(("said", "expected"), [("7/10", 3.5), ("4/5", 4.0), ("73/100", None), ("1/10", None)])
def test_ratings_are_scaled_only_to_whole_or_half_points_within_range(said: str, expected: float | None) -> None:
    assert fill("book_review", f"gave it {said}").get("rating") == expected


def test_integer_rating_fields_refuse_half_points() -> None:
    scored = resolve(parse_template({"id": "t", "name": "T", "fields": [
        {"name": "rating", "type": "integer", "validation": {"min": 1, "max": 5}}]}))  # fmt: skip
    assert prefill(extract("7/10", NOW.date()), scored, NOW) == {}
    assert prefill(extract("8/10", NOW.date()), scored, NOW) == {"rating": 4}


def test_person_name_and_company() -> None:
    assert fill("person", "I just met Sarah Chen at the conference. She works at Google.") == {
        "name": "Sarah Chen",
        "company": "Google",
        "where_met": "the conference",
    }


def test_two_names_are_ambiguous() -> None:
    assert "name" not in fill("person", "met Sarah and then coffee with Tom")


def test_money_with_a_named_currency_fills_the_currency_too() -> None:
    assert fill("inventory_item", "Bought a Dyson for €499") == {
        "item_name": "Dyson",
        "purchase_price": 499.0,
        "currency": "EUR",
    }
    assert fill("inventory_item", "Bought a Dyson for $499") == {"item_name": "Dyson", "purchase_price": 499.0}
    assert fill("inventory_item", "$499 or $520, not sure") == {}


def test_a_date_two_fields_could_take_goes_to_neither() -> None:
    # last_done and a goal's target both could take an unmarked date; "bought" marks a purchase.
    assert fill("inventory_item", "Bought it yesterday") == {"purchase_date": "2026-02-10"}
    assert "last_visited" not in fill("restaurant_review", "Nobu yesterday and Zuma today")


def test_future_dates_fill_due_dates_and_past_dates_do_not() -> None:
    assert fill("task", "Pay the electricity bill by Friday") == {"due_date": "2026-02-13"}
    assert fill("task", "Paid the bill yesterday") == {}
    assert fill("book_review", "finishing it tomorrow") == {}


def test_a_hidden_field_is_not_prefilled() -> None:
    # Travel's rating shows only once the trip is visited; the status is read, not guessed.
    assert fill("travel_destination", "10 days in Vietnam, 9/10") == {"destination": "Vietnam"}
    assert fill("travel_destination", "Just got back from 10 days in Vietnam, 9/10") == {
        "destination": "Vietnam",
        "trip_status": "visited",
        "rating": 4.5,
    }


def test_values_failing_validation_are_dropped() -> None:
    strict = resolve(parse_template({"id": "t", "name": "T", "fields": [
        {"name": "title", "type": "string", "validation": {"max_length": 3}},
        {"name": "price_range", "type": "enum", "options": ["$", "$$"]}]}))  # fmt: skip
    assert prefill(extract("'Dune Messiah' at $$$", NOW.date()), strict, NOW) == {}
    assert prefill(extract("'Dune' at $$", NOW.date()), strict, NOW) == {"price_range": "$$"}


def test_nothing_is_invented() -> None:
    assert fill("movie_review", "loved the new Pixar film") == {"kind": "movie"}
    assert fill("movie_review", "loved it") == {}
    assert fill("journal_entry", "feeling low") == {"mood": "low"}  # no date: "today" is not said
