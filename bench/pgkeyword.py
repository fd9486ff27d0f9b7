"""PostgreSQL keyword ranking within a budget of rows against the exact ranking of every matching row.

One user's memories (two LoCoMo turns joined, as the backends suite), stored
without vectors; each LoCoMo question is reduced to the terms the service keeps
(its postings budget), then ranked by the store both ways. Reported: the
store's keyword query p50 / p95 each way, overlap@10 of the budgeted top ten
with the exact top ten, and how many questions took the budgeted path.
`python -m bench --only pgkeyword` (SIZE memories; --quick: 5,000).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.backends import BATCH, corpus, settle
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles

SIZE = 100_000
ALSO = (2_000,)  # budgets measured besides the default, for the trade
POOL = 50  # the service's keyword candidates (service/search.py POOL)


def load(store: Any, texts: list[str]) -> None:
    from datetime import UTC, datetime, timedelta

    from remember.models import IndexEntry, Memory
    from remember.search import text

    start = datetime(2024, 1, 1, tzinfo=UTC)
    batch = []
    for i, content in enumerate(texts):
        at = start + timedelta(minutes=i)
        memory = Memory(
            id=f"m{i:07}", user_id="bench", content=content, type="note", weight=0.5, trust=0.5,
            created_at=at, updated_at=at, occurred_at=at,
        )  # fmt: skip
        batch.append((memory, IndexEntry(content, text.date_text(at), None)))
    for i in range(0, len(batch), BATCH):
        store.memories.insert_many(batch[i : i + BATCH])
    settle(store)


def measure(services: Any, questions: list[str], budget: int | None) -> tuple[list[float], list[list[str]], int]:
    """Milliseconds of the store's keyword query, its top ten, and how many queries were budgeted."""
    from remember.search import plan, text
    from remember.store.postgres import keyword_budget

    store = services.store
    store.index.keyword_rank_budget = budget
    times, tops, budgeted = [], [], 0
    for q in questions:
        every = text.query_terms(q)
        total, counts = store.index.term_document_counts("bench", every, cap=plan.POSTINGS_BUDGET + 1)
        terms = plan.select_terms(every, total, counts).find
        if not terms:
            continue
        if budget is not None:
            total, counts = store.index.term_document_counts("bench", terms, cap=keyword_budget.COUNT_CAP)
            budgeted += keyword_budget.plan(terms, counts, total, budget, POOL) is not None
        t = time.perf_counter()
        found = store.index.keyword_candidates("bench", terms, filter=None, deleted="exclude", limit=POOL)
        times.append((time.perf_counter() - t) * 1000)
        tops.append([i for i, _ in found[:10]])
    return times, tops, budgeted


def overlap_of(exact: list[str], found: list[str]) -> float:
    return len(set(exact) & set(found)) / max(1, len(exact))


def locomo_recall(url: str, quick: bool) -> dict[str, float]:
    """LoCoMo recall@5 (service, ids, default alpha) on PostgreSQL, exact ranking and budgeted."""
    import json

    from bench.embedcache import cached_minilm
    from bench.locomo import DATA, asked_at, ingest, score, service_search, summarise
    from remember.service import Services
    from remember.store import open_store
    from remember.store.postgres import keyword_budget

    data = json.loads(DATA.read_text())[: 1 if quick else None]
    services = Services.over(open_store(url), embedder=cached_minilm())
    ids, _ = ingest(services, data)
    out = {}
    for label, budget in (("exact", None), ("budgeted", keyword_budget.RANK_BUDGET)):
        services.store.index.keyword_rank_budget = budget
        for alpha in (None, 0.0):
            rows = score(service_search(services, asked_at(data), alpha=alpha), data, ids)
            out[f"{label}, alpha {alpha}"] = summarise(rows)["overall"]["recall@5"]
    services.close()
    return out


def run(quick: bool = False) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store
    from remember.store.postgres import keyword_budget

    n, rounds = (5_000, 100) if quick else (SIZE, 300)
    texts, questions = corpus(n)
    chosen = random.Random(5).sample(questions, min(rounds, len(questions)))
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres_url(Path(tmp) / "pg") as url:
        services = Services.over(open_store(url), embedder=None)
        started = time.perf_counter()
        load(services.store, texts)
        ingest = n / (time.perf_counter() - started)
        measure(services, chosen[:20], None)  # warm the caches and the term counts
        exact_ms, exact, _ = measure(services, chosen, None)
        other = {b: measure(services, chosen, b) for b in ALSO}
        budget_ms, budgeted, used = measure(services, chosen, keyword_budget.RANK_BUDGET)
        services.close()
        recall = locomo_recall(url, quick)
    overlaps = [overlap_of(a, b) for a, b in zip(exact, budgeted, strict=True)]
    overlap = sum(overlaps) / max(1, len(overlaps))
    exact_p, budget_p = percentiles(exact_ms), percentiles(budget_ms)
    table = Table(f"PostgreSQL keyword ranking ({n:,} memories, {len(exact_ms)} questions)", ["measure", "value"])
    table.add("ingest without vectors (memories/s)", ingest)
    table.add("exact ranking p50 / p95 (ms)", f"{exact_p['p50']:.1f} / {exact_p['p95']:.1f}")
    table.add(
        f"budget {keyword_budget.RANK_BUDGET:,} rows p50 / p95 (ms)", f"{budget_p['p50']:.1f} / {budget_p['p95']:.1f}"
    )
    table.add("questions over the budget", f"{used} of {len(budget_ms)}")
    table.add("overlap@10 with the exact ranking", overlap)
    table.add("questions whose top ten is the exact one", sum(o == 1.0 for o in overlaps))
    for b, (ms, tops, _) in other.items():
        p = percentiles(ms)
        table.add(f"budget {b:,} rows p50 / p95 (ms)", f"{p['p50']:.1f} / {p['p95']:.1f}")
        table.add(f"budget {b:,} rows overlap@10", sum(map(overlap_of, exact, tops)) / max(1, len(tops)))
    for label, value in recall.items():
        table.add(f"LoCoMo recall@5 on PostgreSQL, {label}", value)
    table.print()
    return {"size": n, "exact_ms": exact_p, "budget_ms": budget_p, "budgeted": used, "overlap_at_10": overlap,
            "locomo_recall_at_5": recall}  # fmt: skip
