"""What "current only" costs a search at scale: one user's memories (100k by default, ``--scale-size``), one in
``ENDED_EVERY`` of them ended, SQLite and PostgreSQL side by side.

The corpus is the scale suite's (bench/scale.py: two real turns joined a memory, vectors given, imported as a
remember export). Every ``ENDED_EVERY``-th memory has a ``valid_until``, so a default search adds the
condition "not ended" (it is left out for a user none of whose memories has ended); the same search with
``include_superseded`` runs without it. The two run in turn, each on questions of its own, ``ROUNDS`` of each;
the figures are milliseconds with the query embedded, as a server answers.
"""

from __future__ import annotations

import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench import scale
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles
from remember.caller import Caller

ENDED_EVERY = 10
ROUNDS = 200
RUNS = ("current only (default)", "everything (include_superseded)", "as of a date")


def _memory(number: int, content: str) -> Any:
    import dataclasses

    made = _plain(number, content)
    if number % ENDED_EVERY:
        return made
    return dataclasses.replace(made, valid_until=made.occurred_at + timedelta(days=30))


_plain = scale.memory


def timings(services: Any, questions: list[str]) -> dict[str, Any]:
    from remember.clock import from_text
    from remember.service.validity import When

    rng = random.Random(11)
    asked = [rng.choice(questions) for _ in range(len(RUNS) * ROUNDS)]
    choices = (When(), When(everything=True), When(as_of=from_text("2020-03-01")))
    services.search.search(Caller(scale.USER), asked[0], record_access=False)  # warm
    out: dict[str, list[float]] = {name: [] for name in RUNS}
    for n, question in enumerate(asked):
        name, when = RUNS[n % len(RUNS)], choices[n % len(RUNS)]
        t = time.perf_counter()
        services.search.search(Caller(scale.USER), question, record_access=False, when=when)
        out[name].append((time.perf_counter() - t) * 1000)
    return {name: percentiles(v) for name, v in out.items()}


def side(services: Any, texts: list[str], vectors: Any, questions: list[str]) -> dict[str, Any]:
    services.indexer.state()
    scale.ingest(services, texts, vectors)
    return timings(services, questions)


def run(quick: bool = False) -> dict[str, Any]:
    from bench.embedcache import cached_minilm
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    n = 5_000 if quick else scale.SIZE
    base, questions = scale.base_texts()
    texts, vectors = scale.blended(n, base, cached_minilm())
    embedder = MiniLMEmbedder()
    results: dict[str, Any] = {}
    scale.memory = _memory
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if scale.SQLITE:
                services = Services.over(open_store(str(Path(tmp) / "current.db")), embedder=embedder)
                results["SQLite"] = side(services, texts, vectors, questions)
                services.close()
            if scale.POSTGRES:
                with embedded_postgres_url(Path(tmp) / "pg") as url:
                    services = Services.over(open_store(url, keywords_home=Path(tmp) / "pg-kw"), embedder=embedder)
                    results["PostgreSQL"] = side(services, texts, vectors, questions)
                    services.close()
    finally:
        scale.memory = _plain
    table = Table(
        f"Current only at scale: {n:,} memories, 1 in {ENDED_EVERY} ended", ["backend", "search", "p50", "p95"]
    )
    for backend, runs in results.items():
        for name, p in runs.items():
            table.add(backend, name, p["p50"], p["p95"])
    table.print()
    return {"memories": n, "ended_every": ENDED_EVERY, "rounds": ROUNDS, "ms": results}
