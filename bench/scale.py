"""One user's memories at scale (100k by default, ``--scale-size 1000000``), SQLite and PostgreSQL side by side.

Vectors are made once and given to both backends: the MiniLM vectors of a few
thousand LoCoMo texts, each copy moved by a little noise and renormalised
(clusters shaped like real embeddings, without embedding a million texts).
Ingest goes through the store's batch insert with the index entries given (no
embedding). Searches embed the query (MiniLM) as a server does. Recall@10 of
SQLite's approximate path is measured against exact cosine over the same
vectors, for LoCoMo questions and for queries near stored memories. A fresh
server is a new process on the finished database: its resident memory after
its first search and after 1,000 searches, and the time from spawn to its
first search answered.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.backends import corpus, settle
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles, timed

SIZE = 100_000  # memories; --scale-size sets it
POSTGRES = True  # --scale-no-postgres clears it
BASE = 3_000  # texts embedded for real; the rest are noisy copies of their vectors
NOISE = 0.03  # per-dimension noise of a copy (cosine to its original ~0.75)
BATCH = 1_000
ROUNDS = 300
RARE_EVERY = 200  # one memory in this many carries the tag "rare" (a selective filter)
USER = "bench"


def make_vectors(n: int, texts: list[str], embedder: Any) -> Any:
    import numpy as np

    base = np.vstack([embedder.embed(texts[i : i + 500]) for i in range(0, min(BASE, n), 500)]).astype(np.float32)
    rng = np.random.default_rng(1)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        rows = base[np.arange(start, stop) % len(base)]
        out[start:stop] = rows + NOISE * rng.standard_normal(rows.shape).astype(np.float32)
    out[: len(base)] = base
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def batches(texts: list[str], vectors: Any) -> Iterator[list[tuple[Any, Any]]]:
    from datetime import UTC, datetime, timedelta

    from remember.models import IndexEntry, Memory
    from remember.search import text

    start = datetime(2020, 1, 1, tzinfo=UTC)
    for first in range(0, len(texts), BATCH):
        out = []
        for i in range(first, min(len(texts), first + BATCH)):
            at = start + timedelta(minutes=i)
            memory = Memory(
                id=f"m{i:07}", user_id=USER, content=texts[i], type="note", weight=0.5, trust=0.5,
                tags=("rare",) if i % RARE_EVERY == 0 else ("common",),
                created_at=at, updated_at=at, occurred_at=at,
            )  # fmt: skip
            index_text = text.index_text(None, texts[i], memory.tags, None)
            out.append((memory, IndexEntry(index_text, text.date_text(at), vectors[i].astype("<f4").tobytes())))
        yield out


def ingest(services: Any, texts: list[str], vectors: Any) -> float:
    started = time.perf_counter()
    done = 0
    for batch in batches(texts, vectors):
        services.store.insert_memories(batch)
        done += len(batch)
        if done % 100_000 == 0:
            print(f"  {done:,} memories in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    rate = len(texts) / (time.perf_counter() - started)
    settle(services.store)
    return rate


def searches(services: Any, questions: list[str]) -> dict[str, Any]:
    rng = random.Random(5)
    chosen = [rng.choice(questions) for _ in range(ROUNDS)]
    services.search.search(USER, chosen[0], record_access=False)  # warm
    timings: dict[str, list[float]] = {"hybrid": [], "keyword": [], "semantic": [], "hybrid_rare_tag": []}
    for q in chosen:
        for label, alpha, filters in (("hybrid", None, None), ("keyword", 0.0, None), ("semantic", 1.0, None),
                                      ("hybrid_rare_tag", None, {"tags": "rare"})):  # fmt: skip
            t = time.perf_counter()
            services.search.search(USER, q, alpha=alpha, filters=filters, record_access=False)
            timings[label].append((time.perf_counter() - t) * 1000)
    listing = timed(lambda _: services.memories.list(USER, filters={"tags": "rare"}, limit=20), range(30))
    return {**{f"{k}_ms": percentiles(v) for k, v in timings.items()}, "list_rare_tag_ms": listing}


def recall(store: Any, vectors: Any, queries: Any) -> float:
    """Recall@10 of the store's vector search against exact cosine over ``vectors``."""
    import numpy as np

    hits = 0
    for q in queries:
        exact = {f"m{i:07}" for i in np.argpartition(-(vectors @ q), 10)[:10]}
        found = store.vector_candidates(USER, q.astype("<f4").tobytes(), filter=None, deleted="exclude", limit=10)
        hits += len(exact & {i for i, _ in found})
    return hits / (10 * len(queries))


