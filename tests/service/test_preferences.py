from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import StoreError, ValidationFailed
from remember.preferences import SPECS, defaults
from remember.service import Services


def test_every_preference_has_a_default_of_its_kind(services: Services) -> None:
    values = services.preferences.effective(Caller("alice"))
    assert values == defaults()
    assert set(values) == {s.path for s in SPECS}


def test_get_nests_by_category_and_filters(services: Services) -> None:
    assert services.preferences.get(Caller("alice"), "search") == {
        "search": {
            "default_limit": 10,
            "default_alpha": "auto",
            "min_score": 0.2,
            "weight_boost": 0.1,
            "recency_boost": 0.0,
            "recency_half_life_days": 30.0,
        }
    }
    assert set(services.preferences.get(Caller("alice"))) == {"memory", "privacy", "search", "spaces", "templates"}


def test_update_answers_old_and_new_and_persists(services: Services) -> None:
    change = services.preferences.update(Caller("alice"), "search.default_limit", 25, reason="more")
    assert (change.old_value, change.new_value, change.reason) == (10, 25, "more")
    again = services.preferences.update(Caller("alice"), "search.default_limit", 30)
    assert again.old_value == 25
    assert services.preferences.effective(Caller("alice"))["search.default_limit"] == 30
    assert services.preferences.effective(Caller("bob"))["search.default_limit"] == 10


def test_kinds_are_coerced_sensibly(services: Services) -> None:
    assert services.preferences.update(Caller("alice"), "search.default_alpha", 1).new_value == 1.0
    assert services.preferences.update(Caller("alice"), "search.default_alpha", " Auto ").new_value == "auto"
    assert services.preferences.update(
        Caller("alice"), "templates.suppressed_templates", ["a", "a", " b"]
    ).new_value == [
        "a",
        "b",
    ]


@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        ("search.nope", 1, "unknown_preference"),
        ("", 1, "unknown_preference"),
        ("search.default_limit", "ten", "type"),
        ("search.default_limit", 10.5, "type"),
        ("search.default_limit", True, "type"),
        ("search.default_limit", 0, "range"),
        ("search.default_limit", 101, "range"),
        ("search.default_alpha", 1.5, "range"),
        ("search.default_alpha", "automatic", "type"),
        ("search.default_alpha", None, "type"),
        ("templates.auto_suggest", "yes", "type"),
        ("templates.suppressed_templates", "a", "type"),
        ("templates.suppressed_templates", [1], "type"),
        ("memory.default_type", "", "type"),
        ("memory.default_type", None, "type"),
    ],
)
def test_bad_values_are_refused_and_nothing_changes(services: Services, path: str, value: Any, code: str) -> None:
    with pytest.raises(ValidationFailed) as exc:
        services.preferences.update(Caller("alice"), path, value)
    assert exc.value.errors[0].code == code
    assert services.preferences.effective(Caller("alice")) == defaults()


def test_unknown_category_lists_the_known_ones(services: Services) -> None:
    with pytest.raises(ValidationFailed, match="Categories: memory, privacy, search, spaces, templates"):
        services.preferences.get(Caller("alice"), "colours")


def test_non_text_path_is_refused(services: Services) -> None:
    with pytest.raises(ValidationFailed, match="preference_path must be a text"):
        services.preferences.update(Caller("alice"), 5, 1)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_are_refused(services: Services, value: float) -> None:
    with pytest.raises(ValidationFailed, match="finite number"):
        services.preferences.update(Caller("alice"), "memory.default_weight", value)
    assert services.memories.create(Caller("alice"), {"content": "still works"}).weight == 0.5


def test_default_type_follows_the_type_rules(services: Services) -> None:
    assert services.preferences.update(Caller("alice"), "memory.default_type", "My Notes").new_value == "my_notes"
    with pytest.raises(ValidationFailed, match="letters, digits"):
        services.preferences.update(Caller("alice"), "memory.default_type", "My Notes!")
    assert services.memories.create(Caller("alice"), {"content": "x"}).type == "my_notes"


@pytest.mark.parametrize(
    ("path", "stored", "use"),
    [
        ("templates.max_suggestions", "3", lambda s: s.suggestions.suggest(Caller("alice"), "I cooked a recipe")),
        ("templates.suppressed_templates", "builtin:recipe", lambda s: s.suggestions.suggest(Caller("alice"), "x")),
        ("search.weight_boost", True, lambda s: s.search.search(Caller("alice"), "anything")),
        ("memory.default_type", 7, lambda s: s.memories.create(Caller("alice"), {"content": "x"})),
    ],
)
def test_a_stored_value_of_another_kind_is_refused_with_the_fix(
    services: Services, path: str, stored: Any, use: Any
) -> None:
    """Every value is checked before it is stored; one changed by hand in the database is not used as it is."""
    services.store.preferences.set("alice", path, stored, old_value=None, reason=None, at=datetime.now(UTC))
    with pytest.raises(StoreError, match=rf"The stored preference {path} is .*: set it again \(remember prefs set"):
        use(services)
