"""remember's Markdown export read back whole: the user's templates travel with it, ids and dates are kept,
and a template that clashes with the user's refuses the import before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from http_support import logical_fingerprint
from remember.caller import Caller
from remember.errors import Conflict, ValidationFailed
from remember.search.embedders import MiniLMEmbedder
from remember.service import RelationshipDraft, Services
from remember.service.import_export.peers import read, run
from remember.service.import_export.peers.carried_templates import CREATED, PRESENT, WOULD_CREATE
from remember.service.import_export.peers.exporting import to_markdown
from remember.service.import_export.peers.markdown import RELATIONS
from remember.service.import_export.peers.template_files import FOLDER
from remember.store import open_store
from support import run as run_cli

ALICE, BOB = "alice", "bob"
WINE = {
    "name": "Wine Note",
    "fields": [
        {"name": "wine", "type": "string", "required": True},
        {"name": "score", "type": "number", "validation": {"min": 0, "max": 100}},
    ],
}


def populate(services: Services) -> dict[str, Any]:
    """Alice's templates (one changed once, one inheriting from it) and memories made with them, with a
    built-in template and with none, one related to another."""
    me = Caller(ALICE)
    wine = services.templates.create(me, WINE)
    services.templates.update(me, wine.id, {"add_fields": [{"name": "vintage", "type": "number"}]})
    sparkling = services.templates.create(
        me, {"name": "Sparkling", "parent_template_id": wine.id, "fields": [{"name": "dosage", "type": "string"}]}
    )
    barolo = services.memories.create(
        me, {"template_id": wine.id, "structured_content": {"wine": "Barolo", "score": 92, "vintage": 2016},
             "tags": ["wine"], "weight": 0.8, "context": {"timestamp": "2024-03-01T19:00:00Z"}},
    )  # fmt: skip
    services.memories.create(
        me, {"template_id": sparkling.id, "structured_content": {"wine": "Cava", "dosage": "brut"}, "trust": 0.4}
    )
    dune = services.memories.create(
        me, {"template_id": "builtin:book_review",
             "structured_content": {"title": "Dune", "author": "Frank Herbert", "rating": 5}},
    )  # fmt: skip
    note = services.memories.create(
        me, {"content": "Ann recommends Barolo with Dune nights", "title": "Ann", "type": "person",
             "references": ["https://example.com"], "location": {"address": "Turin"}, "structured_content": {"x": 1}},
    )  # fmt: skip
    services.memories.update(me, note.id, {"weight": 0.9}, reason="important")
    services.relationships.create(me, RelationshipDraft([note.id, barolo.id], "recommends"))
    return {"wine": wine.id, "sparkling": sparkling.id, "dune": dune.id}


def memories_of(services: Services, user: str) -> list[dict[str, Any]]:
    found = services.memories.list(Caller(user), sort_by="created", sort_order="asc", limit=100).items
    return [m.as_dict() for m in found]


def templates_of(services: Services, user: str) -> dict[str, dict[str, Any]]:
    return {r.id: dict(r.definition) for r in services.store.templates.of_user(user)}


def links_of(services: Services, user: str) -> list[tuple[str, frozenset[str]]]:
    return sorted((r.relationship_type, frozenset(r.memory_ids)) for r, _ in services.store.relationships.of_user(user))


def import_folder(services: Services, user: str, folder: Path, *, dry_run: bool = False) -> Any:
    return run(
        services.memories, services.relationships, Caller(user), "basic-memory", read("basic-memory", folder),
        dry_run=dry_run,
    )  # fmt: skip


@pytest.fixture
def fresh(tmp_path: Path, clock: Any, embedder: MiniLMEmbedder) -> Any:
    target = Services.over(open_store(f"sqlite:///{tmp_path / 'fresh.db'}"), clock, embedder)
    yield target
    target.close()


def test_the_round_trip_gives_back_every_memory_and_template_whole(
    services: Services, fresh: Services, tmp_path: Path
) -> None:
    ids = populate(services)
    assert to_markdown(services.store, Caller(ALICE), tmp_path / "notes") == (4, 2)
    assert len(list((tmp_path / "notes" / FOLDER).iterdir())) == 2  # built-ins travel with remember itself

    dry = import_folder(fresh, ALICE, tmp_path / "notes", dry_run=True)
    assert (dry.created, dry.skipped, dry.templates) == (4, [], {WOULD_CREATE: 2})
    assert templates_of(fresh, ALICE) == {}  # a dry run creates nothing, templates included

    report = import_folder(fresh, ALICE, tmp_path / "notes")
    assert (report.created, report.skipped, report.unmapped) == (4, [], {})
    assert report.templates == {CREATED: 2}
    assert templates_of(fresh, ALICE) == templates_of(services, ALICE)
    assert templates_of(fresh, ALICE)[ids["wine"]]["version"] == "1.1"
    # field by field: ids, dates, versions, template and its version, compliance, structured content
    assert memories_of(fresh, ALICE) == memories_of(services, ALICE)
    assert links_of(fresh, ALICE) == links_of(services, ALICE)
    found = fresh.search.search(Caller(ALICE), "Cava brut", alpha=0.0).hits  # indexed with its fields
    assert found[0].memory.structured_content == {"wine": "Cava", "dosage": "brut"}

    again = import_folder(fresh, ALICE, tmp_path / "notes")
    assert (again.created, again.already_present, again.templates) == (0, 4, {PRESENT: 2})


def test_into_another_user_of_the_same_database_ids_are_theirs(services: Services, tmp_path: Path) -> None:
    """Ids are per user: bob gets alice's ids and templates, and alice's data is left as it was."""
    populate(services)
    before = logical_fingerprint(services.store, [ALICE])
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    report = import_folder(services, BOB, tmp_path / "notes")
    assert (report.created, report.templates) == (4, {CREATED: 2})
    assert templates_of(services, BOB) == templates_of(services, ALICE)
    assert memories_of(services, BOB) == memories_of(services, ALICE)
    assert logical_fingerprint(services.store, [ALICE]) == before


def test_a_note_whose_id_the_user_has_for_another_memory_gets_a_new_one(services: Services, tmp_path: Path) -> None:
    made = services.memories.create(Caller(ALICE), {"content": "the original text"})
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    services.memories.update(Caller(ALICE), made.id, {"content": "changed since the export"})
    report = import_folder(services, ALICE, tmp_path / "notes")
    assert report.created == 1
    kept, back = sorted(memories_of(services, ALICE), key=lambda m: m["id"] != made.id)  # same created_at
    assert (kept["id"], kept["content"], kept["version"]) == (made.id, "changed since the export", 2)
    assert back["id"] != made.id and back["content"] == "the original text"
    assert (back["created_at"], back["version"]) == (made.as_dict()["created_at"], 1)


def test_a_template_changed_since_the_export_refuses_the_import(services: Services, tmp_path: Path) -> None:
    ids = populate(services)
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    services.templates.update(Caller(ALICE), ids["wine"], {"description": "changed since"})
    for user in (ALICE, BOB):
        services.memories.create(Caller(user), {"content": "here before"})
    before = logical_fingerprint(services.store, [ALICE, BOB])
    with pytest.raises(Conflict, match=rf"your template {ids['wine']} .*version 1.2.* another definition"):
        import_folder(services, ALICE, tmp_path / "notes")
    services.templates.create(Caller(BOB), {"name": "wine  NOTE", "fields": [{"name": "x", "type": "string"}]})
    bobs = logical_fingerprint(services.store, [ALICE, BOB])
    with pytest.raises(Conflict, match=r"has the name of your template tpl_wine_note_\w+. Rename yours"):
        import_folder(services, BOB, tmp_path / "notes")
    assert logical_fingerprint(services.store, [ALICE, BOB]) == bobs != before


def write_template(folder: Path, name: str, text: str) -> None:
    (folder / FOLDER).mkdir(parents=True, exist_ok=True)
    (folder / FOLDER / name).write_text(text)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.yaml": "id: [unclosed"}, "a.yaml: it is not YAML"),
        ({"a.yaml": "- a list"}, "it is not a template definition with an id"),
        ({"a.yaml": yaml.safe_dump(WINE)}, "it is not a template definition with an id"),
        ({"a.yaml": b"id: tpl_x\nname: \xff".decode("latin-1")}, "is not a valid template definition"),
        ({"a.yaml": yaml.safe_dump({**WINE, "id": "builtin:book_review"})}, "names a built-in template"),
        ({"a.yaml": yaml.safe_dump({**WINE, "id": "tpl_x", "fields": [{"name": "Bad Name!", "type": "string"}]})},
         "is not a valid template definition"),
        ({"a.yaml": yaml.safe_dump({**WINE, "id": "tpl_x", "parent_template_id": "tpl_elsewhere"})},
         "the template does not resolve"),
        ({"a.yaml": yaml.safe_dump({**WINE, "id": "tpl_x"}), "b.yml": yaml.safe_dump({**WINE, "id": "tpl_y"})},
         "holds a template of the same name"),
        ({"a.yaml": yaml.safe_dump({**WINE, "id": "tpl_x"}),
          "b.yml": yaml.safe_dump({**WINE, "id": "tpl_x", "name": "Other"})}, "holds a template of the same id"),
    ],
)  # fmt: skip
def test_a_template_file_that_is_not_a_definition_refuses_the_import(
    services: Services, tmp_path: Path, files: dict[str, str], message: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.md").write_text("---\ntitle: A note\nremember_id: m1\n---\n\nkept or not at all\n")
    for name, text in files.items():
        write_template(folder, name, text)
    before = logical_fingerprint(services.store, [ALICE])
    with pytest.raises(ValidationFailed, match=message) as refused:
        import_folder(services, ALICE, folder)
    assert "Nothing was imported" in str(refused.value)
    assert logical_fingerprint(services.store, [ALICE]) == before


def test_unreadable_bookkeeping_is_reported_and_the_note_kept(services: Services, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(
        "---\ntitle: A\nremember_id: ' padded '\ncreated: yesterday\nupdated: [1]\nversion: -2\n---\n\nText\n"
    )
    (folder / "b.md").write_text("---\ntitle: B\nremember_id: 12\nversion: true\n---\n\nOther\n")
    report = import_folder(services, ALICE, folder)
    assert report.created == 2
    assert report.unmapped == {
        "remember_id (unreadable)": 2, "created (unreadable)": 1, "updated (unreadable)": 1, "version (unreadable)": 2,
    }  # fmt: skip
    assert {m["version"] for m in memories_of(services, ALICE)} == {1}


def test_a_genuine_basic_memory_note_reports_the_bookkeeping_it_has(services: Services, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: A\ncreated: 2024-01-01\nversion: 3\n---\n\nText\n" + RELATIONS + "\n")
    (folder / "templates").mkdir()
    (folder / "templates" / "daily.yaml").write_text("not: a remember template")  # only remember-templates/ is read
    report = import_folder(services, ALICE, folder)
    assert (report.created, report.unmapped, report.templates) == (1, {"created": 1, "version": 1}, {})
    [memory] = memories_of(services, ALICE)
    assert memory["version"] == 1 and memory["content"].endswith(RELATIONS)  # a section of remember's notes only


def test_through_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source, target = str(tmp_path / "source.db"), str(tmp_path / "target.db")
    (tmp_path / "wine.yaml").write_text(yaml.safe_dump(WINE))
    assert run_cli(capsys, "--db", source, "template", "create", "-f", str(tmp_path / "wine.yaml"))[0] == 0
    for args in (("--template", "Wine Note", "--field", "wine=Barolo", "--field", "score=92"), ("plain note",)):
        assert run_cli(capsys, "--db", source, "add", *args)[0] == 0
    code, _, err = run_cli(capsys, "--db", source, "export", "--format", "markdown", str(tmp_path / "notes"))
    assert code == 0 and "Exported 2 memories (markdown)" in err and "1 template of the user's own" in err
    code, out, _ = run_cli(capsys, "--db", target, "import", "--from", "basic-memory", str(tmp_path / "notes"))
    assert code == 0 and out.splitlines() == ["Created 2 memories from 2 read (basic-memory).", "Templates: 1 created."]
    listed = [run_cli(capsys, "--db", db, "list", "--json")[1] for db in (source, target)]
    assert listed[0] == listed[1]
    code, out, _ = run_cli(capsys, "--db", source, "template", "update", "Wine Note", "--description", "new")
    code, _, err = run_cli(capsys, "--db", source, "import", "--from", "basic-memory", str(tmp_path / "notes"))
    assert code == 1 and "has another definition than the one in the folder" in err
