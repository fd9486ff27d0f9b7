"""An import that meets a full disk: what was written is kept and said, and running it again finishes it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.errors import StoreError
from remember.service import Services
from remember.service.import_export.peers import importer, read, run
from remember.store import open_store


def test_a_full_disk_stops_an_import_that_a_second_run_finishes(
    small_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer, "PART", 50)
    graph = tmp_path / "memory.jsonl"
    lines = [
        {"type": "entity", "name": f"Entity {n}", "entityType": "note", "observations": [f"{n} " + "lorem ipsum " * 60]}
        for n in range(600)
    ]
    graph.write_text("\n".join(json.dumps(line) for line in lines))
    services = Services.over(open_store(str(small_disk / "remember.db")))  # keywords only: quick to fill a disk
    ballast = small_disk / "ballast"
    ballast.write_bytes(b"\0" * (6 << 20))
    with pytest.raises(StoreError, match="run the same import again to finish it") as failure:
        run(services.memories, services.relationships, Caller("alice"), "server-memory", read("server-memory", graph))
    kept = int(re.search(r"(\d+) memories were imported before this", failure.value.message).group(1))  # type: ignore[union-attr]
    assert 0 < kept < 600
    assert services.memories.list(Caller("alice")).total == kept
    ballast.unlink()
    again = run(
        services.memories, services.relationships, Caller("alice"), "server-memory", read("server-memory", graph)
    )
    assert (again.already_present, again.created) == (kept, 600 - kept)
    assert services.memories.list(Caller("alice")).total == 600
    services.close()
