"""Search speed at 10k and 100k memories of realistic length, beside the embedder's own rate.

Memories are LoCoMo turns, tiled with other names and numbers so that copies
differ; queries are LoCoMo questions. Ingest goes through the service in
batches (embedding included) and is compared with the embedder alone on the
same texts in the same run. Search latency includes embedding the query.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.locomo import DATA, turns
from bench.report import Table, timed
from remember.caller import Caller

NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kai", "Lena"]
BATCH = 1_000


def corpus(n: int) -> tuple[list[str], list[str]]:
    data = json.loads(DATA.read_text())
    base = [
        (fields["content"], fields["context"]["timestamp"])
        for s in data
        for _, fields in turns(s["conversation"], s["sample_id"])
    ]
    questions = [qa["question"] for s in data for qa in s["qa"]]
    rng = random.Random(11)
    texts = []
    for i in range(n):
        text, _ = base[i % len(base)]
        if i >= len(base):
            _, _, rest = text.partition(": ")
            text = f"{rng.choice(NAMES)}: {rest} ({rng.randint(1, 9999)})"
        texts.append(text)
    return texts, questions


def rss_mb() -> float:
    status = Path(f"/proc/{os.getpid()}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024


def measure(n: int, rounds: int) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    texts, questions = corpus(n)
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    sample = texts[: min(n, 5_000)]
    started = time.perf_counter()
    for start in range(0, len(sample), BATCH):
        embedder.embed(sample[start : start + BATCH])
    embed_rate = len(sample) / (time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "search.db")), embedder=embedder)
        started = time.perf_counter()
        for start in range(0, n, BATCH):
            services.memories.create_many(Caller("bench"), [{"content": t} for t in texts[start : start + BATCH]])
        ingest_rate = n / (time.perf_counter() - started)
        rng = random.Random(5)
        chosen = [rng.choice(questions) for _ in range(rounds)]
        services.search.search(Caller("bench"), chosen[0])  # loads the user's vectors
        search_ms = timed(lambda q: services.search.search(Caller("bench"), q, record_access=False), chosen)
        keyword_ms = timed(lambda q: services.search.search(Caller("bench"), q, alpha=0.0, record_access=False), chosen)
        ids = [m.id for m in services.memories.list(Caller("bench"), limit=100).items]
        similar_ms = timed(
            lambda i: services.search.similar(Caller("bench"), memory_id=ids[i % len(ids)], limit=10), range(rounds)
        )
        memory = rss_mb()
        services.close()
        serving = serve_apart(Path(tmp) / "search.db", chosen)
    return {
        "memories": n,
        "embedder_per_s": embed_rate,
        "ingest_per_s": ingest_rate,
        "ingest_share": ingest_rate / embed_rate,
        "search_ms": search_ms,
        "keyword_search_ms": keyword_ms,
        "similar_ms": similar_ms,
        "rss_mb": memory,
        "serving": serving,
    }


def serve(path: str, queries: list[str]) -> dict[str, Any]:
    """What a freshly started server does with the database at ``path``: the first search
    (model and vectors loaded), then hybrid searches, and its resident memory afterwards."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(path), embedder=MiniLMEmbedder())
    t = time.perf_counter()
    services.search.search(Caller("bench"), queries[0], record_access=False)
    first_ms = (time.perf_counter() - t) * 1000
    search_ms = timed(lambda q: services.search.search(Caller("bench"), q, record_access=False), queries)
    memory = rss_mb()
    services.close()
    return {"first_search_ms": first_ms, "search_ms": search_ms, "rss_mb": memory}


def serve_apart(path: Path, queries: list[str]) -> dict[str, Any]:
    """``serve`` in a fresh process, as a server started on an existing database."""
    call = f"serve({str(path)!r}, json.load(sys.stdin))"
    code = f"import json, sys; from bench.search import serve; print(json.dumps({call}))"
    return _child(code, json.dumps(queries))


def measure_apart(n: int, rounds: int) -> dict[str, Any]:
    """``measure`` in a fresh process, so that its resident memory is its own."""
    code = f"import json; from bench.search import measure; print(json.dumps(measure({n}, {rounds})))"
    return _child(code)


def _child(code: str, stdin: str = "") -> dict[str, Any]:
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, input=stdin, capture_output=True, text=True, check=True, timeout=3_600
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(quick: bool = False) -> dict[str, Any]:
    sizes = [2_000] if quick else [10_000, 100_000]
    results = [measure_apart(n, 50 if quick else 300) for n in sizes]
    table = Table("Search speed", ["memories", "measure", "p50", "p95", "note"])
    for r in results:
        n = f"{r['memories']:,}"
        table.add(n, "embedder alone", r["embedder_per_s"], None, "texts/s, batches of 1,000")
        table.add(
            n, "ingest via service", r["ingest_per_s"], None, f"memories/s = {r['ingest_share']:.0%} of the embedder"
        )
        table.add(n, "hybrid search", r["search_ms"]["p50"], r["search_ms"]["p95"], "ms, query embedding included")
        table.add(n, "keyword search", r["keyword_search_ms"]["p50"], r["keyword_search_ms"]["p95"], "ms, alpha 0")
        table.add(n, "find similar", r["similar_ms"]["p50"], r["similar_ms"]["p95"], "ms")
        table.add(n, "resident memory", r["rss_mb"], None, "MB, the process that ingested")
        served = r["serving"]
        table.add(n, "fresh server: first search", served["first_search_ms"], None, "ms, model and vectors loaded")
        table.add(n, "fresh server: hybrid search", served["search_ms"]["p50"], served["search_ms"]["p95"], "ms")
        table.add(n, "fresh server: resident memory", served["rss_mb"], None, "MB, whole process")
    table.print()
    return {"sizes": results}
