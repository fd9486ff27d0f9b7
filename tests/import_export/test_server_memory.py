"""Moving in from and out to server-memory, with files the real server wrote and reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.service import Services
from remember.service.import_export.peers import read, run
from remember.service.import_export.peers.exporting import to_server_memory
from remember.service.import_export.peers.linking import CREATED, PRESENT, WOULD_CREATE
from remember.service.relationships import RelationshipDraft
from server_memory_driver import GRAPH_CALLS, call

pytestmark = pytest.mark.anyio
ALICE, BOB = "alice", "bob"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def graph(tmp_path: Path) -> Path:
    path = tmp_path / "memory.jsonl"
    await call(path, GRAPH_CALLS)
    return path


def by_title(services: Services, user: str = ALICE) -> dict[str | None, object]:
    return {m.title: m for m in services.memories.list(Caller(user), limit=100).items}


async def test_entities_become_memories_and_relations_relationships(services: Services, graph: Path) -> None:
    report = run(
        services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", graph)
    )
    assert (report.read, report.created, report.already_present) == (3, 3, 0)
    assert report.links == {CREATED: 2}
    assert report.skipped == [] and not report.unmapped
    memories = {m.title: m for m in services.memories.list(Caller(ALICE), limit=10).items}
    related = services.relationships.links(Caller(ALICE), [memories["Sarah Chen"].id])[memories["Sarah Chen"].id]
    assert sorted((r.relationship_type, set(r.memory_ids)) for r in related) == [
        ("leads", {memories["Sarah Chen"].id, memories["Project Falcon"].id}),
        ("works_at", {memories["Sarah Chen"].id, memories["Google"].id}),
    ]
    sarah = memories["Sarah Chen"]
    assert (sarah.type, sarah.content) == (
        "person",
        "Product manager at Google\nMet at PyCon 2025\nPrefers async updates",
    )
    assert sarah.context == {"source": "server-memory"}
    assert (memories["Google"].type, memories["Google"].content) == ("organization", "Google")


async def test_importing_twice_creates_nothing_new(services: Services, graph: Path) -> None:
    first = run(services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", graph))
    again = run(services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", graph))
    assert (again.created, again.already_present) == (0, 3)
    assert (first.links, again.links) == ({CREATED: 2}, {PRESENT: 2})
    assert services.memories.list(Caller(ALICE)).total == 3
    assert services.related.search(Caller(ALICE), limit=10).total == 2
    # The relations' ends, by entity name: the memories stored the first time, found again.
    ids = {m.title: m.id for m in services.memories.list(Caller(ALICE)).items}
    assert (
        first.memory_ids
        == again.memory_ids
        == {"Sarah Chen": ids["Sarah Chen"], "Project Falcon": ids["Project Falcon"], "Google": ids["Google"]}
    )


async def test_a_dry_run_writes_nothing_and_says_what_it_would_create(services: Services, graph: Path) -> None:
    report = run(
        services.memories,
        services.relationships,
        Caller(ALICE),
        "server-memory",
        read("server-memory", graph),
        dry_run=True,
    )
    assert (report.created, report.dry_run) == (3, True)
    assert report.links == {WOULD_CREATE: 2}
    assert [e["title"] for e in report.examples] == ["Sarah Chen", "Project Falcon", "Google"]
    assert services.memories.list(Caller(ALICE)).total == 0
    assert services.related.search(Caller(ALICE), limit=10).total == 0


async def test_export_is_read_by_server_memory_and_imports_back(
    services: Services, graph: Path, tmp_path: Path
) -> None:
    run(services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", graph))
    services.memories.create(Caller(ALICE), {"content": "A note without a title\non two lines", "type": "note"})
    exported = tmp_path / "exported.jsonl"
    with exported.open("w") as out:
        assert to_server_memory(services.store, Caller(ALICE), out) == 4
    [seen] = await call(exported, [("read_graph", {})])
    assert {e["name"]: e["entityType"] for e in seen["entities"]} == {
        "Sarah Chen": "person", "Project Falcon": "project", "Google": "organization",
        "A note without a title on two lines": "note",
    }  # fmt: skip
    assert sorted((r["from"], r["to"], r["relationType"]) for r in seen["relations"]) == [
        ("Sarah Chen", "Google", "works_at"), ("Sarah Chen", "Project Falcon", "leads"),
    ]  # fmt: skip
    back = run(services.memories, services.relationships, Caller(BOB), "server-memory", read("server-memory", exported))
    assert (back.created, back.links) == (4, {CREATED: 2})
    mine = {(m.content, m.type) for m in services.memories.list(Caller(ALICE), limit=10).items}
    theirs = {(m.content, m.type) for m in services.memories.list(Caller(BOB), limit=10).items}
    assert mine == theirs


def test_a_line_that_is_not_json_refuses_the_file(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    entity = {"type": "entity", "name": "A", "entityType": "person", "observations": ["x"]}
    path.write_text(json.dumps(entity) + "\n{not json\n")
    with pytest.raises(ValidationFailed, match=r"line 2 is not JSON.*Nothing was imported"):
        run(services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", path))
    assert services.memories.list(Caller(ALICE)).total == 0


def test_records_that_cannot_be_mapped_are_reported(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    lines = [
        {"type": "entity", "name": "Ok", "entityType": "person", "observations": ["fine"], "color": "red"},
        {"type": "entity", "entityType": "person", "observations": ["no name"]},
        {"type": "entity", "name": "Odd", "entityType": "!!!", "observations": ["odd type"]},
        {"type": "entity", "name": "Huge", "entityType": "note", "observations": ["x" * 200_000]},
        {"type": "relation", "from": "Ok"},
        {"type": "comment", "text": "?"},
        [1, 2],
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines))
    report = run(services.memories, services.relationships, Caller(ALICE), "server-memory", read("server-memory", path))
    assert report.created == 2
    assert [where for where, _ in report.skipped] == ["line 2", "line 5", "line 6", "line 7", "line 4"]
    assert "content" in report.skipped[-1][1]
    assert report.unmapped == {"entity.color": 1, "entity.entityType (not a usable type: the default type is given)": 1}
    assert by_title(services).keys() == {"Ok", "Odd"}


def test_missing_and_wrong_paths_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed, match="no such file"):
        read("server-memory", tmp_path / "absent.jsonl")
    with pytest.raises(ValidationFailed, match="not a file"):
        read("server-memory", tmp_path)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValidationFailed, match="not UTF-8"):
        read("server-memory", binary)


def test_a_relationship_of_three_is_written_as_relations_from_its_first_member(
    services: Services, tmp_path: Path
) -> None:
    ids = [
        services.memories.create(Caller(ALICE), {"content": name, "title": name}).id for name in ("Ann", "Ben", "Cy")
    ]
    services.relationships.create(Caller(ALICE), RelationshipDraft(ids, "met_at_the_offsite"))

    def relations(name: str) -> list[tuple[str, str, str]]:
        with (tmp_path / name).open("w") as out:
            to_server_memory(services.store, Caller(ALICE), out)
        lines = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        return [(r["from"], r["to"], r["relationType"]) for r in lines if r["type"] == "relation"]

    assert relations("all.jsonl") == [("Ann", "Ben", "met_at_the_offsite"), ("Ann", "Cy", "met_at_the_offsite")]
    services.memories.delete(Caller(ALICE), ids[2])
    assert relations("trashed.jsonl") == []  # hidden while a member is in the trash, as everywhere