def sqlite_side(path: Path, texts: list[str], vectors: Any, questions: list[str], embedder: Any) -> dict[str, Any]:
    import numpy as np

    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(path)), embedder=embedder)
    services.indexer.state()
    rate = ingest(services, texts, vectors)
    store = services.store
    default_min = store.vector_index_min
    store.vector_index_min = 0  # the approximate path, whatever the size, for its build time and recall
    t = time.perf_counter()
    store.vector_candidates(USER, vectors[0].tobytes(), filter=None, deleted="exclude", limit=10)
    build_s = time.perf_counter() - t
    rng = np.random.default_rng(8)
    asked = np.vstack([embedder.embed_query(q) for q in rng.choice(questions, 100)]).astype(np.float32)
    near = vectors[rng.integers(0, len(vectors), 100)] + 0.02 * rng.standard_normal((100, vectors.shape[1]))
    near = (near / np.linalg.norm(near, axis=1, keepdims=True)).astype(np.float32)
    figures = {"recall_questions": recall(store, vectors, asked), "recall_near": recall(store, vectors, near)}
    approximate = searches(services, questions)
    store.vector_index_min = default_min
    default = searches(services, questions) if default_min is None or len(texts) < default_min else approximate
    services.close()
    serving = serve_apart(path, questions)
    return {"backend": "SQLite", "ingest_per_s": rate, "index_build_s": build_s, **figures,
            "approximate": approximate, "default": default, "serving": serving}  # fmt: skip


def postgres_side(tmp: Path, texts: list[str], vectors: Any, questions: list[str], embedder: Any) -> dict[str, Any]:
    import numpy as np

    from remember.service import Services
    from remember.store import open_store

    with embedded_postgres_url(tmp / "pg") as url:
        services = Services.over(open_store(url), embedder=embedder)
        services.indexer.state()  # record the embedder, so the HNSW index exists before the load
        rate = ingest(services, texts, vectors)
        rng = np.random.default_rng(8)
        asked = np.vstack([embedder.embed_query(q) for q in rng.choice(questions, 100)]).astype(np.float32)
        figures = {"recall_questions": recall(services.store, vectors, asked)}
        timings = searches(services, questions)
        services.close()
    return {"backend": "PostgreSQL", "ingest_per_s": rate, **figures, "default": timings}


def serve(path: str, queries: list[str], spawned: float) -> dict[str, Any]:
    """A fresh server on ``path``: time from spawn to its first search answered, then 1,000 searches."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(path), embedder=MiniLMEmbedder())
    services.search.search(USER, queries[0], record_access=False)
    first_s = time.time() - spawned
    fresh = rss_mb()
    search_ms = timed(lambda q: services.search.search(USER, q, record_access=False), queries[:1_000])
    after = rss_mb()
    services.close()
    return {"spawn_to_first_search_s": first_s, "rss_fresh_mb": fresh, "rss_after_mb": after, "search_ms": search_ms}


def serve_apart(path: Path, questions: list[str]) -> dict[str, Any]:
    rng = random.Random(12)
    queries = [rng.choice(questions) for _ in range(1_000)]
    code = (
        "import json, sys; from bench.scale import serve; "
        "a = json.load(sys.stdin); print(json.dumps(serve(a['path'], a['queries'], a['spawned'])))"
    )
    root = Path(__file__).resolve().parents[1]
    spawned = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True, timeout=3_600,
        input=json.dumps({"path": str(path), "queries": queries, "spawned": spawned}),
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rss_mb() -> float:
    status = Path(f"/proc/{os.getpid()}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder

    n = 5_000 if quick else SIZE
    texts, questions = corpus(n)
    embedder = MiniLMEmbedder()
    vectors = make_vectors(n, texts, embedder)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        results.append(sqlite_side(Path(tmp) / "scale.db", texts, vectors, questions, embedder))
        if POSTGRES:
            results.append(postgres_side(Path(tmp), texts, vectors, questions, embedder))
    report(n, results)
    return {"memories": n, "backends": results}


def report(n: int, results: list[dict[str, Any]]) -> None:
    table = Table(f"Scale: {n:,} memories of one user", ["backend", "measure", "p50", "p95", "note"])
    for r in results:
        name = r["backend"]
        table.add(name, "ingest (batch insert, vectors given)", r["ingest_per_s"], None, "memories/s")
        runs = [("", r["default"])]
        if name == "SQLite":
            table.add(name, "approximate index build", r["index_build_s"], None, "s, from the database")
            table.add(name, "recall@10 vs exact (questions)", r["recall_questions"], None, "approximate path")
            table.add(name, "recall@10 vs exact (near memories)", r["recall_near"], None, "approximate path")
            if r["default"] is not r["approximate"]:
                runs = [(" (exact, default here)", r["default"]), (" (approximate)", r["approximate"])]
        else:
            table.add(name, "recall@10 vs exact (questions)", r["recall_questions"], None, "HNSW")
        for suffix, timings in runs:
            for label in ("hybrid", "keyword", "semantic", "hybrid_rare_tag", "list_rare_tag"):
                p = timings[f"{label}_ms"]
                table.add(name, f"{label.replace('_', ' ')}{suffix}", p["p50"], p["p95"], "ms, query embedded")
        if "serving" in r:
            s = r["serving"]
            table.add(name, "fresh server: spawn to first search", s["spawn_to_first_search_s"], None, "s")
            table.add(name, "fresh server: resident", s["rss_fresh_mb"], None, "MB after the first search")
            table.add(name, "fresh server: resident", s["rss_after_mb"], None, "MB after 1,000 searches")
            table.add(name, "fresh server: hybrid", s["search_ms"]["p50"], s["search_ms"]["p95"], "ms")
    table.print()
