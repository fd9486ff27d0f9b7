"""Ids given by their first characters on the command line, for every command that takes an id."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from remember.config import Settings
from remember.models import Memory
from remember.store import Store, open_store
from support import run, run_json

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def store(capsys: pytest.CaptureFixture[str]) -> Iterator[Store]:
    """The database the command line uses (made by a first command), opened beside it."""
    run_json(capsys, "list")
    opened = open_store(Settings.from_env().database_url)
    yield opened
    opened.close()


def insert(store: Store, id_: str, user: str = "local", **fields: object) -> None:
    base = Memory(
        id=id_, user_id=user, content=f"text of {id_}", type="note", weight=0.5, trust=0.5,
        created_at=T0, updated_at=T0, occurred_at=T0,
    )  # fmt: skip
    store.memories.insert(dataclasses.replace(base, **fields))  # type: ignore[arg-type]


def test_memory_commands_take_a_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "Ana likes jazz", "--no-suggestion")
    short = made["id"][:8]
    assert run_json(capsys, "get", short)["id"] == made["id"]
    assert run_json(capsys, "update", short, "--weight", "0.9")["weight"] == 0.9
    assert run_json(capsys, "rm", short[:5])["memory_id"] == made["id"]
    assert run_json(capsys, "restore", short[:4])["id"] == made["id"]
    assert run_json(
        capsys, "template", "apply", "person", short, "--field", "name=Ana", "--field", "relationship=friend"
    )["template_id"] == ("builtin:person")
    code, out, _ = run(capsys, "similar", short)
    assert code == 0 and "No memories found." in out


def test_an_ambiguous_prefix_is_an_error_listing_the_matches(capsys: pytest.CaptureFixture[str], store: Store) -> None:
    insert(store, "abcd1111-aaaa", title="Dune")
    insert(store, "abcd2222-bbbb", content="Ana likes jazz", type="person")
    code, out, err = run(capsys, "get", "abcd")
    assert (code, out) == (1, "")
    assert "'abcd' starts the ids of 2 of your memories; give more of the id" in err
    assert "abcd1111-aaaa  2026-01-01  note  Dune" in err
    assert "abcd2222-bbbb  2026-01-01  person  Ana likes jazz" in err
    assert run_json(capsys, "get", "abcd2")["id"] == "abcd2222-bbbb"
    code, _, err = run(capsys, "rm", "abcd")
    assert code == 1 and "give more of the id" in err
    assert run_json(capsys, "list")["total"] == 2  # nothing deleted


def test_another_users_memories_never_match(capsys: pytest.CaptureFixture[str], store: Store) -> None:
    insert(store, "beef0000-bob", user="bob")
    for argv in (["get", "beef"], ["rm", "beef0000"], ["update", "beef", "--title", "x"], ["restore", "beef0"]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "No memory with id" in err, argv
    assert run_json(capsys, "--user", "bob", "get", "beef")["id"] == "beef0000-bob"


def test_a_short_prefix_says_how_long_one_must_be(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--no-suggestion")
    code, _, err = run(capsys, "get", made["id"][:3])
    assert code == 1 and "a prefix needs at least 4 characters" in err


def test_relationships_take_prefixes_of_their_ids_and_their_members(capsys: pytest.CaptureFixture[str]) -> None:
    ids = [run_json(capsys, "add", text, "--no-suggestion")["id"] for text in ("Sarah leads", "Tom joined", "Priya")]
    made = run_json(capsys, "relate", ids[0][:8], ids[1][:8], "--type", "manages")
    assert made["memory_ids"] == ids[:2]
    assert run_json(capsys, "relationships", "show", made["id"][:8])["id"] == made["id"]
    assert run_json(capsys, "relationships", "search", "--memory", ids[0][:8])["total"] == 1
    assert [r["memory"]["id"] for r in run_json(capsys, "related", ids[0][:8])] == [ids[1]]
    updated = run_json(capsys, "relationships", "update", made["id"][:8], "--members", f"{ids[0][:8]}, {ids[2][:6]}")
    assert updated["memory_ids"] == [ids[0], ids[2]]
    code, _, err = run(capsys, "relate", ids[0][:8], ids[0], "--type", "self")
    assert code == 1 and "only once" in err
    assert run_json(capsys, "relationships", "delete", made["id"][:6])["relationship_id"] == made["id"]


def test_tokens_take_a_prefix_of_the_users_own(capsys: pytest.CaptureFixture[str]) -> None:
    mine = run_json(capsys, "token", "create", "--name", "laptop")
    theirs = run_json(capsys, "token", "create", "--user", "bob", "--name", "phone")
    code, _, err = run(capsys, "token", "revoke", theirs["id"][:8])
    assert code == 1 and "No token with id" in err
    assert run_json(capsys, "token", "revoke", mine["id"][:8])["id"] == mine["id"]
    assert run_json(capsys, "token", "revoke", theirs["id"])["revoked_at"] is not None  # a full id: any user's
