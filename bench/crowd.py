"""LoCoMo's questions asked of a memory crowded with others: what the paths for scale cost in quality.

The dev conversations go into one user's memory (each session a conversation id, as
``bench/locomo.py`` stores them), between ``--crowd-size`` other memories (100,000 by
default; half stored before the conversations, half after, so the conversations are
neither the newest memories nor the oldest) that hold none of their turns: pairs of
LongMemEval turns with their vectors given, as the scale suite makes its corpus
(``bench/scale.py``). Each question is asked of the whole memory, and a hit counts
only in its own conversation. The same conversations alone in the memory give the
baseline. What a crowd changes is what the collection's size switches on: the
postings budget and the newest-rows reach of the keyword side, the approximate
vector index, and common terms that stop being rare.

    python -m bench --only crowd [--crowd-size N]
"""

from __future__ import annotations

import json
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench import locomo, scale
from bench.report import Table, percentiles
from bench.retrieval import DEPTH, Scored, figures, summarise
from remember.caller import Caller

SIZE = 100_000  # other memories in the crowd; --crowd-size sets it
QUICK_SIZE = 5_000
USER = scale.USER

Owners = dict[str, tuple[str, str]]  # memory id -> (conversation's sample id, dia id)


def others(n: int) -> tuple[list[str], Any]:
    """``n`` memories none of whose text is a LoCoMo turn, with their vectors (scale.blended)."""
    from bench.embedcache import cached_minilm

    data = json.loads(locomo.DATA.read_text())
    theirs = {fields["content"] for s in data for _, fields in locomo.turns(s["conversation"], s["sample_id"])}
    base, _ = scale.base_texts()
    return scale.blended(n, [t for t in base if t not in theirs], cached_minilm())


def conversations(services: Any, data: list[dict[str, Any]]) -> Owners:
    """Every conversation's turns in the one user's memory: memory id -> (sample id, dia id)."""
    owners: Owners = {}
    for sample in data:
        pairs = locomo.turns(sample["conversation"], sample["sample_id"])
        for start in range(0, len(pairs), 1_000):
            chunk = pairs[start : start + 1_000]
            made = services.memories.create_many(Caller(USER), [fields for _, fields in chunk])
            owners |= {m.id: (sample["sample_id"], dia) for (dia, _), m in zip(chunk, made, strict=True)}
    return owners


def fill(services: Any, data: list[dict[str, Any]], size: int) -> Owners:
    """Half the ``size`` others, the conversations, then the other half (its index built at the end)."""
    texts, vectors = others(size) if size else ([], None)
    half = size // 2
    if half:
        scale.ingest(services, texts[:half], vectors[:half])
    owners = conversations(services, data)
    if size - half:
        after(services, texts[half:], vectors[half:], half)
        services.indexer.build_vector_index(USER)
        services.indexer.build_keyword_index(USER)
    return owners


def after(services: Any, texts: list[str], vectors: Any, first: int) -> None:
    """Others written after the conversations, with their vectors, through the store's batch insert
    (what an import writes; an import refuses a user who has memories already)."""
    from remember.models import IndexEntry
    from remember.search import text
    from remember.service.indexer import Indexer

    for start in range(0, len(texts), scale.BATCH):
        batch = []
        for i in range(start, min(len(texts), start + scale.BATCH)):
            m = scale.memory(first + i, texts[i])
            vector = vectors[i].astype("<f4").tobytes()
            batch.append((m, IndexEntry(Indexer.keyword_text(m, None), text.date_text(m.occurred_at), vector)))
        services.store.memories.insert_many(batch)


def asked(services: Any, data: list[dict[str, Any]], owners: Owners) -> tuple[list[Scored], list[float]]:
    """Every question asked of the whole memory (at its conversation's last session); its figures
    count hits of its own conversation only; and each search's milliseconds."""
    at: dict[str, datetime] = locomo.asked_at(data)
    rows, times = [], []
    for sample_id, qa, evidence in locomo.questions(data):
        services.search.clock = lambda s=sample_id: at[s]
        started = time.perf_counter()
        found = services.search.search(Caller(USER), qa["question"], limit=DEPTH, record_access=False)
        times.append((time.perf_counter() - started) * 1000)
        ranked = [
            dia if owner == sample_id else "" for owner, dia in (owners.get(h.memory.id, ("", "")) for h in found.hits)
        ]
        rows.append(Scored(qa["question"], locomo.CATEGORIES[qa["category"]], sample_id, figures(ranked, evidence)))
    return rows, times


def crowded(data: list[dict[str, Any]], size: int, folder: Path) -> tuple[list[Scored], list[float]]:
    """The questions' figures with ``size`` other memories beside the conversations."""
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(folder / f"crowd-{size}.db")), embedder=cached_minilm())
    try:
        return asked(services, data, fill(services, data, size))
    finally:
        services.close()


def run(quick: bool = False) -> dict[str, Any]:
    data = json.loads(locomo.DATA.read_text())
    size = QUICK_SIZE if quick else SIZE
    if quick:
        data = data[:1]
    out: dict[str, Any] = {}
    table = Table(
        f"LoCoMo in a crowd ({len(data)} conversations in one memory)",
        ["others", "slice", "n", "recall@5", "recall@10", "recall@20", "MRR", "search p50 / p95 ms"],
    )
    with tempfile.TemporaryDirectory(prefix="remember-bench-crowd-") as tmp:
        for n in (0, size):
            rows, times = crowded(data, n, Path(tmp))
            means, timing = summarise(rows), percentiles(times)
            out[str(n)] = {"scores": means, "search_ms": timing}
            for part in locomo.SLICES:
                s = means[part]
                took = f"{timing['p50']:.1f} / {timing['p95']:.1f}" if part == "overall" else ""
                table.add(f"{n:,}", part, s["n"], s["recall@5"], s["recall@10"], s["recall@20"], s["mrr"], took)
    table.print()
    return out
