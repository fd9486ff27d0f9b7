"""The field readers behind prefill, on sentences of their own (not from the labelled sets)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from remember.templates import parse_template, resolve
from remember.templates.suggest import extract, prefill
from remember.templates.suggest.choices import read_choice
from remember.templates.suggest.counts import read_count
from remember.templates.suggest.datefields import choose
from remember.templates.suggest.dates import find_dates
from remember.templates.suggest.flags import read_flag
from remember.templates.suggest.labels import labelled
from remember.templates.suggest.spans import split_list
from remember.templates.suggest.works import creators, titles

from .conftest import NOW

TODAY = date(2026, 2, 11)  # a Wednesday


def _date(name: str, text: str) -> str | None:
    said = choose(name, find_dates(text, TODAY), text)
    return said.value.isoformat() if said else None


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("start_date", "Renovation from 2026-03-02 to 2026-03-20", "2026-03-02"),
        ("end_date", "Renovation from 2026-03-02 to 2026-03-20", "2026-03-20"),
        ("start_date", "Conference trip May 4 to May 7", "2026-05-04"),
        ("due_date", "Send the slides by Thursday", "2026-02-12"),
        ("target_date", "Get fluent in Italian by January 10", "2027-01-10"),  # the coming one, not the nearest
        ("next_meeting", "Sync on 2026-02-09, next call 2026-02-16", "2026-02-16"),
        ("date", "Sync on 2026-02-09, next call 2026-02-16", "2026-02-09"),
        ("birthday", "Omar was born on 1990-04-02", "1990-04-02"),
        ("birthday", "Omar's birthday is April 2", None),  # no year: not invented
        ("purchase_date", "Bought the kettle yesterday", "2026-02-10"),
        ("last_interaction", "Introduced to Mia yesterday", None),  # that is a first meeting
        ("first_met", "Introduced to Mia yesterday", "2026-02-10"),
        ("learned_on", "TIL octopuses have three hearts", "2026-02-11"),
    ],
)
def test_dates_go_to_the_field_of_their_role(name: str, text: str, expected: str | None) -> None:
    assert _date(name, text) == expected


ENUMS = parse_template({"id": "t", "name": "Chore", "fields": [
    {"name": "priority", "type": "enum", "options": ["low", "medium", "high"]},
    {"name": "effort", "type": "enum", "options": ["small", "large"]},
    {"name": "energy", "type": "integer"},
    {"name": "mood", "type": "enum", "options": ["good", "low"]},
    {"name": "diet", "type": "array", "item_type": "enum", "options": ["vegan", "halal"]},
]})  # fmt: skip


def _choice(name: str, text: str) -> Any:
    field = next(f for f in ENUMS.fields if f.name == name)
    return read_choice(text, field, tuple(f.name for f in ENUMS.fields if f.name != name))


def test_enum_options_beside_their_field_word_synonyms_and_everyday_words() -> None:
    assert _choice("priority", "clean the gutters, priority: high") == "high"
    assert _choice("priority", "urgent: clean the gutters") == "high"
    assert _choice("priority", "clean the gutters, it's high up") is None  # an everyday word alone
    assert _choice("effort", "low effort, big win") == "small"  # an alias beside the field's word
    assert _choice("mood", "low energy all day") is None  # "low" belongs to energy
    assert _choice("priority", "'High Priority' is a song") is None  # quoted text is not read
    assert _choice("diet", "vegan and halal options") == ["vegan", "halal"]
    assert _choice("priority", "low or high, who knows") is None  # two options: none


def test_counts_need_their_unit() -> None:
    assert read_count("serves 6, 40 minutes in the oven", "servings") == 6
    assert read_count("serves 6, 40 minutes in the oven", "cook_minutes") == 40
    assert read_count("2 hours in the oven", "cook_minutes") == 120
    assert read_count("made it for 6", "servings") is None
    assert read_count("confidence 4/5", "confidence", 5) == 4
    assert read_count("confidence 4/10", "confidence", 5) is None  # another scale
    assert read_count("altitude: 2300 m", "altitude") == 2300  # any field by its name


def test_yes_no_fields_are_stated_outright() -> None:
    assert read_flag("no visa required for EU citizens", "visa_required") is False
    assert read_flag("visa required: yes", "visa_required") is True
    assert read_flag("need a visa? not sure", "visa_required") is None
    assert read_flag("gluten free: yes", "gluten_free") is True  # any field by its name
    assert read_flag("no parking included", "parking_included") is False


def test_labelled_values_and_lists() -> None:
    assert labelled("Nice day. Next step: call the vet", "next_step") == "call the vet"
    assert labelled("Grateful for rain, tea and my dog", "gratitude", many=True) == ["rain", "tea", "my dog"]
    assert labelled("Weekly notes: nothing", "notes") is None  # a header, not a value
    assert split_list("Ana and the ops team, urgent") == ["Ana", "the ops team"]


def test_works_and_their_creators() -> None:
    assert titles("finished A Little Life by Hanya Yanagihara") == ["A Little Life"]
    assert creators("finished A Little Life by Hanya Yanagihara, by Sunday") == ["Hanya Yanagihara"]
    assert titles("Watched The Last of Us season 2 on HBO") == ["The Last of Us"]


def test_a_users_template_is_read_by_its_field_names_and_types() -> None:
    wine = resolve(parse_template({"id": "w", "name": "Wine", "fields": [
        {"name": "grape", "type": "string"}, {"name": "vintage", "type": "integer"},
        {"name": "rating", "type": "number", "validation": {"min": 1, "max": 5}},
        {"name": "price", "type": "number"}, {"name": "currency", "type": "string"},
        {"name": "would_buy_again", "type": "boolean"}, {"name": "tasted_on", "type": "date"},
    ]}))  # fmt: skip
    text = "Grape: Nebbiolo, vintage: 2016, 4/5, €38. Would buy again: yes"
    assert prefill(extract(text, NOW.date()), wine, NOW) == {
        "grape": "Nebbiolo", "vintage": 2016, "rating": 4.0, "price": 38.0, "currency": "EUR",
        "would_buy_again": True,
    }  # fmt: skip
