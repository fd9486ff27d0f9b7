"""Search over shared spaces: one space of ``SIZE`` memories, and the same memories in five spaces searched at once.

A member's search reads each space it names as its own owner and merges the hits by score
(``service/space_reads.py``). The same corpus as the scale suite (pairs of real turns with their vectors
given, ``bench/scale.py``) is written under shared-space keys, all of it in one space, or a fifth in each
of five, each layout in a database of its own; the same questions are asked of both, on SQLite and on
PostgreSQL, side by side.

    python -m bench --only spaces [--quick]
"""

from __future__ import annotations

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
    """Search milliseconds (p50, p95) of the member reading the spaces ``keys``."""
    from remember.service import space_reads

    callers = services.spaces.reading(MEMBER, list(keys))
    space_reads.search(services.search, callers, questions[0], record_access=False)  # warm
    took = []
    for q in questions:
        started = time.perf_counter()
        space_reads.search(services.search, callers, q, limit=10, record_access=False)
        took.append((time.perf_counter() - started) * 1000)
    return percentiles(took)


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
        for layout, figures in results[backend].items():
            table.add(backend, layout, f"{figures['p50']:.1f}", f"{figures['p95']:.1f}")
    table.print()
    return results
