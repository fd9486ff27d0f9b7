"""Validity, supersession and identity travel through remember's own export and back, on both backends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remember.caller import Caller
from remember.clock import from_text
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.service.import_export.restore import plan, write
from remember.service.validity import When
from remember.store import open_store

ALICE = Caller("alice")
PERSON = {"template_id": "builtin:person"}


def test_validity_and_supersession_travel(services: Services, tmp_path: Path, clock: Any, embedder: Any) -> None:
    source = Services.over(open_store(f"sqlite:///{tmp_path / 'source.db'}"), clock, embedder)
    paris = source.memories.create(ALICE, {"content": "I live in Paris.", "context": {"timestamp": "2019-01-01"}})
    berlin = source.memories.store_new(
        ALICE, {"content": "I moved to Berlin.", "context": {"timestamp": "2024-03-01"}, "supersedes": [paris.id]}
    ).memory
    ana = {"name": "Ana", "relationship": "friend", "company": "Google"}
    person = source.memories.create(
        ALICE, {**PERSON, "structured_content": ana, "context": {"timestamp": "2024-01-01"}}
    )
    moved = {**ana, "company": "Meta"}
    source.memories.create(ALICE, {**PERSON, "structured_content": moved, "context": {"timestamp": "2025-06-01"}})
    lines = list(export_records(source.store, [ALICE]))
    source.close()

    write(services.store, services.indexer, services.templates, lines, plan(services.store, lines))
    ended = services.memories.get(ALICE, paris.id)
    assert (ended.valid_until, ended.superseded_by) == (berlin.starts, berlin.id)
    assert services.memories.get(ALICE, berlin.id).supersedes == (paris.id,)
    assert [m.id for m in services.memories.list(ALICE).items if m.template_id is None] == [berlin.id]
    for moment, company in (("2025-07-01", "Meta"), ("2025-05-01", "Google")):
        then = services.memories.list(ALICE, when=When(as_of=from_text(moment)), type="person_profile")
        assert [(m.structured_content or {}).get("company") for m in then.items] == [company]
    # the identity key came too: the same person again updates the restored memory
    again = services.memories.store_new(ALICE, {**PERSON, "structured_content": {**ana, "company": "Acme"}})
    assert again.memory.id == person.id and again.identity is not None
