"""`export --format markdown`: one note per memory, read back by the basic-memory importer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from remember.caller import Caller
from remember.clock import to_text
from remember.errors import ValidationFailed
from remember.models import Memory
from remember.service import Services
from remember.service.import_export.peers import read, run
from remember.service.import_export.peers.basic_memory import frontmatter
from remember.service.import_export.peers.exporting import to_markdown
from remember.service.import_export.peers.linking import CREATED, PRESENT
from remember.service.import_export.peers.markdown import RELATIONS, escape_text, note, relations_section
from remember.service.relationships import RelationshipDraft
from remember.service.validity import When

ALICE, BOB = "alice", "bob"
KEPT = (
    "id",
    "created_at",
    "updated_at",
    "version",
    "content",
    "title",
    "type",
    "weight",
    "trust",
    "tags",
    "references",
    "context",
    "location",
    "structured_content",
)


def test_notes_have_the_fields_as_frontmatter(services: Services, tmp_path: Path) -> None:
    made = services.memories.create(
        Caller(ALICE),
        {"content": "Sarah is a PM at Google.\n\nMet at PyCon.", "title": "Sarah: PM", "type": "person",
         "tags": ["people", "work"], "weight": 0.8, "context": {"timestamp": "2025-04-01", "source": "chat"}},
    )  # fmt: skip
    assert to_markdown(services.store, Caller(ALICE), tmp_path / "notes") == (1, 0)
    [path] = (tmp_path / "notes").iterdir()
    assert path.name == f"sarah-pm-{made.id[:8]}.md"
    head, body = path.read_text().removeprefix("---\n").split("\n---\n\n", 1)
    fields = yaml.safe_load(head)
    assert fields["title"] == "Sarah: PM" and fields["tags"] == ["people", "work"]
    assert (fields["type"], fields["weight"], fields["remember_id"]) == ("person", 0.8, made.id)
    assert fields["happened"] == "2025-04-01T00:00:00.000000Z"
    assert body == "Sarah is a PM at Google.\n\nMet at PyCon.\n"


def test_markdown_round_trip(services: Services, tmp_path: Path) -> None:
    services.memories.create(
        Caller(ALICE),
        {"content": "Dune: a desert planet, spice, and a boy who becomes a messiah.", "title": "Dune", "type": "book",
         "tags": ["fiction"], "weight": 0.9, "trust": 0.3, "references": ["https://example.com/dune"],
         "context": {"timestamp": "2024-05-06T07:08:09Z", "conversation_id": "c1", "participants": ["me", "Ann"]},
         "location": {"address": "Berlin", "lat": 52.5, "lon": 13.4}, "structured_content": {"rating": 5}},
    )  # fmt: skip
    services.memories.create(Caller(ALICE), {"content": "# A heading\n\n- a list [[with a link]]\n"})
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    report = run(
        services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", tmp_path / "notes")
    )
    assert (report.created, report.skipped) == (2, [])
    assert report.unmapped == {}  # remember's bookkeeping is read back: ids, dates, versions

    def kept(user: str) -> list[dict[str, object]]:
        found = services.memories.list(Caller(user), sort_by="weight", sort_order="asc").items
        return [{k: m.as_dict()[k] for k in KEPT} | {"happened": m.occurred_at} for m in found]

    mine, theirs = kept(ALICE), kept(BOB)
    assert mine[0]["title"] is None  # an untitled memory's note has no title, and it comes back untitled
    assert theirs == mine


def test_export_refuses_to_overwrite(services: Services, tmp_path: Path) -> None:
    services.memories.create(Caller(ALICE), {"content": "one"})
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    with pytest.raises(ValidationFailed, match="exists already"):
        to_markdown(services.store, Caller(ALICE), tmp_path / "notes")


TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), min_size=1, max_size=80)


@settings(max_examples=150, deadline=None, database=None)
@given(title=TEXT, content=TEXT, tags=st.lists(TEXT, max_size=4), weight=st.floats(0, 1))
def test_a_note_reads_back_as_it_was_written(title: str, content: str, tags: list[str], weight: float) -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    memory = Memory(
        id="0b6f3c1e-0000", user_id=ALICE, content=content, type="note", weight=weight, trust=0.5,
        created_at=now, updated_at=now, occurred_at=now, title=title, tags=tuple(tags),
    )  # fmt: skip
    fields, body = frontmatter(note(memory))
    assert (fields["title"], fields["tags"], fields["weight"], fields["happened"]) == (
        title,
        tags,
        weight,
        to_text(now),
    )
    assert body == f"\n{escape_text(content)}\n"


def test_relationships_are_written_as_links_and_read_back(services: Services, tmp_path: Path) -> None:
    ann = services.memories.create(Caller(ALICE), {"content": "Ann leads the data team.", "title": "Ann"})
    ben = services.memories.create(Caller(ALICE), {"content": "Ben runs the offsite.", "title": "Ben"})
    services.relationships.create(
        Caller(ALICE), RelationshipDraft([ann.id, ben.id], "works_with", "met at the offsite")
    )
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    ann_note = (tmp_path / "notes" / f"ann-{ann.id[:8]}.md").read_text()
    assert ann_note.endswith(f"Ann leads the data team.\n\n{RELATIONS}\n\n- works_with [[ben-{ben.id[:8]}]]\n")

    report = run(
        services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", tmp_path / "notes")
    )
    assert report.links == {CREATED: 1, PRESENT: 1}  # each note lists the link: made once
    bobs = {m.title: m for m in services.memories.list(Caller(BOB)).items}
    assert bobs["Ann"].content == "Ann leads the data team."  # the section is not part of the text
    [rel] = services.relationships.links(Caller(BOB), [bobs["Ann"].id])[bobs["Ann"].id]
    assert (rel.relationship_type, set(rel.memory_ids)) == ("works_with", {bobs["Ann"].id, bobs["Ben"].id})


@pytest.mark.parametrize(
    "content",
    [
        f"Notes on the offsite.\n{RELATIONS}\nnot a section: part of the text",
        f"{RELATIONS}\nfirst line is the heading",
        f"one backslash before it\n\\{RELATIONS}\nand two\n\\\\{RELATIONS}",
    ],
)
def test_a_text_holding_the_sections_heading_reads_back_whole(services: Services, tmp_path: Path, content: str) -> None:
    kept = services.memories.create(Caller(ALICE), {"content": content, "title": "Offsite"})
    other = services.memories.create(Caller(ALICE), {"content": "Ben runs the offsite.", "title": "Ben"})
    services.relationships.create(Caller(ALICE), RelationshipDraft([kept.id, other.id], "about"))
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    report = run(
        services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", tmp_path / "notes")
    )
    bobs = {m.title: m for m in services.memories.list(Caller(BOB)).items}
    assert bobs["Offsite"].content == content and report.links[CREATED] == 1


def test_a_relationship_type_is_one_line(services: Services) -> None:
    a = services.memories.create(Caller(ALICE), {"content": "a"})
    b = services.memories.create(Caller(ALICE), {"content": "b"})
    for kind in ("works_with\n- owns [[secret]]", "tab\there", "line\u2028break"):
        with pytest.raises(ValidationFailed, match="relationship_type must be one line of text"):
            services.relationships.create(Caller(ALICE), RelationshipDraft([a.id, b.id], kind))
    assert services.relationships.links(Caller(ALICE), [a.id]) == {a.id: []}
    assert relations_section([("stored\n- owns", "other")]).count("\n- ") == 1  # one stored before the check


def test_a_span_travels_through_markdown(services: Services, tmp_path: Path) -> None:
    """When a memory is true goes with it."""
    services.memories.create(
        Caller(ALICE),
        {"content": "I lived in Lyon.", "context": {"timestamp": "2015-01-01"}, "valid_until": "2018-06-30"},
    )
    later = {"content": "I work at Acme.", "context": {"timestamp": "2024-01-01"}, "valid_from": "2019-03-01"}
    services.memories.create(Caller(ALICE), later)
    to_markdown(services.store, Caller(ALICE), tmp_path / "notes")
    run(
        services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", tmp_path / "notes")
    )
    found = services.memories.list(Caller(BOB), when=When(everything=True), sort_by="occurred_at", sort_order="asc")
    spans = [(m.content, m.starts.year, m.valid_until.year if m.valid_until else None) for m in found.items]
    assert spans == [("I lived in Lyon.", 2015, 2018), ("I work at Acme.", 2019, None)]


def test_supersession_travels_through_markdown(services: Services, tmp_path: Path) -> None:
    """What replaced what goes with the notes (named by permalink) and comes back between the imported memories."""
    alice = Caller(ALICE)
    paris = services.memories.create(alice, {"content": "I live in Paris.", "context": {"timestamp": "2019-01-01"}})
    moved = {"content": "I moved to Berlin.", "context": {"timestamp": "2024-03-01"}, "supersedes": [paris.id]}
    berlin = services.memories.create(alice, moved)
    services.memories.create(alice, {"content": "I like jazz.", "context": {"timestamp": "2020-01-01"}})
    folder = tmp_path / "notes"
    to_markdown(services.store, alice, folder)
    paris_note = next(folder.glob("i-live-in-paris-*.md"))
    berlin_note = next(folder.glob("i-moved-to-berlin-*.md"))
    assert frontmatter(paris_note.read_text())[0]["superseded_by"] == berlin_note.stem
    assert frontmatter(berlin_note.read_text())[0]["supersedes"] == [paris_note.stem]

    report = run(services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", folder))
    assert report.links["kept as supersessions"] == 1
    everything = services.memories.list(Caller(BOB), when=When(everything=True)).items
    by_text = {m.content: m for m in everything}
    old, new = by_text["I live in Paris."], by_text["I moved to Berlin."]
    assert old.superseded_by == new.id and new.supersedes == (old.id,)
    assert old.valid_until is not None and old.valid_until.year == 2024
    assert (old.version, new.version) == (paris.version + 1, berlin.version)  # as exported, no new version
    current = {m.content for m in services.memories.list(Caller(BOB)).items}
    assert current == {"I moved to Berlin.", "I like jazz."}
    then = services.memories.list(Caller(BOB), when=When(as_of=datetime(2020, 6, 1, tzinfo=UTC))).items
    assert {m.content for m in then} == {"I live in Paris.", "I like jazz."}

    again = run(services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", folder))
    assert again.created == 0
    twice = {m.content: m for m in services.memories.list(Caller(BOB), when=When(everything=True)).items}
    assert twice["I moved to Berlin."].supersedes == (old.id,)  # not recorded twice


def test_a_supersession_whose_other_note_is_missing_is_counted_not_guessed(services: Services, tmp_path: Path) -> None:
    alice = Caller(ALICE)
    paris = services.memories.create(alice, {"content": "I live in Paris.", "context": {"timestamp": "2019-01-01"}})
    moved = {"content": "I moved to Berlin.", "context": {"timestamp": "2024-03-01"}, "supersedes": [paris.id]}
    services.memories.create(alice, moved)
    folder = tmp_path / "notes"
    to_markdown(services.store, alice, folder)
    next(folder.glob("i-moved-to-berlin-*.md")).unlink()
    report = run(services.memories, services.relationships, Caller(BOB), "basic-memory", read("basic-memory", folder))
    assert report.links["supersessions not kept: a note is not among the imported memories"] == 1
    (kept,) = services.memories.list(Caller(BOB), when=When(everything=True)).items
    assert kept.superseded_by is None and kept.valid_until is not None  # it still ended when it did
