"""Moving users between databases: everything arrives, on either backend, and nothing is half-written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import Conflict, ValidationFailed
from remember.models import MemoryQuery
from remember.service import RelationshipDraft, Services
from remember.service.import_export.jsonl import PART, export_records, import_records, refuse_existing
from remember.service.import_export.jsonl_reading import check_records
from remember.store import Store, open_store

ALICE, BOB = "alice", "bob"


def populate(services: Services) -> None:
    book = services.templates.create(
        Caller(ALICE),
        {
            "name": "Book Review",
            "fields": [
                {"name": "title", "type": "string", "required": True},
                {"name": "rating", "type": "number", "validation": {"min": 1, "max": 5}},
            ],
        },
    )
    services.templates.update(Caller(ALICE), book.id, {"add_fields": [{"name": "isbn", "type": "string"}]})
    dune = services.memories.create(
        Caller(ALICE), {"template_id": book.id, "structured_content": {"title": "Dune", "rating": 5}}
    )
    note = services.memories.create(
        Caller(ALICE),
        {
            "content": "Sarah is a PM at Google",
            "tags": ["people"],
            "context": {"conversation_id": "c1", "timestamp": "2025-05-01"},
            "location": {"lat": 1.0, "lon": 2.0},
            "references": ["https://example.com"],
        },
    )
    services.memories.create(
        Caller(ALICE), {"content": "How long has she been there?", "context": {"conversation_id": "c1"}}
    )
    services.memories.update(Caller(ALICE), note.id, {"title": "Sarah"}, reason="naming")
    gone = services.memories.create(Caller(ALICE), {"content": "to the trash"})
    link = services.relationships.create(
        Caller(ALICE),
        RelationshipDraft([note.id, dune.id], "recommended", "Sarah recommended Dune", 0.7, tags=["books"]),
    )
    services.relationships.update(Caller(ALICE), link.id, {"strength": 0.9}, reason="she insisted")
    services.relationships.create(
        Caller(ALICE), RelationshipDraft([note.id, gone.id], "mentions")
    )  # hidden once trashed
    services.memories.delete(Caller(ALICE), gone.id, reason="clutter")
    services.memories.get(Caller(ALICE), note.id)
    services.preferences.update(Caller(ALICE), "search.default_limit", 25, reason="more")
    services.suggestions.suggest(Caller(ALICE), "Had sushi at Nobu yesterday")
    services.memories.create(Caller(BOB), {"content": "Bob's note"})


def snapshot(store: Store, user: str) -> dict[str, Any]:
    memories = store.memories.page(user, MemoryQuery(limit=100, deleted="include", descending=False)).items
    return {
        "memories": [m.as_dict() for m in memories],
        "history": {m.id: [h.as_dict() for h in store.memories.history(user, m.id)] for m in memories},
        "vectors": {m.id: store.index.get_vector(user, m.id) for m in memories},
        "templates": [
            (t.definition, [v.version for v in store.templates.versions(user, t.id)])
            for t in store.templates.of_user(user)
        ],
        "preferences": store.preferences.get(user),
        "preference_history": [c.as_dict() for c in store.preferences.history(user)],
        "suggestions": store.suggestions.events(user),
        "relationships": [(r.as_dict(), [h.as_dict() for h in h_]) for r, h_ in store.relationships.of_user(user)],
    }


def test_everything_arrives(services: Services, tmp_path: Path, embedder: Any, clock: Any) -> None:
    populate(services)
    target = Services.over(open_store(str(tmp_path / "target.db")), clock, embedder)
    counts = import_records(target.store, target.indexer, export_records(services.store))
    assert counts == {ALICE: 4, BOB: 1}
    for user in (ALICE, BOB):
        assert snapshot(target.store, user) == snapshot(services.store, user)
    assert target.store.transfer.user_ids() == [ALICE, BOB]
    # and it is all usable: search, templates, suggestions' learning
    assert target.search.search(Caller(ALICE), "Sarah at Google").hits[0].memory.title == "Sarah"
    found = [h.memory.content for h in target.search.search(Caller(ALICE), "Google", alpha=0.0).hits]
    assert "How long has she been there?" in found  # its context (the turn before) came along
    assert target.templates.analytics(Caller(ALICE), target.store.templates.of_user(ALICE)[0].id).usage_count == 1
    assert len(snapshot(target.store, ALICE)["relationships"]) == 2
    found_links = target.related.search(Caller(ALICE), "who recommended the novel", alpha=1.0).hits
    assert found_links[0].relationship.observation == "Sarah recommended Dune"  # indexed again on import
    assert target.related.search(Caller(ALICE), "recommended", alpha=0.0).hits[0].relationship.strength == 0.9
    target.close()


def test_one_user_only(services: Services, tmp_path: Path, embedder: Any, clock: Any) -> None:
    populate(services)
    target = Services.over(open_store(str(tmp_path / "target.db")), clock, embedder)
    assert import_records(target.store, target.indexer, export_records(services.store, [Caller(BOB)])) == {BOB: 1}
    assert target.store.transfer.user_ids() == [BOB]
    target.close()


def test_vectors_are_rebuilt_for_another_embedder(services: Services, tmp_path: Path, clock: Any) -> None:
    from remember.search.embedders import HashEmbedder

    populate(services)
    target = Services.over(open_store(str(tmp_path / "target.db")), clock, HashEmbedder())
    import_records(target.store, target.indexer, export_records(services.store))
    memory_id = services.store.memories.page(BOB, MemoryQuery()).items[0].id
    assert target.store.index.get_vector(BOB, memory_id) != services.store.index.get_vector(BOB, memory_id)
    assert target.search.search(Caller(BOB), "Bob note", alpha=1.0).hits
    target.close()


def test_existing_users_are_refused_before_anything_is_written(
    services: Services, tmp_path: Path, embedder: Any, clock: Any
) -> None:
    """What `db copy` checks: every user it copies is new in the target."""
    populate(services)
    target = Services.over(open_store(str(tmp_path / "target.db")), clock, embedder)
    target.memories.create(Caller(BOB), {"content": "already here"})
    with pytest.raises(Conflict, match="bob"):
        refuse_existing(target.store, services.store.transfer.user_ids())
    assert target.store.transfer.user_ids() == [BOB]
    target.close()


def test_a_stored_id_is_refused_by_default_in_the_transaction_that_writes(
    services: Services, tmp_path: Path, embedder: Any, clock: Any
) -> None:
    """Should a record be stored under an imported id between the check and the write, that part is refused."""
    populate(services)
    target = Services.over(open_store(str(tmp_path / "target.db")), clock, embedder)
    import_records(target.store, target.indexer, export_records(services.store, [Caller(BOB)]))
    with pytest.raises(Conflict, match="stored meanwhile under the same id"):
        import_records(target.store, target.indexer, export_records(services.store, [Caller(BOB)]))
    assert len(target.store.memories.page(BOB, MemoryQuery()).items) == 1
    target.close()


@pytest.mark.parametrize(
    "records",
    [
        [],
        [{"format": "something else"}],
        [{"format": "remember-export"}, {"kind": "memory"}],
        [{"format": "remember-export"}, {"kind": "alien", "user_id": "x"}],
        [{"format": "remember-export"}, {"kind": "memory", "user_id": "x", "memory": {"id": "m"}}],
    ],
)
def test_bad_exports_are_refused(services: Services, records: list[Any]) -> None:
    with pytest.raises(ValidationFailed):
        import_records(services.store, services.indexer, iter(records))
    with pytest.raises(ValidationFailed):
        check_records(iter(records))
    assert services.store.transfer.user_ids() == []


def test_checking_an_export_counts_each_users_memories_and_writes_nothing(services: Services) -> None:
    populate(services)
    before = list(export_records(services.store))[1:]
    counts = check_records(export_records(services.store))
    assert counts == {ALICE: 4, BOB: 1}  # alice's memories include one in her trash
    assert len(services.store.memories.page(ALICE, MemoryQuery(deleted="only")).items) == 1
    assert list(export_records(services.store))[1:] == before


def many_records(services: Services, user: str, count: int) -> list[dict[str, Any]]:
    """An export of ``count`` memories of ``user``: one real export record, cloned with new ids."""
    services.memories.create(Caller(user), {"content": "imported note", "tags": ["bulk"]})
    header, *records = export_records(services.store, [Caller(user)])
    memory = next(r for r in records if r["kind"] == "memory")
    clones = [{**memory, "memory": {**memory["memory"], "id": f"m{n:06d}"}} for n in range(count)]
    return [header, *clones]


def test_an_import_commits_in_parts_that_let_another_writer_in(store_url: str, tmp_path: Path) -> None:
    source = Services.over(open_store(f"sqlite:///{tmp_path / 'source.db'}"))
    records = many_records(source, "carol", 6 * PART)
    importer, server = Services.over(open_store(store_url)), Services.over(open_store(store_url))
    seen: list[int] = []

    def between_parts() -> Iterator[dict[str, Any]]:
        """The export, with a server writing and counting each time the import reads past a whole part."""
        for index, record in enumerate(records):
            if index > 1 and (index - 1) % PART == 0:  # the import has just committed its part
                server.memories.create(Caller(ALICE), {"content": f"written during the import {index}"})
                seen.append(server.store.memories.page("carol", MemoryQuery(limit=1)).total)
            yield record

    assert import_records(importer.store, importer.indexer, between_parts()) == {"carol": 6 * PART}
    assert seen == [part * PART for part in range(1, 6)], "each part is committed before the next is read"
    assert server.store.memories.page(ALICE, MemoryQuery(limit=1)).total == 5
    for services in (source, importer, server):
        services.close()


def test_a_bad_line_after_a_written_part_says_what_was_kept(services: Services, tmp_path: Path) -> None:
    source = Services.over(open_store(f"sqlite:///{tmp_path / 'source.db'}"))
    records = [*many_records(source, "carol", PART + 5), {"kind": "memory", "user_id": "carol", "memory": {}}]
    with pytest.raises(ValidationFailed, match=rf"Line {PART + 7} cannot be read.*\n{PART} memories of user carol"):
        import_records(services.store, services.indexer, records)
    assert services.store.memories.page("carol", MemoryQuery(limit=1)).total == PART
    source.close()
