"""What each local embedder costs, side by side in one run: ingest, search at scale, memory, disk.

- **Ingest**: ``INGEST`` LoCoMo turns stored through the service (``create_many`` on a SQLite file),
  every one embedded: memories per second, best of ``ROUNDS_INGEST`` interleaved runs.
- **Search at scale**: ``SIZE`` memories of one user (100,000 by default; ``BENCH_EMBEDDER_SIZE`` sets
  it), made as ``bench/scale.py`` makes them (two real turns joined, the normalised sum of their
  vectors) from ``BASE`` distinct turns embedded by the embedder itself, imported with their vectors
  given (``remember import``'s path); then ``SEARCHES`` questions of LoCoMo and LongMemEval searched by
  the default search, each query embedded by the embedder: p50 and p95.
- **Memory**: this process's resident memory before and after loading the model (one model per run of
  this process, so the first loaded is measured alone); **disk**: the model files.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.locomo import DATA, turns
from bench.report import Table, percentiles
from remember.caller import Caller

SIZE = int(os.environ.get("BENCH_EMBEDDER_SIZE", "100000"))
BASE = 2_000
INGEST = 400
ROUNDS_INGEST = 2
SEARCHES = 200


def _embedders() -> list[tuple[str, Any, Any]]:
    """Each embedder, and the same model with its vectors cached (for the base turns of the corpus only)."""
    from bench.embedcache import cached_e5, cached_minilm
    from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder

    return [
        ("MiniLM (onnx)", MiniLMEmbedder(), cached_minilm()),
        ("multilingual (e5)", MultilingualEmbedder(), cached_e5()),
    ]


def ingest_rate(embedder: Any, texts: list[dict[str, Any]]) -> float:
    from remember.service import Services
    from remember.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "ingest.db")), embedder=embedder)
        started = time.perf_counter()
        services.memories.create_many(Caller("ingest"), texts)
        rate = len(texts) / (time.perf_counter() - started)
        services.close()
    return rate


def search_at_scale(embedder: Any, cached: Any, base: list[str], questions: list[str], n: int) -> dict[str, Any]:
    from bench import scale
    from remember.service import Services
    from remember.store import open_store

    texts, vectors = scale.blended(n, base, cached)
    rng = random.Random(3)
    chosen = [rng.choice(questions) for _ in range(SEARCHES)]
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "scale.db")), embedder=embedder)
        services.indexer.state()
        rate, _, _ = scale.ingest(services, texts, vectors)
        services.search.search(Caller(scale.USER), chosen[0], record_access=False)  # warm
        timings = []
        for q in chosen:
            started = time.perf_counter()
            services.search.search(Caller(scale.USER), q, record_access=False)
            timings.append((time.perf_counter() - started) * 1000)
        query_ms = []
        for q in chosen[:50]:
            started = time.perf_counter()
            embedder.embed_query(q + " ")  # not the one kept from the search
            query_ms.append((time.perf_counter() - started) * 1000)
        services.close()
    return {"import_per_s": rate, "search_ms": percentiles(timings), "query_embed_ms": percentiles(query_ms)}


def files_mb() -> dict[str, float]:
    from remember.search.embedders.e5_files import MODEL_FILE, package_folder
    from remember.search.embedders.model_files import default_model_path, default_tokenizer_path

    minilm = default_model_path().stat().st_size + default_tokenizer_path().stat().st_size
    e5_package = sum(p.stat().st_size for p in package_folder().rglob("*") if p.is_file())
    return {
        "MiniLM (onnx)": minilm / 1e6,
        "multilingual (e5)": (package_folder() / MODEL_FILE).stat().st_size / 1e6,
        "multilingual package": e5_package / 1e6,
    }


def run(quick: bool = False) -> dict[str, Any]:
    from bench import scale
    from bench.scale import rss_mb

    data = json.loads(DATA.read_text())
    turn_fields = [fields for s in data for _, fields in turns(s["conversation"], s["sample_id"])]
    ingest_texts = [{"content": f["content"]} for f in turn_fields[:INGEST]]
    base, questions = scale.base_texts()
    base = base[:BASE]
    n = 5_000 if quick else SIZE
    out: dict[str, Any] = {"size": n, "files_mb": files_mb()}
    models = _embedders()
    for name, embedder, _ in models:  # loaded one after the other: each one's resident memory apart
        before = rss_mb("RssAnon")
        embedder.load()
        embedder.embed(["warm up"])
        out[name] = {"model_mb": rss_mb("RssAnon") - before}
    for _ in range(ROUNDS_INGEST):
        for name, embedder, _ in models:
            rate = ingest_rate(embedder, ingest_texts)
            out[name]["ingest_per_s"] = max(out[name].get("ingest_per_s", 0.0), rate)
    for name, embedder, cached in models:
        out[name] |= search_at_scale(embedder, cached, base, questions, n)
    table = Table(f"Embedders side by side ({n:,} memories for the searches)", ["measure", *[m for m, _, _ in models]])
    table.add("ingest through the service (memories/s, LoCoMo turns)", *[out[m]["ingest_per_s"] for m, _, _ in models])
    table.add("import, vectors given (memories/s)", *[out[m]["import_per_s"] for m, _, _ in models])
    table.add("search, default, p50 (ms)", *[out[m]["search_ms"]["p50"] for m, _, _ in models])
    table.add("search, default, p95 (ms)", *[out[m]["search_ms"]["p95"] for m, _, _ in models])
    table.add("one query embedded, p50 (ms)", *[out[m]["query_embed_ms"]["p50"] for m, _, _ in models])
    table.add("model in memory (MB, resident, own pages)", *[out[m]["model_mb"] for m, _, _ in models])
    table.add("model files on disk (MB)", *[out["files_mb"][m] for m, _, _ in models])
    table.print()
    print(f"the multilingual package installed: {out['files_mb']['multilingual package']:.0f} MB")
    return out
