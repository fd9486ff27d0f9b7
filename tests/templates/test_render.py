"""render_text: searchable `Label: value` lines from normalized content."""

from __future__ import annotations

from remember.templates import render_text

from .conftest import check, template


def test_render_book_review():
    resolved = template(
        {"name": "title"},
        {"name": "author"},
        {"name": "rating", "type": "number"},
        {"name": "date_finished", "type": "datetime"},
        {"name": "favorite_quotes", "type": "array", "item_type": "string"},
        {"name": "would_recommend", "type": "boolean"},
        {"name": "genre"},
    )
    content = {
        "title": "The Pragmatic Programmer",
        "author": "Andrew Hunt and David Thomas",
        "rating": 5.0,
        "date_finished": "2026-02-10",
        "favorite_quotes": ["Don't live with broken windows", "DRY"],
        "would_recommend": True,
    }
    text = render_text(resolved, check(resolved, content).normalized)
    assert text == (
        "Title: The Pragmatic Programmer\n"
        "Author: Andrew Hunt and David Thomas\n"
        "Rating: 5\n"
        "Date finished: 2026-02-10\n"
        "Favorite quotes: Don't live with broken windows, DRY\n"
        "Would recommend: yes"
    )


def test_render_nested_values_times_and_computed_fields():
    resolved = template(
        {"name": "contact_info", "type": "object", "fields": [{"name": "email"}, {"name": "phone"}]},
        {"name": "met_at", "type": "datetime"},
        {"name": "action_items", "type": "array", "fields": [{"name": "task"}, {"name": "done", "type": "boolean"}]},
        {"name": "extra", "type": "object"},
        {"name": "shout", "type": "computed", "formula": "upper(contact_info.email)"},
        {"name": "empty", "type": "array"},
    )
    content = {
        "contact_info": {"email": "a@b.c"},
        "met_at": "2026-02-10T14:30:00Z",
        "action_items": [{"task": "Call", "done": False}, {"task": "Write"}],
        "extra": {"b": 1, "a": [1, 2]},
        "empty": [],
    }
    assert render_text(resolved, check(resolved, content).normalized) == (
        "Contact info:\n"
        "  Email: a@b.c\n"
        "Met at: 2026-02-10 14:30 UTC\n"
        "Action items:\n"
        "  - Task: Call; Done: no\n"
        "  - Task: Write\n"
        "Extra: B: 1; A: 1, 2\n"
        "Shout: A@B.C"
    )


def test_render_nothing():
    assert render_text(template({"name": "a"}), {}) == ""
