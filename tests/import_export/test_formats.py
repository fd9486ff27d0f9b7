"""Moving in from mem0, mcp-memory-service and basic-memory, with samples of their documented formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.models import Memory
from remember.service import Services
from remember.service.import_export.peers import read, run
from remember.service.import_export.peers.linking import NO_END

DATA = Path(__file__).parent / "data"
ALICE = "alice"


def memories(services: Services) -> dict[str, Memory]:
    return {m.content: m for m in services.memories.list(Caller(ALICE), limit=100).items}


def test_mem0(services: Services) -> None:
    report = run(
        services.memories, services.relationships, Caller(ALICE), "mem0", read("mem0", DATA / "mem0_get_all.json")
    )
    assert (report.read, report.created, report.skipped) == (3, 3, [])
    assert report.unmapped == {"hash": 3, "id": 3, "score": 1, "updated_at": 1}
    stored = memories(services)
    trip = stored["Is planning a trip to Tokyo next month"]
    assert trip.as_dict()["context"] == {
        "source": "mem0", "participants": ["alice"], "timestamp": "2024-07-26T17:29:36.630547Z",
    }  # fmt: skip
    meetings = stored["Prefers morning meetings and async communication"]
    assert meetings.tags == ("work", "preferences")
    assert meetings.structured_content == {"type": "preference"}
    assert meetings.context == {
        "source": "mem0",
        "participants": ["alice", "travel-agent"],
        "conversation_id": "session-42",
    }
    assert stored["Is allergic to shellfish"].as_dict()["context"]["timestamp"] == "2024-07-26T13:20:00.000000Z"
    again = run(
        services.memories, services.relationships, Caller(ALICE), "mem0", read("mem0", DATA / "mem0_get_all.json")
    )
    assert (again.created, again.already_present) == (0, 3)


def test_mem0_list_form_and_bad_records(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    records = [{"memory": "Likes jazz", "created_at": "yesterday"}, {"memory": ""}, "text", {"memory": "Owns a cat"}]
    path.write_text(json.dumps(records))
    report = run(services.memories, services.relationships, Caller(ALICE), "mem0", read("mem0", path))
    assert report.created == 1
    assert [w for w, _ in report.skipped] == ["record 1", "record 2", "record 3"]
    assert "yesterday" in report.skipped[0][1]
    assert list(memories(services)) == ["Owns a cat"]


def test_mcp_memory_service(services: Services) -> None:
    path = DATA / "mcp_memory_service_export.json"
    report = run(
        services.memories, services.relationships, Caller(ALICE), "mcp-memory-service", read("mcp-memory-service", path)
    )
    assert (report.read, report.created) == (2, 2)
    assert report.skipped == [("memory 3", "no content")]
    assert report.unmapped == {"updated_at": 2, "updated_at_iso": 1}
    stored = memories(services)
    deadline = stored["Remember that the project deadline is next Friday."]
    assert (deadline.type, deadline.tags, deadline.structured_content) == (
        "reminder", ("project", "deadline"), {"source": "user_input", "priority": "high"},
    )  # fmt: skip
    assert deadline.as_dict()["context"]["timestamp"] == "2025-01-15T10:30:00.000000Z"
    staging = stored["The staging database moved to db-staging-2."]
    assert staging.tags == ("infra", "database")
    assert staging.as_dict()["context"]["timestamp"] == "2025-01-04T14:13:20.500000Z"
    assert (
        run(
            services.memories,
            services.relationships,
            Caller(ALICE),
            "mcp-memory-service",
            read("mcp-memory-service", path),
        ).created
        == 0
    )


def test_basic_memory(services: Services) -> None:
    parsed = read("basic-memory", DATA / "basic-memory")
    report = run(services.memories, services.relationships, Caller(ALICE), "basic-memory", parsed)
    assert (report.read, report.created) == (3, 3)
    [(where, why)] = report.skipped
    assert where == "broken.md" and "frontmatter is not YAML" in why
    assert report.links == {NO_END: 3}  # the notes they link to are not in the folder
    assert [(link.source_key, link.target_key, link.relation_type, link.observation) for link in parsed.links] == [
        ("coffee-brewing-methods", "Coffee Bean Origins", "relates_to", None),
        ("coffee-brewing-methods", "Proper Grinding Technique", "requires", "burr grinder"),
        ("coffee-brewing-methods", "Tea Brewing Methods", "links_to", None),
    ]
    stored = {m.title: m for m in services.memories.list(Caller(ALICE), limit=10).items}
    coffee = stored["Coffee Brewing Methods"]
    assert (coffee.type, coffee.tags) == ("note", ("coffee", "brewing"))
    assert coffee.content.startswith("# Coffee Brewing Methods\n\n## Observations\n- [method] Pour over")
    paul = stored["Paul Graham"]
    assert (paul.type, paul.tags) == ("person", ("startups", "essays"))
    assert paul.structured_content == {"status": "active", "last_updated": "2024-01-15"}
    plain = stored["no-frontmatter"]
    assert plain.content == "Just a plain Markdown note without frontmatter."
    assert (
        run(
            services.memories,
            services.relationships,
            Caller(ALICE),
            "basic-memory",
            read("basic-memory", DATA / "basic-memory"),
        ).created
        == 0
    )


@pytest.mark.parametrize("source", ["mem0", "mcp-memory-service"])
def test_json_formats_refuse_what_is_not_theirs(services: Services, tmp_path: Path, source: str) -> None:
    not_json, wrong = tmp_path / "a.json", tmp_path / "b.json"
    not_json.write_text("{")
    wrong.write_text(json.dumps({"something": "else"}))
    with pytest.raises(ValidationFailed, match="not JSON"):
        read(source, not_json)
    with pytest.raises(ValidationFailed, match="no list of memories"):
        read(source, wrong)
    assert services.memories.list(Caller(ALICE)).total == 0


def test_a_folder_format_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed, match="not a folder"):
        read("basic-memory", DATA / "mem0_get_all.json")
    with pytest.raises(ValidationFailed, match="no such folder"):
        read("basic-memory", tmp_path / "absent")


def test_an_import_reaches_only_its_user(services: Services) -> None:
    run(services.memories, services.relationships, Caller("bob"), "mem0", read("mem0", DATA / "mem0_get_all.json"))
    assert services.memories.list(Caller(ALICE)).total == 0
    assert (
        run(
            services.memories, services.relationships, Caller(ALICE), "mem0", read("mem0", DATA / "mem0_get_all.json")
        ).created
        == 3
    )


def test_a_record_the_source_repeats_is_stored_once(services: Services, tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    record = {"memory": "Owns a cat named Miso", "created_at": "2024-01-02T03:04:05Z"}
    path.write_text(
        json.dumps(
            [{**record, "id": "a"}, {**record, "id": "b"}, {**record, "id": "c", "memory": "OWNS a cat named Miso!"}]
        )
    )
    report = run(services.memories, services.relationships, Caller(ALICE), "mem0", read("mem0", path))
    assert (report.created, report.repeated_in_source) == (2, 1)  # other case is another record, kept
    ids = {m.content: m.id for m in services.memories.list(Caller(ALICE)).items}
    first, other = ids["Owns a cat named Miso"], ids["OWNS a cat named Miso!"]
    assert report.memory_ids == {"a": first, "b": first, "c": other}
