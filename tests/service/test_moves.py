"""Moving and copying a memory into a space: the rights each needs, the history kept and recorded, what is
refused (relationships, supersession chains, templates the target lacks), and that a refusal changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, NotFound, ValidationFailed
from remember.models import MemoryQuery
from remember.service import MemoryPatch, RelationshipDraft, Services

ANN, BEN, CAT, DAN = Caller("ann"), Caller("ben"), Caller("cat"), Caller("dan")
BOOK = {
    "template_id": "builtin:book_review",
    "structured_content": {"title": "Dune", "author": "Frank Herbert", "rating": 5},
}


def _rows(services: Services) -> Any:
    with services.store.sql.reading() as s:
        return [
            sorted(map(repr, s.all(f"SELECT * FROM {t}")))
            for t in ("memories", "memory_history", "memory_tags", "relationships", "relationship_members")
        ]


def _team(services: Services) -> str:
    """Ann's space "Team": Ben writes, Cat reads; Dan is no member."""
    key = services.spaces.create(ANN, "Team").space.key
    for user, role in (("ben", "writer"), ("cat", "reader")):
        services.spaces.add_member(ANN, key, user, role)
        services.spaces.accept(Caller(user), key)
    return key


def test_a_move_keeps_the_id_and_history_and_records_itself(services: Services) -> None:
    key = _team(services)
    own = services.memories.create(ANN, {"content": "The walrus plan.", "tags": ["plan"], "trust": 0.4})
    services.memories.change(ANN, own.id, MemoryPatch(content="The walrus plan, v2."), reason="second draft")
    moved = services.moves.move(ANN, own.id, "Team")
    assert (moved.id, moved.user_id, moved.created_by, moved.version) == (own.id, key, "ann", 3)
    assert services.store.memories.get("ann", own.id) is None
    as_cat = services.spaces.on_memory(CAT, own.id)
    got = services.memories.get(as_cat, own.id)
    assert got.content == "The walrus plan, v2." and got.tags == ("plan",) and got.trust == 0.4
    history = services.memories.history(as_cat, own.id)
    assert [(h.action, h.actor, h.previous.get("space")) for h in history] == [
        ("move", "ann", "personal"), ("update", None, None),
    ]  # fmt: skip
    assert history[0].reason == "moved from personal to Team" and history[0].as_dict()["by"] == "ann"
    found = services.search.search(as_cat, "walrus plan").hits
    assert [h.memory.id for h in found] == [own.id]
    assert services.search.search(ANN, "walrus plan").hits == []
    back = services.moves.move(BEN, own.id, "personal")  # Ben writes in Team: it goes to his own space
    assert back.user_id == "ben" and back.created_by is None
    assert [h.action for h in services.memories.history(BEN, own.id)] == ["move", "move", "update"]


def test_a_copy_is_a_new_memory_naming_its_source(services: Services) -> None:
    key = _team(services)
    shared = services.memories.create(services.spaces.writing(BEN, "Team"), {"content": "Launch on Friday."})
    copied = services.moves.copy(CAT, shared.id, "personal").memory  # a reader may copy out
    assert copied.id != shared.id and copied.user_id == "cat" and copied.content == shared.content
    [entry] = services.memories.history(CAT, copied.id)
    assert entry.action == "copy" and entry.previous == {"space": key, "memory_id": shared.id}
    assert entry.reason == f"copied from memory {shared.id} in Team"
    booked = services.memories.create(ANN, BOOK)
    into = services.moves.copy(ANN, booked.id, "Team").memory
    assert into.user_id == key and into.structured_content == booked.structured_content
    assert into.template_id == "builtin:book_review" and into.created_by == "ann"
    assert services.store.memories.get("ann", booked.id) is not None


def test_refusals_say_what_to_do_and_change_nothing(services: Services) -> None:
    key = _team(services)
    own = services.memories.create(ANN, {"content": "Ann's note."})
    other = services.memories.create(ANN, {"content": "Ann's other note."})
    shared = services.memories.create(services.spaces.writing(BEN, "Team"), {"content": "Team note."})
    template = services.templates.create(ANN, {"template_name": "Walrus", "fields": [{"name": "place"}]})
    templated = services.memories.create(
        ANN, {"template_id": template.definition.id, "structured_content": {"place": "Oslo"}}
    )
    services.relationships.create(ANN, RelationshipDraft(memory_ids=[own.id, other.id], relationship_type="x"))
    newer = services.memories.create(ANN, {"content": "Ann's newest note.", "supersedes": [other.id]})
    services.spaces.create(DAN, "Dans")
    before = _rows(services)
    cases: list[tuple[Caller, Any, Any, type[Exception], str]] = [
        (ANN, own.id, "Team", ValidationFailed, "belongs to relationships"),
        (ANN, newer.id, "Team", ValidationFailed, "supersedes or is superseded"),
        (ANN, templated.id, "Team", ValidationFailed, "uses the built-in templates and its own space"),
        (CAT, shared.id, "personal", AccessDenied, "You are a reader in space Team"),
        (BEN, own.id, "Team", NotFound, "No memory with id"),  # another user's id
        (DAN, shared.id, "personal", NotFound, "No memory with id"),
        (ANN, shared.id, "Dans", NotFound, "Unknown space 'Dans'"),  # a space Ann is not in
        (ANN, shared.id, "Nowhere", NotFound, "Unknown space"),
        (ANN, shared.id, key, ValidationFailed, "in space Team already"),
        (ANN, shared.id, None, ValidationFailed, "Name the space"),
        (ANN, shared.id, "x" * 100_000, NotFound, "Unknown space"),
        (ANN, None, "Team", ValidationFailed, "Give the id"),
        (ANN, "x" * 100_000, "Team", ValidationFailed, "1 to 200 characters"),
        (Caller("ann", spaces=frozenset({key})), shared.id, "personal", NotFound, "Unknown space 'personal'"),
    ]
    for who, memory_id, to, error, says in cases:
        with pytest.raises(error, match=says):
            services.moves.move(who, memory_id, to)
    with pytest.raises(AccessDenied, match="You are a reader in space Team"):
        services.moves.copy(CAT, shared.id, key)
    with pytest.raises(ValidationFailed, match="uses the built-in templates and its own space"):
        services.moves.copy(ANN, templated.id, "Team")
    with pytest.raises(NotFound, match="No memory with id"):
        services.moves.copy(DAN, shared.id, "personal")
    assert _rows(services) == before
    services.memories.delete(ANN, own.id)
    after_delete = _rows(services)
    with pytest.raises(ValidationFailed, match="restore it first"):
        services.moves.move(ANN, own.id, "Team")
    assert _rows(services) == after_delete
    assert len(services.store.memories.page(key, MemoryQuery()).items) == 1


def test_a_token_below_an_earlier_versions_trust_does_not_move_that_version(services: Services) -> None:
    _team(services)
    own = services.memories.create(ANN, {"content": "Salary: 90k.", "trust": 0.9})
    services.memories.change(ANN, own.id, MemoryPatch(content="Salary: private.", trust=0.3))
    low = Caller("ann", trust=0.5)
    before = _rows(services)
    with pytest.raises(AccessDenied, match="holds versions above this token's trust level"):
        services.moves.move(low, own.id, "Team")
    assert _rows(services) == before
    copied = services.moves.copy(low, own.id, "Team").memory  # a copy carries the current version only
    assert (
        copied.content == "Salary: private."
        and services.memories.history(ANN.in_space(copied.user_id), copied.id)[0].action == "copy"
    )
    assert services.moves.move(ANN, own.id, "Team").version == 3
