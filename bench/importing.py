"""A writer beside `remember import`: the longest a server's create waits while a large import runs.

A 100,000-memory export (one real export record, cloned) is imported into a SQLite
file while another connection creates memories in a loop, as a server would. The
same import is run once as one transaction per user (how imports were written before
they were cut into parts) and once in parts of ``PART`` memories.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.report import Table, percentiles
from remember.caller import Caller


def _records(folder: Path, count: int) -> list[dict[str, Any]]:
    from remember.service import Services
    from remember.service.import_export.jsonl import export_records
    from remember.store import open_store

    source = Services.over(open_store(str(folder / "source.db")))
    source.memories.create(Caller("carol"), {"content": "imported note about a meeting", "tags": ["bulk"]})
    header, *records = export_records(source.store, [Caller("carol")])
    source.close()
    memory = next(r for r in records if r["kind"] == "memory")
    return [header, *({**memory, "memory": {**memory["memory"], "id": f"m{n:07d}"}} for n in range(count))]


def _import_beside_a_writer(path: Path, records: list[dict[str, Any]], part: int) -> dict[str, Any]:
    from remember.errors import StoreError
    from remember.service import Services
    from remember.service.import_export import jsonl
    from remember.store import open_store

    importer, server = Services.over(open_store(str(path))), Services.over(open_store(str(path)))
    waits: list[float] = []
    failures: list[str] = []
    finished = threading.Event()

    def write() -> None:
        while not finished.is_set():
            started = time.perf_counter()
            try:
                server.memories.create(Caller("alice"), {"content": f"written during the import ({len(waits)})"})
            except StoreError as exc:
                failures.append(exc.message)
            waits.append(time.perf_counter() - started)
            time.sleep(0.01)

    saved, jsonl.PART = jsonl.PART, part
    writer = threading.Thread(target=write)
    started = time.perf_counter()
    writer.start()
    try:
        jsonl.import_records(importer.store, importer.indexer, records)
    finally:
        seconds = time.perf_counter() - started
        finished.set()
        writer.join()
        jsonl.PART = saved
        importer.close()
        server.close()
    return {"import_s": seconds, "writes": len(waits), "failed": len(failures), "max_wait_s": max(waits), **{
        f"{k}_wait_s": v for k, v in percentiles(waits).items() if k != "n"}}  # fmt: skip


def run(quick: bool) -> dict[str, Any]:
    from remember.service.import_export.jsonl import PART

    count = 10_000 if quick else 100_000
    folder = Path(tempfile.mkdtemp(prefix="remember-bench-import-"))
    records = _records(folder, count)
    table = Table(
        f"A writer beside an import of {count:,} memories (SQLite)",
        ["transactions", "import s", "writes", "failed", "p50 wait s", "p95 wait s", "longest wait s"],
    )
    results: dict[str, Any] = {"memories": count}
    for label, part in (("one per user", 10**9), (f"parts of {PART}", PART)):
        figures = _import_beside_a_writer(folder / f"target-{part}.db", records, part)
        table.add(label, figures["import_s"], figures["writes"], figures["failed"], figures["p50_wait_s"],
                  figures["p95_wait_s"], figures["max_wait_s"])  # fmt: skip
        results[label] = figures
    table.print()
    return results
