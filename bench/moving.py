"""Moving in: memories/s importing a 10,000-entity server-memory file, and importing it again.

The file has server-memory's own line form (one entity a line: a name, a type and
two observations taken from LoCoMo turns, so the texts have conversation length).
Three runs on a fresh SQLite file with the real embedding model: a dry run, the
import, and the same import again (which creates nothing). Beside them, the
embedder's own rate on the same texts: the import cannot be faster than that.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.locomo import DATA, turns
from bench.report import Table
from remember.caller import Caller


def write_graph(path: Path, count: int) -> None:
    texts = [f["content"] for s in json.loads(DATA.read_text()) for _, f in turns(s["conversation"], s["sample_id"])]
    lines = []
    for n in range(count):
        observations = [texts[n % len(texts)], f"entity {n}: {texts[(n * 7 + 3) % len(texts)]}"]
        lines.append(
            json.dumps({"type": "entity", "name": f"Entity {n}", "entityType": "note", "observations": observations})
        )
    path.write_text("\n".join(lines))


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.service.import_export.peers import read
    from remember.service.import_export.peers import run as import_parsed
    from remember.store import open_store

    count = 1_000 if quick else 10_000
    results: dict[str, Any] = {"entities": count}
    with tempfile.TemporaryDirectory() as tmp:
        graph = Path(tmp) / "memory.jsonl"
        write_graph(graph, count)
        embedder = MiniLMEmbedder()
        services = Services.over(open_store(str(Path(tmp) / "moving.db")), embedder=embedder)
        for name, dry in (("dry run", True), ("import", False), ("again", False)):
            started = time.perf_counter()
            report = import_parsed(
                services.memories,
                services.relationships,
                Caller("bench"),
                "server-memory",
                read("server-memory", graph),
                dry_run=dry,
            )
            seconds = time.perf_counter() - started
            results[name] = {"seconds": seconds, "per_s": count / seconds, "created": report.created}
        texts = [m.content for m in services.memories.list(Caller("bench"), limit=100).items]
        started = time.perf_counter()
        embedder.embed(texts * 10)
        results["embedder_per_s"] = len(texts) * 10 / (time.perf_counter() - started)
        services.close()
    table = Table(
        f"Importing a {count}-entity server-memory file (SQLite, MiniLM)", ["run", "seconds", "memories/s", "created"]
    )
    for name in ("dry run", "import", "again"):
        r = results[name]
        table.add(name, r["seconds"], r["per_s"], r["created"])
    table.print()
    print(f"\nthe embedder alone: {results['embedder_per_s']:.0f} texts/s")
    return results
