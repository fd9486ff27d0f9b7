"""A user's fields are read by the kinds they declare, whatever they are called: prefill through the real engine."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from conftest import TickingClock
from remember.caller import Caller
from remember.service import Services
from remember.templates import parse_template, resolve
from remember.templates.suggest import extract, prefill, suggest

from .conftest import NOW

DINNER: dict[str, Any] = {
    "id": "dinner",
    "name": "Dinner out",
    "fields": [
        {"name": "who_i_met", "kind": "person"},
        {"name": "bill_total", "type": "number", "kind": "money"},
        {"name": "when_it_happened", "type": "date", "kind": "past_date"},
        {"name": "how_good", "type": "integer", "kind": "rating", "validation": {"min": 1, "max": 5}},
        {"name": "notes", "type": "text"},
    ],
    "auto_apply": True,
    "trigger_keywords": ["dinner with", "lunch with"],
}
SAID = "Dinner with my coworker Lina at Nobu yesterday, $84, 4/5"
FILLED = {"who_i_met": "Lina", "bill_total": 84.0, "when_it_happened": "2026-02-10", "how_good": 4}


def filled(raw: dict[str, Any], text: str) -> dict[str, Any]:
    return prefill(extract(text, NOW.date()), resolve(parse_template(raw)), NOW)


def without_kinds(raw: dict[str, Any]) -> dict[str, Any]:
    return {**raw, "fields": [{k: v for k, v in f.items() if k != "kind"} for f in raw["fields"]]}


def test_fields_with_unusual_names_are_filled_by_their_kinds() -> None:
    assert filled(DINNER, SAID) == FILLED
    assert filled(without_kinds(DINNER), SAID) == {}  # the names alone say nothing


def test_a_suggestion_of_a_users_template_carries_the_fields_its_kinds_read(minilm: Any) -> None:
    [best] = suggest(SAID, [parse_template(DINNER)], now=NOW, embedder=minilm, limit=1)
    assert best.template_id == "dinner" and best.prefill == FILLED
    assert "can fill" in best.reason  # the first extractors' kinds count in the fields signal


def test_applying_a_users_template_to_a_memory_reads_its_kinds(services: Services, clock: TickingClock) -> None:
    template = services.templates.create(Caller("alice"), {k: v for k, v in DINNER.items() if k != "id"})
    memory = services.memories.create(Caller("alice"), {"content": SAID})
    applied = services.applier.apply_template(Caller("alice"), memory.id, template.id)
    yesterday = (clock.start - timedelta(days=1)).date().isoformat()  # read against the service's clock
    assert applied.structured_content == {**FILLED, "when_it_happened": yesterday}


def test_a_title_is_read_as_the_thing_the_other_kinds_say() -> None:
    shows = {"id": "shows", "name": "Shows", "fields": [
        {"name": "show", "kind": "title"}, {"name": "streamed_on", "kind": "platform"},
        {"name": "which_season", "type": "integer", "kind": "season"},
        {"name": "seen", "type": "date", "kind": "past_date"},
        {"name": "verdict", "type": "integer", "kind": "rating", "validation": {"min": 1, "max": 10}},
    ]}  # fmt: skip
    assert filled(shows, "Watched Severance season 2 on Apple TV+ yesterday, 9/10") == {
        "show": "Severance", "streamed_on": "Apple TV+", "which_season": 2, "seen": "2026-02-10", "verdict": 9,
    }  # fmt: skip
    chores = {"id": "chores", "name": "Chores", "fields": [
        {"name": "chore", "kind": "title"}, {"name": "who_does_it", "kind": "assignee"},
        {"name": "by_when", "type": "date", "kind": "deadline"},
    ]}  # fmt: skip
    assert filled(chores, "Task for Ben: clean the gutters by Friday") == {
        "chore": "clean the gutters", "who_does_it": "Ben", "by_when": "2026-02-13",
    }  # fmt: skip


def test_contacts_and_places_are_read_by_kind() -> None:
    contact = {"id": "c", "name": "Contact", "fields": [
        {"name": "contact", "kind": "person"}, {"name": "mail", "kind": "email"},
        {"name": "mobile", "kind": "phone"}, {"name": "where", "kind": "place"},
        {"name": "sites", "type": "array", "item_type": "string", "kind": "url"},
    ]}  # fmt: skip
    text = "Met Dana Reyes at PyCon, dana.reyes@example.org, phone +1 415 555 0199, https://dana.dev"
    assert filled(contact, text) == {
        "contact": "Dana Reyes", "mail": "dana.reyes@example.org", "mobile": "+1 415 555 0199", "where": "PyCon",
        "sites": ["https://dana.dev"],
    }  # fmt: skip
    assert filled(contact, "Call me on 2026-02-20 at 555 0199") == {}  # a date is no phone number
