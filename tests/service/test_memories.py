"""MemoryService over a real SQLite file."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed
from remember.service import Services
from remember.service.checks import MAX_CONTENT

ALICE, BOB = "alice", "bob"


def create(services: Services, user: str = ALICE, **fields: Any) -> str:
    fields.setdefault("content", "Sarah is a product manager at Google.")
    return services.memories.create(Caller(user), fields).id


def problems(exc: pytest.ExceptionInfo[ValidationFailed]) -> list[tuple[str, str]]:
    return [(e.field, e.code) for e in exc.value.errors]


def test_create_applies_defaults(services: Services) -> None:
    m = services.memories.create(Caller(ALICE), {"content": "  hello  "})
    assert (m.content, m.type, m.weight, m.trust, m.version) == ("hello", "note", 0.5, 0.5, 1)
    assert m.occurred_at == m.created_at == m.updated_at
    assert services.memories.get(Caller(ALICE), m.id, record_access=False) == m


def test_create_takes_every_field(services: Services) -> None:
    m = services.memories.create(
        Caller(ALICE),
        {
            "content": "Met Sarah",
            "title": "Sarah",
            "type": "Person Profile",
            "weight": 1,
            "trust": 0,
            "tags": ["People", " people ", "Work  Stuff"],
            "references": ["https://example.com/a", "https://example.com/a"],
            "context": {"timestamp": "2026-02-10", "source": "chat", "participants": ["Sarah"]},
            "location": {"lat": 52.5, "lon": 13.4, "address": "Berlin"},
            "template_id": "builtin:person",
            "structured_content": {"name": "Sarah", "relationship": "colleague"},
        },
    )
    assert m.type == "person_profile"
    assert m.tags == ("people", "work stuff")
    assert m.references == ("https://example.com/a",)
    assert m.as_dict()["context"] == {
        "source": "chat",
        "participants": ["Sarah"],
        "timestamp": "2026-02-10T00:00:00.000000Z",
    }
    assert m.location == {"lat": 52.5, "lon": 13.4, "address": "Berlin"}
    assert (m.template_id, m.template_version, m.template_compliance) == ("builtin:person", "1.0", True)


def test_defaults_follow_preferences(services: Services) -> None:
    services.preferences.update(Caller(ALICE), "memory.default_type", "fact")
    services.preferences.update(Caller(ALICE), "privacy.default_trust", 0.9)
    m = services.memories.create(Caller(ALICE), {"content": "x"})
    assert (m.type, m.trust) == ("fact", 0.9)
    assert services.memories.create(Caller(BOB), {"content": "x"}).type == "note"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, [("content", "required")]),
        ({"content": ""}, [("content", "required")]),
        ({"content": "   "}, [("content", "required")]),
        ({"content": 5}, [("content", "type")]),
        ({"content": "a\x00b"}, [("content", "invalid")]),
        ({"content": "x" * (MAX_CONTENT + 1)}, [("content", "max_length")]),
        ({"content": "x", "weight": 1.5}, [("weight", "range")]),
        ({"content": "x", "weight": -0.1}, [("weight", "range")]),
        ({"content": "x", "weight": "high"}, [("weight", "range")]),
        ({"content": "x", "weight": True}, [("weight", "range")]),
        ({"content": "x", "trust": float("nan")}, [("trust", "range")]),
        ({"content": "x", "references": ["ftp://x.org"]}, [("references[0]", "invalid")]),
        ({"content": "x", "references": ["javascript:alert(1)"]}, [("references[0]", "invalid")]),
        ({"content": "x", "references": ["https://"]}, [("references[0]", "invalid")]),
        ({"content": "x", "references": "https://x.org"}, [("references", "type")]),
        ({"content": "x", "tags": "a"}, [("tags", "type")]),
        ({"content": "x", "tags": ["ok", ""]}, [("tags[1]", "invalid")]),
        ({"content": "x", "tags": ["x" * 65]}, [("tags[0]", "invalid")]),
        ({"content": "x", "tags": [str(i) for i in range(51)]}, [("tags", "type")]),
        ({"content": "x", "type": "a/b"}, [("type", "invalid")]),
        ({"content": "x", "title": "t" * 501}, [("title", "max_length")]),
        ({"content": "x", "context": {"timestamp": "yesterday"}}, [("context.timestamp", "date")]),
        ({"content": "x", "context": {"timestamp": "2026-02-30"}}, [("context.timestamp", "date")]),
        ({"content": "x", "context": {"mood": "happy"}}, [("context", "unknown_field")]),
        ({"content": "x", "context": "chat"}, [("context", "type")]),
        ({"content": "x", "location": {"lat": 91, "lon": 0}}, [("location.lat", "range")]),
        ({"content": "x", "location": {"lat": 1}}, [("location", "invalid")]),
        ({"content": "x", "location": {}}, [("location", "type")]),
        ({"content": "x", "structured_content": [1]}, [("structured_content", "type")]),
        ({"content": "x", "structured_content": {"a": "x" * 300_000}}, [("structured_content", "too_large")]),
        ({"content": "x", "colour": "red"}, [("colour", "unknown_field")]),
    ],
)
def test_bad_input_is_refused_with_field_and_code(
    services: Services, fields: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    with pytest.raises(ValidationFailed) as exc:
        services.memories.create(Caller(ALICE), fields)
    assert problems(exc) == expected
    assert services.memories.list(Caller(ALICE), deleted="include").total == 0


def test_all_problems_reported_at_once(services: Services) -> None:
    with pytest.raises(ValidationFailed) as exc:
        services.memories.create(Caller(ALICE), {"content": "", "weight": 2, "trust": -1, "references": ["x"]})
    assert [f for f, _ in problems(exc)] == ["content", "weight", "trust", "references[0]"]
    assert "weight must be a number from 0 to 1" in str(exc.value)


def test_deeply_nested_structured_content_is_refused(services: Services) -> None:
    nested: dict[str, Any] = {}
    cursor = nested
    for _ in range(50):
        cursor["a"] = {}
        cursor = cursor["a"]
    with pytest.raises(ValidationFailed) as exc:
        services.memories.create(Caller(ALICE), {"content": "x", "structured_content": nested})
    assert problems(exc) == [("structured_content", "too_deep")]


def test_update_is_partial_versions_and_keeps_history(services: Services) -> None:
    mid = create(services, title="Sarah", tags=["people"])
    m = services.memories.update(Caller(ALICE), mid, {"title": "Sarah (Director)", "weight": 0.9}, reason="promoted")
    assert (m.title, m.weight, m.tags, m.version) == ("Sarah (Director)", 0.9, ("people",), 2)
    [entry] = services.memories.history(Caller(ALICE), mid)
    assert (entry.version, entry.action, entry.reason) == (1, "update", "promoted")
    assert entry.previous == {"title": "Sarah", "weight": 0.5}


def test_update_with_same_values_changes_nothing(services: Services) -> None:
    mid = create(services, title="T")
    m = services.memories.update(Caller(ALICE), mid, {"title": "T"})
    assert m.version == 1
    assert services.memories.history(Caller(ALICE), mid) == []


def test_update_can_clear_and_change_when(services: Services) -> None:
    mid = create(services, title="T", location={"address": "x"})
    m = services.memories.update(
        Caller(ALICE), mid, {"title": None, "location": None, "context": {"timestamp": "2020-01-01"}}
    )
    assert (m.title, m.location) == (None, None)
    assert m.occurred_at.year == 2020
    # valid_from follows when it happened (it was never given apart from it)
    previous = services.memories.history(Caller(ALICE), mid)[0].previous
    assert set(previous) == {"title", "location", "context", "valid_from"}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, [("changes", "empty")]),
        ({"content": ""}, [("content", "required")]),
        ({"type": None}, [("type", "not_clearable")]),
        ({"weight": 7}, [("weight", "range")]),
        ({"id": "other"}, [("id", "unknown_field")]),
        ({"version": 9}, [("version", "unknown_field")]),
        ({"user_id": "bob"}, [("user_id", "unknown_field")]),
    ],
)
def test_bad_updates_change_nothing(services: Services, changes: dict[str, Any], expected: list[Any]) -> None:
    mid = create(services)
    before = services.memories.get(Caller(ALICE), mid, record_access=False)
    with pytest.raises(ValidationFailed) as exc:
        services.memories.update(Caller(ALICE), mid, changes)
    assert problems(exc) == expected
    assert services.memories.get(Caller(ALICE), mid, record_access=False) == before


def test_reason_is_checked(services: Services) -> None:
    mid = create(services)
    with pytest.raises(ValidationFailed, match="reason"):
        services.memories.update(Caller(ALICE), mid, {"title": "x"}, reason="r" * 1001)


def test_soft_delete_restore_and_history(services: Services) -> None:
    mid = create(services)
    deletion = services.memories.delete(Caller(ALICE), mid, reason="asked")
    assert not deletion.permanent
    assert deletion.memory is not None
    assert deletion.memory.is_deleted
    assert services.memories.list(Caller(ALICE)).total == 0
    assert services.memories.list(Caller(ALICE), deleted="only").total == 1
    again = services.memories.delete(Caller(ALICE), mid)
    assert again.memory is not None
    assert again.memory.version == deletion.memory.version
    with pytest.raises(ValidationFailed, match="restore it first"):
        services.memories.update(Caller(ALICE), mid, {"title": "x"})
    restored = services.memories.restore(Caller(ALICE), mid)
    assert not restored.is_deleted
    assert restored.version == 3
    assert [h.action for h in services.memories.history(Caller(ALICE), mid)] == ["restore", "delete"]
    assert services.memories.restore(Caller(ALICE), mid).version == 3


def test_permanent_delete_erases(services: Services) -> None:
    mid = create(services)
    services.memories.update(Caller(ALICE), mid, {"title": "x"})
    assert services.memories.delete(Caller(ALICE), mid, permanent=True).permanent
    with pytest.raises(NotFound):
        services.memories.get(Caller(ALICE), mid)
    assert services.memories.list(Caller(ALICE), deleted="include").total == 0


def test_get_records_access(services: Services) -> None:
    mid = create(services)
    services.memories.get(Caller(ALICE), mid)
    m = services.memories.get(Caller(ALICE), mid)
    assert m.access_count == 2
    assert m.last_accessed_at is not None
    assert services.memories.get(Caller(ALICE), mid, record_access=False).access_count == 2


@pytest.mark.parametrize("bad_id", ["nope", "", "x" * 201, 5, None])
def test_unknown_or_malformed_ids(services: Services, bad_id: Any) -> None:
    with pytest.raises((NotFound, ValidationFailed)):
        services.memories.get(Caller(ALICE), bad_id)


def test_another_users_memory_is_invisible_and_untouchable(services: Services) -> None:
    mid = create(services, user=ALICE)
    before = services.memories.get(Caller(ALICE), mid, record_access=False)
    for action in (
        lambda: services.memories.get(Caller(BOB), mid),
        lambda: services.memories.update(Caller(BOB), mid, {"title": "pwned"}),
        lambda: services.memories.delete(Caller(BOB), mid),
        lambda: services.memories.delete(Caller(BOB), mid, permanent=True),
        lambda: services.memories.restore(Caller(BOB), mid),
        lambda: services.memories.history(Caller(BOB), mid),
    ):
        with pytest.raises(NotFound) as exc:
            action()
        assert "No memory with id" in str(exc.value)
    assert services.memories.list(Caller(BOB), deleted="include").total == 0
    assert services.memories.get(Caller(ALICE), mid, record_access=False) == before


def test_list_shortcuts_and_filters_combine(services: Services) -> None:
    a = create(services, type="book", tags=["fiction"], weight=0.9)
    create(services, type="book", tags=["work"])
    create(services, type="person", tags=["fiction"])
    page = services.memories.list(Caller(ALICE), type="book", tags=["fiction"], filters={"weight": {"gte": 0.8}})
    assert [m.id for m in page.items] == [a]
    both = services.memories.list(Caller(ALICE), tags=["fiction", "work"], tags_match="all")
    assert both.total == 0


def test_list_date_window(services: Services, clock: Any) -> None:
    first = create(services)
    second = create(services, content="Tom is a designer at Figma.")
    cut = services.memories.get(Caller(ALICE), second, record_access=False).created_at.isoformat()
    assert [m.id for m in services.memories.list(Caller(ALICE), created_after=cut).items] == [second]
    assert [m.id for m in services.memories.list(Caller(ALICE), created_before=cut).items] == [first]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "10"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"sort_by": "colour"}, "sort_by"),
        ({"sort_order": "up"}, "sort_order"),
        ({"deleted": "maybe"}, "deleted"),
        ({"created_after": "last week"}, "arguments.created_at.gte"),
        ({"type": "a/b"}, "type"),
        ({"tags": ["a"], "tags_match": "some"}, "tags_match"),
        ({"filters": {"colour": 1}}, "filters.colour"),
    ],
)
def test_list_refuses_bad_arguments(services: Services, kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as exc:
        services.memories.list(Caller(ALICE), **kwargs)
    assert exc.value.errors[0].field == field
