"""The built-in library: fifteen templates that pass our own checks and resolve."""

from __future__ import annotations

import pytest

from remember.templates import (
    BUILTIN_PREFIX,
    builtin_lookup,
    builtin_template,
    builtin_templates,
    render_text,
    resolve,
    validate_content,
)
from remember.templates.limits import MAX_EXAMPLES

from .conftest import NOW

EXPECTED_IDS = {
    "builtin:person",
    "builtin:meeting_notes",
    "builtin:project",
    "builtin:task",
    "builtin:journal_entry",
    "builtin:goal",
    "builtin:habit",
    "builtin:inventory_item",
    "builtin:restaurant_review",
    "builtin:book_review",
    "builtin:movie_review",
    "builtin:recipe",
    "builtin:idea",
    "builtin:learning_note",
    "builtin:travel_destination",
}
BUILTINS = builtin_templates()


def test_exactly_the_fifteen_builtins():
    assert len(BUILTINS) == 15
    assert {d.id for d in BUILTINS} == EXPECTED_IDS
    assert len({d.name for d in BUILTINS}) == 15
    assert builtin_templates() is BUILTINS  # read once


@pytest.mark.parametrize("definition", BUILTINS, ids=lambda d: d.id)
def test_each_builtin_is_complete(definition):
    assert definition.id.startswith(BUILTIN_PREFIX)
    assert definition.is_default
    assert definition.auto_apply
    assert definition.version == "1.0"
    assert len(definition.description) > 30
    assert definition.category
    assert definition.tags
    assert len(definition.trigger_keywords) >= 20
    assert len(set(definition.trigger_keywords)) == len(definition.trigger_keywords)
    assert all(k == k.lower() for k in definition.trigger_keywords)
    assert 25 <= len(definition.examples) <= MAX_EXAMPLES
    assert len(set(definition.examples)) == len(definition.examples)
    assert all(20 <= len(example) <= 120 for example in definition.examples)
    resolved = resolve(definition, builtin_lookup())
    assert any(f.required for f in resolved.fields)
    assert all(f.description or f.name for f in resolved.fields)
    # Empty content fails only on required fields.
    result = validate_content(resolved, {}, now=NOW)
    assert {e.code for e in result.errors} == {"required"}


def test_the_library_uses_every_feature():
    fields = [f for d in BUILTINS for f in resolve(d, builtin_lookup()).fields]
    types = {f.type for f in fields}
    assert types >= {"string", "text", "number", "integer", "boolean", "date", "datetime", "enum", "array", "object"}
    assert "computed" in types
    assert any(f.show_if for f in fields)
    assert any(f.validation.pattern for f in fields)
    assert any(f.fields and f.type == "array" for f in fields)


def test_habit_inherits_from_goal_and_overrides_status():
    habit = resolve(builtin_template("builtin:habit"), builtin_lookup())  # type: ignore[arg-type]
    assert habit.ancestor_ids == ("builtin:goal",)
    names = [f.name for f in habit.fields]
    assert names[:2] == ["title", "description"]
    assert "frequency" in names
    status = habit.field("status")
    assert status is not None
    assert status.options == ("building", "established", "paused", "dropped")


def test_restaurant_review_context():
    restaurant = builtin_template("builtin:restaurant_review")
    assert restaurant is not None
    assert restaurant.trigger_context == {"location_present": True, "time_of_day": ["lunch", "dinner"]}
    assert {"restaurant", "ate at", "dinner at", "lunch at", "sushi"} <= set(restaurant.trigger_keywords)


@pytest.mark.parametrize(
    ("utterance", "template_id"),
    [
        ("Had great sushi at Nobu yesterday", "builtin:restaurant_review"),
        ("finished reading Dune last night, loved it", "builtin:book_review"),
        ("TIL that Python dicts keep insertion order", "builtin:learning_note"),
        ("Met Sarah at the conference, she's a PM at Google", "builtin:person"),
        ("Watched the season finale of Severance", "builtin:movie_review"),
        ("Remind me to renew my passport by Friday", "builtin:task"),
        ("Standup today: we decided to ship on Monday", "builtin:meeting_notes"),
    ],
)
def test_trigger_keywords_cover_typical_utterances(utterance, template_id):
    keywords = builtin_template(template_id).trigger_keywords  # type: ignore[union-attr]
    assert any(keyword in utterance.lower() for keyword in keywords)


def test_a_realistic_memory_for_each_of_three_builtins():
    lookup = builtin_lookup()
    restaurant = resolve(builtin_template("builtin:restaurant_review"), lookup)  # type: ignore[arg-type]
    result = validate_content(
        restaurant,
        {
            "restaurant_name": "Nobu",
            "cuisine_type": "Japanese",
            "location": {"city": "Malibu"},
            "rating": 4.5,
            "favorite_dishes": ["Black cod miso"],
            "price_range": "$$$$",
            "would_return": True,
        },
        now=NOW,
    )
    assert result.valid, result.errors
    assert "Restaurant name: Nobu" in render_text(restaurant, result.normalized)

    goal = resolve(builtin_template("builtin:goal"), lookup)  # type: ignore[arg-type]
    result = validate_content(
        goal, {"title": "Run 1000 km", "target_value": 1000, "current_value": 250, "target_date": "2026-12-31"}, now=NOW
    )
    assert result.normalized["progress_percent"] == 25.0
    assert result.normalized["days_remaining"] == 323
    assert result.normalized["status"] == "not_started"

    person = resolve(builtin_template("builtin:person"), lookup)  # type: ignore[arg-type]
    result = validate_content(
        person,
        {"name": "Sarah", "relationship": "met at a conference", "contact_info": {"email": "sarah@"}},
        now=NOW,
    )
    assert [(e.field, e.code, e.message) for e in result.errors] == [
        ("contact_info.email", "pattern", "Use an email address like name@example.com")
    ]
