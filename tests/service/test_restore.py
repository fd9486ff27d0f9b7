"""remember's export into a database that holds data: refused, skipped or replaced record by record, into the
user asked for, and nothing written when the one check before writing refuses it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from http_support import logical_fingerprint
from remember.caller import Caller
from remember.errors import Conflict, ValidationFailed
from remember.models import OnConflict
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.service.import_export.restore import Plan, plan, write
from remember.store import open_store
from service.test_transfer import populate, snapshot

ALICE, BOB = "alice", "bob"


@pytest.fixture
def source(tmp_path: Path, clock: Any, embedder: Any) -> Any:
    """A SQLite database with alice's and bob's data (``populate``)."""
    services = Services.over(open_store(f"sqlite:///{tmp_path / 'source.db'}"), clock, embedder)
    populate(services)
    yield services
    services.close()


def records(source: Services, *users: str) -> list[dict[str, Any]]:
    return list(export_records(source.store, [Caller(u) for u in users] if users else None))


def restore(target: Services, lines: list[dict[str, Any]], on_conflict: OnConflict = "refuse",
            into: str | None = None) -> Plan:  # fmt: skip
    planned = plan(target.store, lines, into=into, on_conflict=on_conflict)
    write(target.store, target.indexer, target.templates, lines, planned)
    return planned


def test_an_import_that_clashes_with_nothing_adds_to_a_user_with_data(services: Services, source: Services) -> None:
    services.memories.create(Caller(BOB), {"content": "bob's own note, here before"})
    planned = restore(services, records(source, BOB))
    assert (planned.memories, planned.clashes) == ({BOB: 1}, ())
    assert sorted(m.content for m in services.memories.list(Caller(BOB)).items) == [
        "Bob's note", "bob's own note, here before"
    ]  # fmt: skip


def test_a_clash_refuses_the_import_whole_and_names_the_option(services: Services, source: Services) -> None:
    restore(services, records(source, ALICE))
    services.memories.create(Caller(ALICE), {"content": "written since"})
    before = logical_fingerprint(services.store, [ALICE, BOB])
    with pytest.raises(Conflict) as refused:
        plan(services.store, records(source))  # bob is new, alice clashes: nothing is written, bob neither
    message = str(refused.value)
    assert "user alice: 4 memories ('" in message and "1 template ('tpl_book_review_" in message
    assert "1 relationship" not in message and "2 relationships (" in message
    assert "Nothing was imported. Choose with --on-conflict: skip keeps what is stored" in message
    assert logical_fingerprint(services.store, [ALICE, BOB]) == before


def test_skip_keeps_what_is_stored_and_imports_the_rest(services: Services, source: Services) -> None:
    restore(services, records(source, ALICE))
    me = Caller(ALICE)
    sarah = next(m for m in services.memories.list(me).items if m.title == "Sarah")
    services.memories.update(me, sarah.id, {"content": "Sarah moved to Apple"}, reason="news")
    services.preferences.update(me, "search.default_limit", 7, reason="fewer")
    [book] = services.store.templates.of_user(ALICE)
    services.templates.update(me, book.id, {"add_fields": [{"name": "publisher", "type": "string", "required": True}]})
    dune = next(m for m in services.memories.list(me).items if m.template_id == book.id)
    services.memories.delete(me, dune.id, permanent=True)  # gone here: the import brings it back
    changed = snapshot(services.store, ALICE)

    planned = restore(services, records(source, ALICE), "skip")
    [clash] = planned.clashes
    assert clash.counts() == {"memories": 3, "templates": 1, "relationships": 1, "preferences": 1}
    after = snapshot(services.store, ALICE)
    assert services.memories.get(me, sarah.id, record_access=False).content == "Sarah moved to Apple"
    assert after["preferences"] == changed["preferences"] and after["templates"] == changed["templates"]
    assert after["preference_history"] == changed["preference_history"]  # the file's change is there already
    assert after["suggestions"] == changed["suggestions"]
    assert [m["id"] for m in after["memories"]] == [dune.id] + [m["id"] for m in changed["memories"]]
    assert after["memories"][1:] == changed["memories"]
    back = services.store.memories.get(ALICE, dune.id)
    assert back is not None and back.template_compliance is False  # checked against the template kept here
    again = restore(services, records(source, ALICE), "skip")
    assert snapshot(services.store, ALICE) == after and again.clashes[0].counts()["memories"] == 4


def test_replace_puts_the_files_records_in_place_of_the_stored_ones(services: Services, source: Services) -> None:
    restore(services, records(source, ALICE))
    me = Caller(ALICE)
    for m in services.memories.list(me).items:
        services.memories.update(me, m.id, {"weight": 0.11}, reason="here")
    services.preferences.update(me, "search.default_limit", 7, reason="fewer")
    [book] = services.store.templates.of_user(ALICE)
    services.templates.update(me, book.id, {"name": "Reading Log"})
    kept_here = services.memories.create(me, {"content": "only here"})
    history_here = snapshot(services.store, ALICE)["preference_history"]

    planned = restore(services, records(source, ALICE), "replace")
    assert planned.clashes[0].counts() == {"memories": 4, "templates": 1, "relationships": 2, "preferences": 1}
    mine, theirs = snapshot(services.store, ALICE), snapshot(source.store, ALICE)
    for part in ("templates", "preferences", "relationships", "suggestions"):
        assert mine[part] == theirs[part], part  # the template's name, definition and versions: the file's
    assert mine["preference_history"] == history_here  # appended, each change once
    assert [m for m in mine["memories"] if m["id"] != kept_here.id] == theirs["memories"]
    assert {k: v for k, v in mine["history"].items() if k != kept_here.id} == theirs["history"]
    assert {k: v for k, v in mine["vectors"].items() if k != kept_here.id} == theirs["vectors"]
    assert services.memories.get(me, kept_here.id, record_access=False).content == "only here"
    found = services.search.search(me, "Sarah at Google", alpha=0.0).hits  # indexed as the file has it
    assert found[0].memory.title == "Sarah" and found[0].memory.weight != 0.11


def test_into_another_user_leaves_the_files_user_alone(services: Services, source: Services) -> None:
    restore(services, records(source, ALICE))
    alices = logical_fingerprint(services.store, [ALICE])
    planned = restore(services, records(source, ALICE), "replace", into=BOB)
    assert (planned.memories, planned.clashes) == ({BOB: 4}, ())  # ids are per user: alice's do not clash
    assert logical_fingerprint(services.store, [ALICE]) == alices
    assert sorted(m["id"] for m in snapshot(services.store, BOB)["memories"]) == sorted(
        m["id"] for m in snapshot(services.store, ALICE)["memories"]
    )
    with pytest.raises(ValidationFailed, match=r"This export holds 2 users \(alice, bob\); --user takes the export"):
        plan(services.store, records(source), into="carol")
    assert "carol" not in services.store.transfer.user_ids()


def test_a_relationship_to_a_memory_not_the_users_is_refused(services: Services, source: Services) -> None:
    """A file naming another user's memory (alice's, stored in the target) as a member of bob's relationship."""
    alice_note = services.memories.create(Caller(ALICE), {"content": "alice's private note"})
    lines = records(source, BOB)
    bobs_memory = lines[1]["memory"]["id"]
    link = next(r for r in records(source, ALICE) if r.get("kind") == "relationship")
    hostile = {
        **link,
        "user_id": BOB,
        "relationship": {**link["relationship"], "memory_ids": [bobs_memory, alice_note.id]},
    }
    before = logical_fingerprint(services.store, [ALICE, BOB])
    for mode in ("refuse", "skip", "replace"):
        with pytest.raises(ValidationFailed, match=rf"Line 3: relationship .* links memory '{alice_note.id}', which "
                                                   "is neither in the file nor one of user bob's"):  # fmt: skip
            plan(services.store, [*lines, hostile], on_conflict=mode)  # type: ignore[arg-type]
    assert logical_fingerprint(services.store, [ALICE, BOB]) == before


