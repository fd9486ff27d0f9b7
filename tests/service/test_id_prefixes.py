"""Ids given by their first characters, and templates by name or slug, over both backends: one match is
the id, several are an error listing them, and another user's ids never match."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed
from remember.models import ApiToken, Memory, Relationship
from remember.service import Services

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ALICE, BOB = Caller("alice"), Caller("bob")


def stored(services: Services, id_: str, user: str = "alice", **fields: object) -> str:
    base = Memory(
        id=id_, user_id=user, content=f"text of {id_}", type="note", weight=0.5, trust=0.5,
        created_at=T0, updated_at=T0, occurred_at=T0,
    )  # fmt: skip
    services.store.memories.insert(dataclasses.replace(base, **fields))  # type: ignore[arg-type]
    return id_


@pytest.fixture
def memories(services: Services) -> Services:
    stored(services, "88127a57-0000", title="Dune")
    stored(services, "88127b00-0000", content="Ana likes jazz", type="person")
    stored(services, "99990000-aaaa")
    stored(services, "99990000-bbbb", deleted_at=T0)
    stored(services, "77770000-secret", trust=0.9)
    stored(services, "66660000-bobs", user="bob")
    return services


def test_a_unique_prefix_is_the_id(memories: Services) -> None:
    assert memories.ids.memory(ALICE, "88127a") == "88127a57-0000"
    assert memories.ids.memory(ALICE, "  88127b ") == "88127b00-0000"  # trimmed


def test_a_full_id_is_taken_even_when_it_starts_another(memories: Services) -> None:
    stored(memories, "abcd")
    stored(memories, "abcd-longer")
    assert memories.ids.memory(ALICE, "abcd") == "abcd"
    assert memories.ids.memory(ALICE, "abcd-") == "abcd-longer"


def test_an_ambiguous_prefix_lists_its_matches_with_what_each_is(memories: Services) -> None:
    with pytest.raises(ValidationFailed) as exc:
        memories.ids.memory(ALICE, "8812")
    assert [(e.field, e.code) for e in exc.value.errors] == [("memory_id", "ambiguous")]
    message = str(exc.value)
    assert "'8812' starts the ids of 2 of your memories; give more of the id" in message
    assert "88127a57-0000  2026-01-01  note  Dune" in message
    assert "88127b00-0000  2026-01-01  person  Ana likes jazz" in message


def test_a_deleted_memory_is_found_and_said_to_be_deleted(memories: Services) -> None:
    with pytest.raises(ValidationFailed, match=r"99990000-bbbb .*\(deleted\)"):
        memories.ids.memory(ALICE, "9999")
    assert memories.ids.memory(ALICE, "99990000-b") == "99990000-bbbb"


def test_many_matches_are_cut_to_a_few(memories: Services) -> None:
    for n in range(8):
        stored(memories, f"5555{n}")
    with pytest.raises(ValidationFailed) as exc:
        memories.ids.memory(ALICE, "5555")
    assert "more than 5 of your memories" in str(exc.value)
    assert str(exc.value).count("\n  5555") == 5


def test_another_users_ids_never_match(memories: Services) -> None:
    with pytest.raises(NotFound, match="No memory with id '6666' or an id starting with it"):
        memories.ids.memory(ALICE, "6666")
    with pytest.raises(NotFound):
        memories.ids.memory(ALICE, "66660000-bobs")  # not even the full id
    assert memories.ids.memory(BOB, "6666") == "66660000-bobs"
    with pytest.raises(NotFound):
        memories.ids.memory(BOB, "8812")


def test_memories_above_the_callers_trust_never_match(memories: Services) -> None:
    low = Caller("alice", trust=0.5)
    with pytest.raises(NotFound):
        memories.ids.memory(low, "7777")
    with pytest.raises(NotFound):
        memories.ids.memory(low, "77770000-secret")
    assert memories.ids.memory(ALICE, "7777") == "77770000-secret"


@pytest.mark.parametrize("given", ["881", "88", "8"])
def test_a_prefix_needs_four_characters(memories: Services, given: str) -> None:
    with pytest.raises(NotFound, match="a prefix needs at least 4 characters"):
        memories.ids.memory(ALICE, given)


@pytest.mark.parametrize("given", ["", "   ", "x" * 300, "88\x00"])
def test_an_unusable_id_is_refused(memories: Services, given: str) -> None:
    with pytest.raises(ValidationFailed) as exc:
        memories.ids.memory(ALICE, given)
    assert exc.value.errors[0].field == "memory_id"


def test_wildcards_are_taken_as_themselves(memories: Services) -> None:
    stored(memories, "a_b_1")
    stored(memories, "axb_2")
    assert memories.ids.memory(ALICE, "a_b_") == "a_b_1"
    with pytest.raises(NotFound):
        memories.ids.memory(ALICE, "%%%%")


def test_relationship_prefixes(memories: Services) -> None:
    members = ("88127a57-0000", "88127b00-0000")
    for id_, kind in (("rel-a001", "knows"), ("rel-b002", "works_with")):
        rel = Relationship(id_, "alice", members, kind, "met at the office", 0.5, 0.8, T0, T0)
        memories.store.relationships.insert(rel, [], None)
    assert memories.ids.relationship(ALICE, "rel-a001") == "rel-a001"
    assert memories.ids.relationship(ALICE, "rel-b") == "rel-b002"
    with pytest.raises(ValidationFailed, match="rel-a001  knows of 2 memories: met at the office"):
        memories.ids.relationship(ALICE, "rel-")
    with pytest.raises(NotFound, match="No relationship"):
        memories.ids.relationship(BOB, "rel-")


def test_token_prefixes_are_the_callers_only_unless_the_full_id_is_given(memories: Services) -> None:
    for id_, user, name in (("7f3a01aa", "alice", "laptop"), ("7f3a02bb", "alice", None), ("7f3b03", "bob", "x")):
        memories.store.tokens.insert(ApiToken(id_, user, name, "0" * 64, 1.0, T0))
    assert memories.ids.token(ALICE, "7f3a02bb") == "7f3a02bb"
    assert memories.ids.token(ALICE, "7f3a01") == "7f3a01aa"
    with pytest.raises(ValidationFailed, match="7f3a01aa  laptop, made 2026-01-01, active"):
        memories.ids.token(ALICE, "7f3a")
    with pytest.raises(NotFound):
        memories.ids.token(ALICE, "7f3b")
    with pytest.raises(NotFound):
        memories.ids.token(ALICE, "7f3b03")
    assert memories.ids.token(ALICE, "7f3b03", any_user=True) == "7f3b03"
    with pytest.raises(NotFound):
        memories.ids.token(ALICE, "7f3b", any_user=True)  # a prefix stays the caller's


@pytest.mark.parametrize(
    "given",
    ["builtin:book_review", "book_review", "Book Review", "book review", "BOOK  REVIEW", "book-review", "builtin:book"],
)
def test_a_template_is_found_by_id_name_slug_or_id_prefix(services: Services, given: str) -> None:
    assert services.templates.find(ALICE, given).id == "builtin:book_review"


def test_a_built_in_is_found_by_the_slug_of_its_id(services: Services) -> None:
    assert services.templates.find(ALICE, "movie_review").name == "Movie or Show Review"
    assert services.templates.find(ALICE, "Movie or Show Review").id == "builtin:movie_review"


def test_own_templates_come_first_and_their_ids_take_prefixes(services: Services) -> None:
    own = services.templates.create(ALICE, {"name": "Book Review", "fields": [{"name": "title"}]})
    assert services.templates.find(ALICE, "book review").id == own.id
    assert services.templates.find(ALICE, "book_review").id == own.id
    assert services.templates.find(ALICE, own.id[:12]).id == own.id
    assert services.templates.find(BOB, "book review").id == "builtin:book_review"
    with pytest.raises(NotFound):
        services.templates.find(BOB, own.id[:12])


def test_two_own_templates_of_one_slug_are_ambiguous(services: Services) -> None:
    services.templates.create(ALICE, {"name": "Wine tasting", "fields": [{"name": "wine"}]})
    services.templates.create(ALICE, {"name": "Wine-Tasting", "fields": [{"name": "wine"}]})
    assert services.templates.find(ALICE, "wine-tasting").name == "Wine-Tasting"  # the exact name first
    with pytest.raises(ValidationFailed) as exc:
        services.templates.find(ALICE, "wine_tasting")
    assert exc.value.errors[0].code == "ambiguous"
    assert "Wine tasting (yours)" in str(exc.value) and "Wine-Tasting (yours)" in str(exc.value)


@pytest.mark.parametrize(
    ("given", "offered"),
    [
        ("bok review", "'Book Review' (builtin:book_review)"),
        ("book_reveiw", "'Book Review' (builtin:book_review)"),
        ("recipes", "'Recipe'"),
        ("persn", "'Person Profile' (builtin:person)"),
    ],
)
def test_an_unknown_template_is_answered_with_the_names_close_to_it(
    services: Services, given: str, offered: str
) -> None:
    with pytest.raises(NotFound) as exc:
        services.templates.find(ALICE, given)
    assert "Did you mean" in str(exc.value) and offered in str(exc.value)
    assert "`remember template list` shows them" in str(exc.value)


def test_nothing_close_offers_nothing(services: Services) -> None:
    with pytest.raises(NotFound) as exc:
        services.templates.find(ALICE, "zzzzqqqq")
    assert "Did you mean" not in str(exc.value)
