"""Relationship search at scale: N memories and N relationships, on SQLite and PostgreSQL.

`python -m bench --only relationships` runs 5,000 of each; `--relationships-size 100000`
the full figure. Memories are LoCoMo turns (keyword-indexed only: they are not what is
searched); observations are drawn from a pool of sentences embedded with the real model,
so keyword and vector scores behave as on real data. Timed: hybrid, keyword-only and
semantic-only searches, a filtered search, a listing by member, a walk of depth 2 and
the links of a page of memories (what include_relationships costs).
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from bench.backends import corpus, settle
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles
from remember.caller import Caller

SIZE = 5_000
BATCH = 1_000
TYPES = ["works_with", "mentors", "inspired_by", "family_of", "attended", "recommended", "about", "located_in",
         "friend_of", "caused", "part_of", "follows"]  # fmt: skip
PEOPLE = ["Sarah", "Tom", "Priya", "Caroline", "Melanie", "Jon", "Gina", "Ana", "Luis", "Mei", "Omar", "Ines"]
VERBS = ["mentors", "works with", "was inspired by", "recommended a book to", "travelled with", "argued with",
         "cooked for", "trained", "introduced", "met"]  # fmt: skip
TOPICS = ["at the Lisbon offsite", "on the platform team", "about pottery", "during the marathon", "over dinner",
          "about adoption", "at the LGBTQ support group", "on a camping trip", "about the new job",
          "at the art show", "about painting", "in the book club"]  # fmt: skip
QUERIES = ["who mentors whom", "people who travel together", "book recommendations", "cooking dinner for friends",
           "support group meetings", "camping with the family", "career advice at work", "art and painting",
           "marathon training partners", "arguments between colleagues"]  # fmt: skip


def observations(n: int) -> list[str]:
    rng = random.Random(11)
    return [f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {rng.choice(PEOPLE)} {rng.choice(TOPICS)}" for _ in range(n)]


def load(services: Any, n: int, pool: list[str], vectors: list[bytes | None]) -> dict[str, float]:
    from remember.models import IndexEntry, Memory, Relationship
    from remember.search import text

    texts, _ = corpus(n)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    store = services.store
    began = time.perf_counter()
    for i in range(0, n, BATCH):
        batch = []
        for j in range(i, min(n, i + BATCH)):
            at = start + timedelta(minutes=j)
            m = Memory(f"m{j:07}", "bench", texts[j], "note", 0.5, 0.5, at, at, at)
            batch.append((m, IndexEntry(texts[j], text.date_text(at), None)))
        store.memories.insert_many(batch)
    memories_s = time.perf_counter() - began
    rng = random.Random(12)
    began = time.perf_counter()
    for i in range(0, n, BATCH):
        rows = []
        for j in range(i, min(n, i + BATCH)):
            at = start + timedelta(minutes=j)
            members = tuple(f"m{k:07}" for k in rng.sample(range(n), 3 if j % 10 == 0 else 2))
            k = rng.randrange(len(pool))
            rel = Relationship(f"r{j:07}", "bench", members, rng.choice(TYPES), pool[k], round(rng.random(), 2),
                               0.8, at, at, ("bench",) if j % 4 == 0 else ())  # fmt: skip
            rows.append((rel, (), text.observation_terms(rel.observation, rel.relationship_type), vectors[k]))
        store.relationships.restore("bench", rows)
    relationships_s = time.perf_counter() - began
    settle(store)
    return {"memories_per_s": n / memories_s, "relationships_per_s": n / relationships_s}


BENCH = Caller("bench")


def measure(name: str, services: Any, rounds: int, n: int) -> dict[str, Any]:
    from remember.service.related import Criteria

    related = services.related
    rng = random.Random(13)
    queries = [rng.choice(QUERIES) for _ in range(rounds)]
    related.search(BENCH, queries[0])  # warm: the matrix of vectors, caches
    timings: dict[str, list[float]] = {k: [] for k in ("hybrid", "keyword", "semantic", "filtered", "by_member",
                                                       "walk_depth_2", "links_of_20")}  # fmt: skip
    strong = Criteria(types=["mentors", "works_with"], min_strength=0.5)
    for q in queries:
        member = f"m{rng.randrange(n):07}"
        page = [f"m{rng.randrange(n):07}" for _ in range(20)]
        calls: dict[str, Callable[[], object]] = {
            "hybrid": partial(related.search, BENCH, q),
            "keyword": partial(related.search, BENCH, q, alpha=0.0),
            "semantic": partial(related.search, BENCH, q, alpha=1.0),
            "filtered": partial(related.search, BENCH, q, criteria=strong),
            "by_member": partial(related.search, BENCH, criteria=Criteria(memory_id=member)),
            "walk_depth_2": partial(related.related, BENCH, member, depth=2),
            "links_of_20": partial(services.relationships.links, BENCH, page),
        }
        for label, call in calls.items():
            started = time.perf_counter()
            call()
            timings[label].append((time.perf_counter() - started) * 1000)
    return {"backend": name, **{f"{k}_ms": percentiles(v) for k, v in timings.items()}}


def run(quick: bool = False) -> dict[str, Any]:
    import numpy as np

    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    n, rounds = (min(SIZE, 2_000), 10) if quick else (SIZE, 50)
    embedder = MiniLMEmbedder()
    pool = sorted(set(observations(3_000)))
    vectors: list[bytes | None] = [v.astype("<f4").tobytes() for v in np.asarray(embedder.embed(pool))]
    results, loads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = Services.over(open_store(str(Path(tmp) / "bench.db")), embedder=embedder)
        loads.append(("SQLite", load(sqlite, n, pool, vectors)))
        results.append(measure("SQLite", sqlite, rounds, n))
        sqlite.close()
        with embedded_postgres_url(Path(tmp) / "pg") as url:
            pg = Services.over(open_store(url), embedder=embedder)
            pg.indexer.state()
            loads.append(("PostgreSQL", load(pg, n, pool, vectors)))
            results.append(measure("PostgreSQL", pg, rounds, n))
            pg.close()
    table = Table(f"Relationships ({n:,} memories, {n:,} relationships)", ["backend", "measure", "p50", "p95", "note"])
    for name, rates in loads:
        table.add(name, "load relationships", rates["relationships_per_s"], None, "per s, terms and vectors given")
    notes = {
        "hybrid": "ms, query embedding included", "semantic": "ms, query embedding included",
        "filtered": "ms, 2 types, strength >= 0.5, hybrid", "by_member": "ms, a member's, with total",
        "walk_depth_2": "ms, remember_get_related", "links_of_20": "ms, include_relationships of a page",
    }  # fmt: skip
    for r in results:
        for label in ("hybrid", "keyword", "semantic", "filtered", "by_member", "walk_depth_2", "links_of_20"):
            p = r[f"{label}_ms"]
            table.add(r["backend"], label, p["p50"], p["p95"], notes.get(label, "ms"))
    table.print()
    return {"memories": n, "relationships": n, "loads": dict(loads), "backends": results}