def test_a_template_whose_name_another_holds_is_refused_in_every_mode(services: Services, source: Services) -> None:
    services.templates.create(Caller(ALICE), {"name": "book  REVIEW", "fields": [{"name": "x", "type": "string"}]})
    before = logical_fingerprint(services.store, [ALICE])
    for mode in ("refuse", "skip", "replace"):
        with pytest.raises(Conflict, match=r"Cannot import line \d+: template 'Book Review' .* would have the name"):
            plan(services.store, records(source, ALICE), on_conflict=mode)  # type: ignore[arg-type]
    assert logical_fingerprint(services.store, [ALICE]) == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lines: [*lines, lines[1]], "holds memory .* again"),
        (lambda lines: [*lines, {**lines[1], "user_id": "../etc"}], "User id '../etc' is not usable"),
        (lambda lines: [*lines[:2], {"kind": "memory", "user_id": BOB, "memory": {"id": 3}}, *lines[2:]],
         "Line 3 cannot be read"),
    ],
)  # fmt: skip
def test_a_bad_record_anywhere_refuses_the_file_before_any_write(
    services: Services, source: Services, change: Any, message: str
) -> None:
    before = logical_fingerprint(services.store, [BOB, "../etc"])
    with pytest.raises(ValidationFailed, match=message):
        plan(services.store, change(records(source, BOB)), on_conflict="replace")
    assert logical_fingerprint(services.store, [BOB, "../etc"]) == before
