"""Search over shared spaces: one space of ``SIZE`` memories, and the same memories in five spaces searched at once.

A member's search reads each space it names as its own owner and merges the hits by score
(``service/space_reads.py``), the question embedded once and the spaces' full-text candidates found
together (``service/shared_search.py``). The same corpus as the scale suite (pairs of real turns with
their vectors given, ``bench/scale.py``) is written under shared-space keys, all of it in one space, or a
fifth in each of five, each layout in a database of its own; the same questions are asked of both, on
SQLite and on PostgreSQL. Over five spaces each question is also asked of the spaces searched apart (each
on its own, merged: the same hits), in turn with the search proper, so that both see the same load.

    python -m bench --only spaces [--quick]
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import scale
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles
from remember.caller import Caller

SIZE = 100_000
QUICK_SIZE = 5_000
ROUNDS = 100
QUICK_ROUNDS = 20
MEMBER = Caller("bench")
ONE = ("~" + "1" * 16,)
FIVE = tuple("~" + str(n) * 16 for n in range(2, 7))


def fill(services: Any, texts: list[str], vectors: Any, keys: tuple[str, ...]) -> None:
    """The corpus split evenly over the spaces ``keys`` (each made with the member as admin), written as an
    import writes (the store opened without its indexes for large owners, which are built after)."""
    from remember.models import IndexEntry, Space
    from remember.search import text
    from remember.service.indexer import Indexer

    now = datetime.now(UTC)
    for key in keys:
        services.store.spaces.create(Space(key, f"space {key[1]}", MEMBER.user, now))
    with services.store.index.bulk_vectors(len(texts)):
        for start in range(0, len(texts), scale.BATCH):
            batch = []
            for i in range(start, min(len(texts), start + scale.BATCH)):
                m = scale.memory(i, texts[i])
                m = type(m)(**{**m.__dict__, "user_id": keys[i % len(keys)]})
                vector = vectors[i].astype("<f4").tobytes()
                batch.append((m, IndexEntry(Indexer.keyword_text(m, None), text.date_text(m.occurred_at), vector)))
            services.store.memories.insert_many(batch)


def timings(services: Any, questions: list[str], keys: tuple[str, ...]) -> dict[str, Any]:
    """Search milliseconds (p50, p95) of the member reading the spaces ``keys``; over several, also of the
    spaces searched apart (``apart``), each question asked both ways in turn, so both see the same load."""
    from remember.service import space_reads

    callers = services.spaces.reading(MEMBER, list(keys))
    space_reads.search(services.search, callers, questions[0], record_access=False)  # warm
    ways = {
        "together": lambda q: space_reads.search(services.search, callers, q, limit=10, record_access=False),
        "apart": lambda q: apart(services, callers, q, 10),
    }
    took: dict[str, list[float]] = {way: [] for way in ways}
    for n, q in enumerate(questions):
        # the first to ask a question counts its words (kept a few seconds): each way goes first in turn
        for way in list(ways)[:: 1 if n % 2 else -1] if len(callers) > 1 else ["together"]:
            started = time.perf_counter()
            ways[way](q)
            took[way].append((time.perf_counter() - started) * 1000)
    return {way: percentiles(ms) for way, ms in took.items() if ms}


def apart(services: Any, callers: list[Any], question: str, limit: int) -> list[Any]:
    """The spaces searched each on its own, up to four at once, and merged by score: the same hits as
    ``space_reads.search``, without the work the spaces share done once."""
    from concurrent.futures import ThreadPoolExecutor

    def one(caller: Any) -> list[Any]:
        return services.search.search(caller, question, limit=limit, record_access=False).hits

    with ThreadPoolExecutor(4) as pool:
        hits = [h for found in pool.map(one, callers) for h in found]
    return sorted(hits, key=lambda h: (-h.score, h.memory.id))[:limit]


def side(url: str, keys: tuple[str, ...], texts: list[str], vectors: Any, questions: list[str], folder: Path) -> Any:
    """The corpus over the spaces ``keys`` in the database at ``url`` (a fresh one), and the member's searches."""
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    def opened(**sizes: Any) -> Any:
        return Services.over(open_store(url, keywords_home=folder / "keywords", **sizes), embedder=cached_minilm())

    started = time.perf_counter()
    services = opened(vector_index_min=None, keyword_index_min=None)
    try:
        services.indexer.state()
        fill(services, texts, vectors, keys)
    finally:
        services.close()
    services = opened()  # the configured sizes: an owner past them gets its indexes, built in bulk
    try:
        for key in keys:
            services.indexer.build_vector_index(key)
            services.indexer.build_keyword_index(key)
        print(f"  {len(keys)} space(s): {len(texts):,} memories in {time.perf_counter() - started:.0f} s", flush=True)
        return timings(services, questions, keys)
    finally:
        services.close()


def run(quick: bool = False) -> dict[str, Any]:
    from bench.embedcache import cached_minilm

    size, rounds = (QUICK_SIZE, QUICK_ROUNDS) if quick else (SIZE, ROUNDS)
    print(f"  load average at the start (1, 5, 15 min): {[round(x, 2) for x in os.getloadavg()]}", flush=True)
    base, questions = scale.base_texts()
    texts, vectors = scale.blended(size, base, cached_minilm())
    asked = [random.Random(7).choice(questions) for _ in range(rounds)]
    results: dict[str, Any] = {"memories": size, "searches": rounds}
    table = Table(f"Search over shared spaces ({size:,} memories)", ["backend", "layout", "p50 ms", "p95 ms"])
    layouts = (("one space", ONE), ("five spaces", FIVE))
    with tempfile.TemporaryDirectory(prefix="remember-bench-spaces-") as tmp:
        folder = Path(tmp)  # each layout in a database of its own
        results["SQLite"] = {
            label: side(f"sqlite:///{folder / f'{n}.db'}", keys, texts, vectors, asked, folder / str(n))
            for n, (label, keys) in enumerate(layouts)
        }
        results["PostgreSQL"] = {}
        for n, (label, keys) in enumerate(layouts):
            with embedded_postgres_url(folder / f"pg{n}") as url:
                results["PostgreSQL"][label] = side(url, keys, texts, vectors, asked, folder / f"pg{n}-side")
    for backend in ("SQLite", "PostgreSQL"):
        for layout, ways in results[backend].items():
            for way, figures in ways.items():
                label = layout if way == "together" else f"{layout}, searched apart"
                table.add(backend, label, f"{figures['p50']:.1f}", f"{figures['p95']:.1f}")
    results["load"] = [round(x, 2) for x in os.getloadavg()]
    print(f"  load average at the end (1, 5, 15 min): {results['load']}", flush=True)
    table.print()
    return results
