"""Ids found by their first characters, on both backends: only the user's, only what the caller may see,
and ``_`` or ``%`` in a prefix taken as themselves."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from remember.models import ApiToken, Memory, Relationship, TemplateRecord
from remember.store import Store
from remember.store.sql.prefixes import following

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def memory(id_: str, user: str = "alice", **fields: object) -> Memory:
    base = Memory(
        id=id_, user_id=user, content=f"content of {id_}", type="note", weight=0.5, trust=0.5,
        created_at=T0, updated_at=T0, occurred_at=T0,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def test_memory_ids_by_prefix_are_the_users_own_in_id_order(store: Store) -> None:
    for id_ in ("abcd-2", "abcd-1", "abce-1", "abc", "xabcd"):
        store.memories.insert(memory(id_))
    store.memories.insert(memory("abcd-3", user="bob"))
    assert store.memories.ids_with_prefix("alice", "abcd", limit=10, max_trust=1.0) == ["abcd-1", "abcd-2"]
    assert store.memories.ids_with_prefix("alice", "abc", limit=10, max_trust=1.0) == [
        "abc", "abcd-1", "abcd-2", "abce-1",
    ]  # fmt: skip
    assert store.memories.ids_with_prefix("alice", "abc", limit=2, max_trust=1.0) == ["abc", "abcd-1"]
    assert store.memories.ids_with_prefix("bob", "abcd", limit=10, max_trust=1.0) == ["abcd-3"]
    assert store.memories.ids_with_prefix("carol", "abcd", limit=10, max_trust=1.0) == []
    assert store.memories.ids_with_prefix("alice", "abcd-1-and-more", limit=10, max_trust=1.0) == []


def test_memory_prefix_keeps_the_trash_and_leaves_out_what_is_above_the_trust(store: Store) -> None:
    store.memories.insert(memory("beef-low", trust=0.2))
    store.memories.insert(memory("beef-high", trust=0.9))
    store.memories.insert(memory("beef-gone", deleted_at=T0))
    assert store.memories.ids_with_prefix("alice", "beef", limit=10, max_trust=0.5) == ["beef-gone", "beef-low"]
    assert len(store.memories.ids_with_prefix("alice", "beef", limit=10, max_trust=1.0)) == 3


@pytest.mark.parametrize(
    ("ids", "prefix", "found"),
    [
        (["tpl_a_1", "tplxa_2", "tpl__"], "tpl_", ["tpl__", "tpl_a_1"]),  # _ is no wildcard
        (["50%off", "50xoff", "50%"], "50%", ["50%", "50%off"]),  # nor is %
        (["zoë-1", "zoë-2", "zoé", "zoe"], "zoë", ["zoë-1", "zoë-2"]),  # characters beyond ASCII
        (["日本語メモ", "日本人"], "日本語", ["日本語メモ"]),
        (["a\U0010ffffb", "a\U0010ffff", "b"], "a\U0010ffff", ["a\U0010ffff", "a\U0010ffffb"]),  # no next character
        (["x\ud7ffy", "x\ue000"], "x\ud7ff", ["x\ud7ffy"]),  # the next character skips the surrogates
        (["Abcd", "abcd"], "abcd", ["abcd"]),  # case counts: ids are exact
    ],
)
def test_a_prefix_is_compared_character_by_character(
    store: Store, ids: list[str], prefix: str, found: list[str]
) -> None:
    for id_ in ids:
        store.memories.insert(memory(id_))
    assert store.memories.ids_with_prefix("alice", prefix, limit=10, max_trust=1.0) == found


def test_the_first_text_after_a_prefix() -> None:
    assert following("abc") == "abd"
    assert following("a\U0010ffff") == "b"
    assert following("\U0010ffff") is None
    assert following("x\ud7ff") == "x\ue000"


def test_template_ids_by_prefix(store: Store) -> None:
    for user, id_, name in (("alice", "tpl_book_1", "Book"), ("alice", "tpl_bookmark_2", "Mark"),
                            ("bob", "tpl_book_3", "Book")):  # fmt: skip
        definition = {"id": id_, "name": name, "version": "1.0", "fields": []}
        store.templates.insert(TemplateRecord(user, id_, definition, T0, T0))
    assert store.templates.ids_with_prefix("alice", "tpl_book", limit=10) == ["tpl_book_1", "tpl_bookmark_2"]
    assert store.templates.ids_with_prefix("alice", "tpl_book_", limit=10) == ["tpl_book_1"]
    assert store.templates.ids_with_prefix("bob", "tpl_book", limit=10) == ["tpl_book_3"]


def test_relationship_ids_by_prefix_are_the_visible_ones(store: Store) -> None:
    store.memories.insert(memory("m1"))
    store.memories.insert(memory("m2"))
    store.memories.insert(memory("m3", trust=0.9))
    for id_, members in (("rel-a", ("m1", "m2")), ("rel-b", ("m1", "m3"))):
        rel = Relationship(id_, "alice", members, "knows", "", 0.5, 0.8, T0, T0)
        store.relationships.insert(rel, [], None)
    assert store.relationships.ids_with_prefix("alice", "rel-", limit=10, trust=1.0) == ["rel-a", "rel-b"]
    assert store.relationships.ids_with_prefix("alice", "rel-", limit=10, trust=0.5) == ["rel-a"]
    assert store.relationships.ids_with_prefix("bob", "rel-", limit=10, trust=1.0) == []


def test_token_ids_by_prefix_are_the_users_own(store: Store) -> None:
    for id_, user in (("7f3a01", "alice"), ("7f3a02", "alice"), ("7f3a03", "bob")):
        store.tokens.insert(ApiToken(id_, user, None, "0" * 64, 1.0, T0))
    assert store.tokens.ids_with_prefix("alice", "7f3a", limit=10) == ["7f3a01", "7f3a02"]
    assert store.tokens.ids_with_prefix("bob", "7f3a", limit=10) == ["7f3a03"]
