"""TemplateService and template-aware memories over a real database."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, Conflict, NotFound, TemplateError, ValidationFailed
from remember.service import Services, TemplatePatch
from remember.service.structured import TemplateContentInvalid
from remember.service.template_stats import CommonValue, FieldUsage, NumberSummary

ALICE, BOB = "alice", "bob"

BOOK_REVIEW: dict[str, Any] = {
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
PRAGMATIC = {
    "title": "The Pragmatic Programmer",
    "author": "Andrew Hunt and David Thomas",
    "rating": 5,
    "genre": "Technical",
    "date_finished": "2026-02-10",
    "summary": "Excellent guide to software craftsmanship...",
    "favorite_quotes": ["Don't live with broken windows", "DRY - Don't Repeat Yourself"],
    "would_recommend": True,
}


@pytest.fixture
def book(services: Services) -> str:
    return services.templates.create(Caller(ALICE), BOOK_REVIEW).id


def remember_book(services: Services, template_id: str, **fields: Any) -> Any:
    return services.memories.create(
        Caller(ALICE), {"template_id": template_id, "structured_content": {**PRAGMATIC, **fields}}
    )


def test_create_template_gets_an_id_and_version(services: Services, book: str) -> None:
    view = services.templates.get(Caller(ALICE), book)
    assert book.startswith("tpl_book_review_")
    assert (view.definition.name, view.definition.version, view.usage.usage_count) == ("Book Review", "1.0", 0)
    assert [f.name for f in view.resolved.fields][:3] == ["title", "author", "rating"]


def test_memory_from_template_is_normalized_rendered_and_counted(services: Services, book: str) -> None:
    memory = remember_book(services, book)
    assert memory.template_compliance is True
    assert memory.template_version == "1.0"
    assert memory.structured_content is not None
    assert memory.structured_content["date_finished"] == "2026-02-10T00:00:00.000000Z"
    assert memory.title == "The Pragmatic Programmer"
    assert memory.type == "book_review"
    assert "Author: Andrew Hunt and David Thomas" in memory.content
    usage = services.templates.get(Caller(ALICE), book).usage
    assert usage.usage_count == 1
    assert usage.last_used == memory.created_at


def test_given_content_title_and_type_win(services: Services, book: str) -> None:
    memory = services.memories.create(
        Caller(ALICE),
        {"template_id": book, "structured_content": PRAGMATIC, "content": "Loved it", "title": "PP", "type": "book"},
    )
    assert (memory.content, memory.title, memory.type) == ("Loved it", "PP", "book")


def test_invalid_content_lists_every_error_and_stores_nothing(services: Services, book: str) -> None:
    with pytest.raises(TemplateContentInvalid) as exc:
        services.memories.create(
            Caller(ALICE), {"template_id": book, "structured_content": {"title": "Some Book", "rating": 6}}
        )
    assert sorted((e.field, e.code) for e in exc.value.errors) == [
        ("author", "required"),
        ("rating", "max"),
        ("would_recommend", "required"),
    ]
    assert exc.value.missing == ["author", "would_recommend"]
    assert services.memories.list(Caller(ALICE), deleted="include").total == 0


def test_unknown_template_is_not_found_and_stores_nothing(services: Services) -> None:
    with pytest.raises(NotFound, match="No template with id 'tpl_nope'"):
        services.memories.create(Caller(ALICE), {"template_id": "tpl_nope", "structured_content": {}})
    assert services.memories.list(Caller(ALICE)).total == 0


def test_builtin_templates_work_for_everyone(services: Services) -> None:
    for user in (ALICE, BOB):
        m = services.memories.create(
            Caller(user),
            {
                "template_id": "builtin:restaurant_review",
                "structured_content": {"restaurant_name": "Nobu", "rating": 5},
            },
        )
        assert m.template_compliance is True
    assert services.templates.get(Caller(BOB), "builtin:restaurant_review").usage.usage_count == 1


def test_update_memory_merges_structured_content_and_rerenders(services: Services, book: str) -> None:
    memory = remember_book(services, book)
    updated = services.memories.update(Caller(ALICE), memory.id, {"structured_content": {"rating": 4, "genre": None}})
    assert updated.structured_content is not None
    assert updated.structured_content["rating"] == 4
    assert "genre" not in updated.structured_content
    assert "Rating: 4" in updated.content
    history = services.memories.history(Caller(ALICE), memory.id)[0]
    assert history.previous["structured_content"]["rating"] == 5


def test_update_memory_with_bad_fields_changes_nothing(services: Services, book: str) -> None:
    memory = remember_book(services, book)
    with pytest.raises(TemplateContentInvalid):
        services.memories.update(Caller(ALICE), memory.id, {"structured_content": {"rating": 10}})
    assert services.memories.get(Caller(ALICE), memory.id, record_access=False) == memory


def test_changing_template_keeps_the_fields_both_define(services: Services) -> None:
    fields = {"title": "Dune", "author": "Frank Herbert", "rating": 5}
    memory = services.memories.create(
        Caller(ALICE), {"template_id": "builtin:book_review", "structured_content": fields}
    )
    moved = services.memories.update(
        Caller(ALICE), memory.id, {"template_id": "builtin:movie_review", "structured_content": {"kind": "movie"}}
    )
    assert moved.structured_content == {"title": "Dune", "rating": 5, "kind": "movie"}
    assert moved.template_compliance is True
    history = services.memories.history(Caller(ALICE), memory.id)[0]
    assert history.previous["structured_content"]["author"] == "Frank Herbert"  # nothing is lost
    with pytest.raises(NotFound):
        services.memories.update(Caller(ALICE), memory.id, {"template_id": "builtin:nothing"})
    assert services.memories.get(Caller(ALICE), memory.id, record_access=False) == moved


def test_detaching_a_template_keeps_the_fields(services: Services, book: str) -> None:
    memory = remember_book(services, book)
    detached = services.memories.update(Caller(ALICE), memory.id, {"template_id": None})
    assert (detached.template_id, detached.template_compliance) == (None, None)
    assert detached.structured_content == memory.structured_content


def test_update_template_adds_field_bumps_version_and_rechecks(services: Services, book: str) -> None:
    memory = remember_book(services, book)
    view, rechecked = services.templates.update(
        Caller(ALICE), book, {"add_fields": [{"name": "isbn", "type": "string", "required": True}]}
    )
    assert (view.definition.version, rechecked) == ("1.1", 1)
    after = services.memories.get(Caller(ALICE), memory.id, record_access=False)
    assert after.template_compliance is False
    assert [e["field"] for e in after.template_validation_errors] == ["isbn"]
    assert after.template_version == "1.0"  # made with 1.0; nothing rewritten
    assert after.structured_content == memory.structured_content
    fixed = services.memories.update(Caller(ALICE), memory.id, {"structured_content": {"isbn": "978-0201616224"}})
    assert (fixed.template_compliance, fixed.template_version) == (True, "1.1")


def test_update_template_explicit_version_remove_and_change_fields(services: Services, book: str) -> None:
    view, _ = services.templates.update(
        Caller(ALICE),
        book,
        TemplatePatch(
            description="Books",
            remove_fields=["favorite_quotes"],
            update_fields=[{"name": "rating", "validation": {"min": 1, "max": 10}}],
            version="2.0",
        ),
    )
    assert view.definition.version == "2.0"
    assert view.definition.description == "Books"
    assert "favorite_quotes" not in [f.name for f in view.definition.fields]
    content = {k: v for k, v in PRAGMATIC.items() if k != "favorite_quotes"}
    memory = services.memories.create(
        Caller(ALICE), {"template_id": book, "structured_content": {**content, "rating": 9}}
    )
    assert memory.template_compliance is True


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"changes": {}}, "empty"),
        ({"changes": {"fields": []}}, "unknown_field"),
        ({"changes": {}, "remove_fields": ["nope"]}, "unknown_field"),
        ({"changes": {}, "add_fields": [{"name": "title", "type": "string"}]}, "duplicate"),
        ({"changes": {}, "update_fields": [{"name": "nope", "type": "string"}]}, "unknown_field"),
        ({"changes": {}, "version": "1.0"}, "invalid"),
        ({"changes": {}, "add_fields": [{"name": "x", "type": "computed", "formula": "9**9**9"}]}, None),
        ({"changes": {}, "add_fields": [{"name": "x", "type": "string", "validation": {"pattern": "(a)\\1"}}]}, None),
        ({"changes": {"parent_template_id": "tpl_missing"}}, "missing_parent"),
    ],
)
def test_bad_template_updates_change_nothing(
    services: Services, book: str, kwargs: dict[str, Any], code: str | None
) -> None:
    before = services.templates.get(Caller(ALICE), book).definition
    changes = {**kwargs.pop("changes"), **kwargs}  # one patch: attributes and field operations
    with pytest.raises(ValidationFailed) as exc:
        services.templates.update(Caller(ALICE), book, changes)
    if code:
        assert code in {e.code for e in exc.value.errors}
    assert services.templates.get(Caller(ALICE), book).definition == before


def test_builtins_cannot_be_changed_or_deleted(services: Services) -> None:
    with pytest.raises(AccessDenied, match="remember_copy_template"):
        services.templates.update(Caller(ALICE), "builtin:book_review", {"description": "mine"})
    with pytest.raises(AccessDenied, match="copy"):
        services.templates.delete(Caller(ALICE), "builtin:book_review")


def test_copy_a_builtin_and_change_it(services: Services) -> None:
    copy = services.templates.copy(Caller(ALICE), "builtin:book_review", name="My Books")
    assert copy.definition.derived_from == "builtin:book_review"
    assert not copy.definition.is_default
    view, _ = services.templates.update(Caller(ALICE), copy.id, {"description": "mine"})
    assert view.definition.description == "mine"
    second = services.templates.copy(Caller(ALICE), copy.id)
    assert second.definition.name == "My Books (copy)"


def test_names_are_unique_per_user(services: Services, book: str) -> None:
    with pytest.raises(Conflict, match="already have a template named"):
        services.templates.create(Caller(ALICE), {**BOOK_REVIEW, "template_name": "book  REVIEW"})
    assert services.templates.create(Caller(BOB), BOOK_REVIEW).id != book


def test_inheritance_and_cycles(services: Services) -> None:
    contact = services.templates.create(
        Caller(ALICE),
        {
            "name": "Contact",
            "fields": [{"name": "name", "type": "string", "required": True}, {"name": "phone", "type": "string"}],
        },
    )
    business = services.templates.create(
        Caller(ALICE),
        {
            "name": "Business Contact",
            "parent_template_id": contact.id,
            "fields": [
                {"name": "company", "type": "string", "required": True},
                {"name": "label", "type": "computed", "formula": "concat(name, ' @ ', company)"},
            ],
        },
    )
    assert [f.name for f in business.resolved.fields] == ["name", "phone", "company", "label"]
    m = services.memories.create(
        Caller(ALICE), {"template_id": business.id, "structured_content": {"name": "Sarah", "company": "Google"}}
    )
    assert m.structured_content is not None
    assert m.structured_content["label"] == "Sarah @ Google"
    with pytest.raises(TemplateError, match="cycle"):
        services.templates.update(Caller(ALICE), contact.id, {"parent_template_id": business.id})
    with pytest.raises(TemplateError, match="would break template"):
        services.templates.update(Caller(ALICE), contact.id, {"remove_fields": ["name"]})
    with pytest.raises(ValidationFailed, match="inherit from"):
        services.templates.delete(Caller(ALICE), contact.id)
    # a parent change rechecks the children's memories too
    _, rechecked = services.templates.update(
        Caller(ALICE), contact.id, {"add_fields": [{"name": "email", "type": "string", "required": True}]}
    )
    assert rechecked == 1
    assert services.memories.get(Caller(ALICE), m.id, record_access=False).template_compliance is False


def test_delete_keeps_or_trashes_derived_memories(services: Services, book: str) -> None:
    kept = remember_book(services, book)
    assert services.templates.delete(Caller(ALICE), book) == (book, 0)
    after = services.memories.get(Caller(ALICE), kept.id, record_access=False)
    assert after.structured_content == kept.structured_content and not after.is_deleted
    with pytest.raises(NotFound):
        services.templates.get(Caller(ALICE), book)

    other = services.templates.create(Caller(ALICE), BOOK_REVIEW).id
    trashed = remember_book(services, other)
    assert services.templates.delete(Caller(ALICE), other, delete_derived_memories=True) == (other, 1)
    gone = services.memories.get(Caller(ALICE), trashed.id, record_access=False)
    assert gone.is_deleted
    assert services.memories.history(Caller(ALICE), trashed.id)[0].action == "delete"
    assert services.memories.restore(Caller(ALICE), trashed.id).structured_content == trashed.structured_content


def test_list_templates_filters_and_sorts(services: Services, book: str) -> None:
    remember_book(services, book)
    views, total = services.templates.list_templates(Caller(ALICE))
    assert total == 16
    assert views[0].id == book  # most used first
    own, total = services.templates.list_templates(Caller(ALICE), include_default=False)
    assert [v.id for v in own] == [book] and total == 1
    by_name, _ = services.templates.list_templates(Caller(ALICE), sort_by="name", limit=3)
    assert [v.definition.name for v in by_name] == sorted(v.definition.name for v in by_name)
    food, _ = services.templates.list_templates(Caller(ALICE), category=views[-1].definition.category)
    assert food
    assert services.templates.list_templates(Caller(BOB), include_default=False) == ([], 0)
    with pytest.raises(ValidationFailed, match="sort_by"):
        services.templates.list_templates(Caller(ALICE), sort_by="colour")


def test_analytics(services: Services, book: str) -> None:
    remember_book(services, book, rating=5)
    remember_book(services, book, rating=4, genre=None, summary=None)
    gone = remember_book(services, book, rating=1)
    services.memories.delete(Caller(ALICE), gone.id)
    stats = services.templates.analytics(Caller(ALICE), book)
    assert stats.usage_count == 3 and stats.memory_count == 2
    assert stats.compliance_rate == 1.0
    assert stats.average_completion_rate is not None and 0 < stats.average_completion_rate <= 1
    assert stats.field_usage_statistics["rating"] == FieldUsage(2, 1.0, NumberSummary(min=4.0, max=5.0, average=4.5))
    assert stats.field_usage_statistics["genre"].fill_rate == 0.5
    assert stats.most_common_values["author"] == (CommonValue("Andrew Hunt and David Thomas", 2),)


def test_templates_and_analytics_are_private(services: Services, book: str) -> None:
    remember_book(services, book)
    for action in (
        lambda: services.templates.get(Caller(BOB), book),
        lambda: services.templates.analytics(Caller(BOB), book),
        lambda: services.templates.update(Caller(BOB), book, {"description": "x"}),
        lambda: services.templates.delete(Caller(BOB), book),
        lambda: services.templates.copy(Caller(BOB), book),
        lambda: services.templates.validate(Caller(BOB), book, {}),
        lambda: services.memories.create(Caller(BOB), {"template_id": book, "structured_content": PRAGMATIC}),
    ):
        with pytest.raises(NotFound):
            action()
    assert services.templates.get(Caller(ALICE), book).definition.description == BOOK_REVIEW["description"]


def test_validate_stores_nothing(services: Services, book: str) -> None:
    _, result = services.templates.validate(Caller(ALICE), book, {"title": "Some Book", "rating": 6})
    assert not result.valid
    assert services.memories.list(Caller(ALICE)).total == 0


def test_a_memory_written_during_a_template_change_is_rechecked(
    services: Services, book: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = remember_book(services, book)
    original = services.store.templates.replace

    def meanwhile(*args: Any, **kwargs: Any) -> None:
        # Another request lands between the recheck and the commit of the template change.
        services.memories.update(Caller(ALICE), memory.id, {"structured_content": {"rating": 4}})
        late = services.memories.create(Caller(ALICE), {"template_id": book, "structured_content": PRAGMATIC})
        created.append(late.id)
        original(*args, **kwargs)

    created: list[str] = []
    monkeypatch.setattr(services.store.templates, "replace", meanwhile)
    services.templates.update(
        Caller(ALICE), book, {"add_fields": [{"name": "isbn", "type": "string", "required": True}]}
    )
    for memory_id in (memory.id, created[0]):
        after = services.memories.get(Caller(ALICE), memory_id, record_access=False)
        assert after.template_compliance is False, memory_id
        assert [e["field"] for e in after.template_validation_errors] == ["isbn"]
