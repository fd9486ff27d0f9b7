"""The design spec's own templates and examples, written as the spec writes them."""

from __future__ import annotations

from typing import Any

import pytest

from remember.templates import lookup_from, parse_template, resolve

from .conftest import check, codes

# The spec's five use cases. A field the spec lists without a type ("name: required") is a string.
PERSON_PROFILE = {
    "template_name": "Person Profile",
    "template_description": "Ensure consistent capture of information about people",
    "fields": [
        {"name": "name", "required": True},
        {"name": "relationship", "required": True},
        {"name": "contact_info", "type": "object", "required": False},
        {"name": "interests", "type": "array"},
        {"name": "last_interaction", "type": "datetime"},
        {"name": "notes", "type": "text"},
    ],
}
WEEKLY_TEAM_MEETING = {
    "template_name": "Weekly Team Meeting",
    "template_description": "Standardize meeting notes",
    "fields": [
        {"name": "date", "required": True},
        {"name": "attendees", "type": "array"},
        {"name": "agenda_items", "type": "array"},
        {"name": "decisions", "type": "array"},
        {"name": "action_items", "type": "array"},
        {"name": "next_meeting", "type": "datetime"},
    ],
}
TECHNICAL_CONCEPT = {
    "template_name": "Technical Concept",
    "template_description": "Capture technical learning consistently",
    "fields": [
        {"name": "concept_name", "required": True},
        {"name": "category", "type": "enum", "options": ["language", "framework", "pattern", "tool"]},
        {"name": "definition", "type": "text"},
        {"name": "examples", "type": "array"},
        {"name": "related_concepts", "type": "array"},
        {"name": "resources", "type": "array"},
        {"name": "proficiency", "type": "enum", "options": ["beginner", "intermediate", "advanced"]},
    ],
}
RESTAURANT_PREFERENCE = {
    "template_name": "Restaurant Preference",
    "template_description": "Track dining preferences",
    "fields": [
        {"name": "restaurant_name", "required": True},
        {"name": "cuisine_type", "type": "string"},
        {"name": "location", "type": "object"},
        {"name": "rating", "type": "float", "validation": {"min": 0, "max": 5}},
        {"name": "favorite_dishes", "type": "array"},
        {"name": "price_range", "type": "enum", "options": ["$", "$$", "$$$", "$$$$"]},
        {"name": "last_visited", "type": "datetime"},
        {"name": "would_return", "type": "boolean"},
    ],
}
PROJECT_MEMORY = {
    "template_name": "Project Memory",
    "template_description": "Track project information",
    "fields": [
        {"name": "project_name", "required": True},
        {"name": "status", "type": "enum", "options": ["planning", "active", "paused", "completed"]},
        {"name": "start_date", "type": "datetime"},
        {"name": "end_date", "type": "datetime"},
        {"name": "stakeholders", "type": "array"},
        {"name": "milestones", "type": "array"},
        {"name": "risks", "type": "array"},
        {"name": "notes", "type": "text"},
    ],
}
# remember_create_template's example, verbatim.
BOOK_REVIEW = {
    "template_name": "Book Review",
    "description": "Template for tracking books I've read",
    "fields": [
        {"name": "title", "type": "string", "required": True},
        {"name": "author", "type": "string", "required": True},
        {"name": "rating", "type": "number", "required": True, "validation": {"min": 1, "max": 5}},
        {"name": "genre", "type": "string", "required": False},
        {"name": "date_finished", "type": "datetime", "required": False},
        {"name": "summary", "type": "text", "required": False},
        {"name": "favorite_quotes", "type": "array", "required": False},
        {"name": "would_recommend", "type": "boolean", "required": True},
    ],
    "auto_apply": True,
    "trigger_keywords": ["finished reading", "just read", "book review"],
}
# The "Field Validation" example.
VALIDATED = {
    "template_name": "Validated",
    "fields": [
        {
            "name": "email",
            "type": "string",
            "required": True,
            "validation": {
                "pattern": "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$",
                "error_message": "Invalid email format",
            },
        },
        {
            "name": "age",
            "type": "number",
            "required": False,
            "validation": {"min": 0, "max": 150, "error_message": "Age must be between 0 and 150"},
        },
        {
            "name": "priority",
            "type": "string",
            "required": True,
            "options": ["low", "medium", "high", "critical"],
            "default_value": "medium",
        },
    ],
}


def spec(raw: dict[str, Any]) -> Any:
    return resolve(parse_template(raw))


@pytest.mark.parametrize(
    ("raw", "content"),
    [
        (PERSON_PROFILE, {"name": "Sarah", "relationship": "colleague", "interests": ["climbing"]}),
        (WEEKLY_TEAM_MEETING, {"date": "2026-02-10", "attendees": ["Ann", "Bo"], "action_items": ["ship it"]}),
        (TECHNICAL_CONCEPT, {"concept_name": "CRDT", "category": "pattern", "proficiency": "beginner"}),
        (
            RESTAURANT_PREFERENCE,
            {"restaurant_name": "Nobu", "rating": 4.5, "price_range": "$$$$", "location": {"city": "Malibu"}},
        ),
        (PROJECT_MEMORY, {"project_name": "remember", "status": "active", "start_date": "2026-02-01"}),
    ],
)
def test_the_five_use_case_templates(raw, content):
    resolved = spec(raw)
    assert resolved.name == raw["template_name"]
    assert check(resolved, content).valid
    required = [(f["name"], "required") for f in raw["fields"] if f.get("required")]
    assert codes(check(resolved, {})) == required


def test_the_sample_book_review_validates():
    content = {
        "title": "The Pragmatic Programmer",
        "author": "Andrew Hunt and David Thomas",
        "rating": 5,
        "genre": "Technical",
        "date_finished": "2026-02-10",
        "summary": "Excellent guide to software craftsmanship...",
        "favorite_quotes": ["Don't live with broken windows", "DRY - Don't Repeat Yourself"],
        "would_recommend": True,
    }
    result = check(spec(BOOK_REVIEW), content)
    assert result.valid
    assert result.completion == 1.0
    assert result.normalized == {**content, "date_finished": "2026-02-10T00:00:00.000000Z"}


def test_the_invalid_book_review_fails_on_author_and_rating():
    result = check(spec(BOOK_REVIEW), {"title": "Some Book", "rating": 6})
    # The spec's comment names two problems (no author, rating above 5). Its template also
    # makes would_recommend required, and the sample leaves it out: that is a third error.
    assert codes(result) == [("author", "required"), ("rating", "max"), ("would_recommend", "required")]
    assert result.errors[1].message == "rating must be at most 5"
    assert result.errors[1].value == 6


def test_the_field_validation_example():
    resolved = spec(VALIDATED)
    result = check(resolved, {"email": "not-an-email", "age": 200})
    assert [(e.field, e.code, e.message) for e in result.errors] == [
        ("email", "pattern", "Invalid email format"),
        ("age", "max", "Age must be between 0 and 150"),
    ]
    assert check(resolved, {"email": "ada@example.com"}).normalized == {
        "email": "ada@example.com",
        "priority": "medium",
    }


def test_the_inheritance_example():
    contact = parse_template(
        {
            "id": "contact",
            "template_name": "Contact",
            "fields": [{"name": "name", "required": True}, {"name": "email"}, {"name": "phone"}],
        }
    )
    business = parse_template(
        {
            "template_name": "Business Contact",
            "parent_template": "contact",
            "fields": [
                {"name": "company", "required": True},
                {"name": "job_title", "required": True},
                {"name": "linkedin"},
            ],
        }
    )
    resolved = resolve(business, lookup_from([contact]))
    assert [f.name for f in resolved.fields] == ["name", "email", "phone", "company", "job_title", "linkedin"]


def test_the_conditional_fields_example():
    resolved = spec(
        {
            "template_name": "Family",
            "fields": [
                {"name": "has_children", "type": "boolean"},
                {
                    "name": "children_names",
                    "type": "array",
                    "required": False,
                    "conditional": {"show_if": "has_children == true"},
                },
                {
                    "name": "children_ages",
                    "type": "array",
                    "required": False,
                    "conditional": {"show_if": "has_children == true"},
                },
            ],
        }
    )
    content = {"has_children": False, "children_names": ["x"], "children_ages": [1]}
    assert check(resolved, content).normalized == {"has_children": False}
    assert check(resolved, {**content, "has_children": True}).normalized == {**content, "has_children": True}
