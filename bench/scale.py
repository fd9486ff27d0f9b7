"""One user's memories at scale (100k by default, ``--scale-size 1000000``), SQLite and PostgreSQL side by side.

Vectors are made once and given to both backends. Each memory joins two real
turns (LoCoMo's and LongMemEval's, ~23,000 distinct texts embedded once by
MiniLM and cached under ``.cache/``); its vector is the normalised sum of the
two turns' vectors with a little noise, which stands within cosine ~0.9 of the
model's own vector of the joined text. So the collection is as diverse as real
memories are (tens of millions of possible pairs), and keyword and vector sides
describe the same text, without embedding a million texts. (Copies of a few
thousand vectors, as this suite once used, make dense clusters of near-ties
where any approximate index looks bad and no user's memory looks like that.)
Ingest goes through the store's batch insert with the index entries given (no
embedding). Searches embed the query (MiniLM) as a server does. Recall@10 of
SQLite's approximate path is measured against exact cosine over the same
vectors, for LoCoMo and LongMemEval questions and for queries near stored
memories. A fresh server is a new process on the finished database: its
resident memory after its first search and after 1,000 searches, and the time
from spawn to its first search answered.
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

from bench.backends import settle
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles, timed
from remember.caller import Caller

SIZE = 100_000  # memories; --scale-size sets it
POSTGRES = True  # --scale-no-postgres clears it
SQLITE = True  # --scale-no-sqlite clears it
BASE = 25_000  # distinct real turns embedded (the corpus joins two at a time)
MAX_TURN = 400  # characters: longer LongMemEval turns (mostly assistant essays) are left out
NOISE = 0.01  # per-dimension noise added to a memory's summed vector
BATCH = 1_000
ROUNDS = 300
LABELS = ("hybrid", "keyword", "semantic", "hybrid_rare_tag", "hybrid_common_tag", "list_rare_tag",
          "hybrid_after_a_pause", "hybrid_after_a_pause_known_words",
          "hybrid_alpha_chosen", "hybrid_alpha_0.3")  # fmt: skip
PAUSED = 50  # searches with nothing cached from the one before, as after a pause of a few seconds
RECALL_QUERIES = 200  # of each kind: questions, and queries near stored memories
RARE_EVERY = 200  # one memory in this many carries the tag "rare" (a selective filter)
USER = "bench"


def base_texts() -> tuple[list[str], list[str]]:
    """Distinct real turns (LoCoMo's, then LongMemEval's shorter ones) and the questions of both sets."""
    from bench import locomo, longmemeval

    data = json.loads(locomo.DATA.read_text())
    texts = [fields["content"] for s in data for _, fields in locomo.turns(s["conversation"], s["sample_id"])]
    questions = [qa["question"] for s in data for qa in s["qa"]]
    seen = set(texts)
    for question in longmemeval.load():
        questions.append(question["question"])
        for _, _, fields in longmemeval.memories(question):
            content = fields["content"]
            if len(content) <= MAX_TURN and content not in seen and len(texts) < BASE:
                seen.add(content)
                texts.append(content)
    return texts, questions


def blended(n: int, base: list[str], embedder: Any) -> tuple[list[str], Any]:
    """``n`` memories, each two base turns joined, with the normalised sum of their vectors (plus noise)."""
    import numpy as np

    vectors = np.vstack([embedder.embed(base[i : i + 512]) for i in range(0, len(base), 512)]).astype(np.float32)
    rng = np.random.default_rng(1)
    first, second = rng.integers(0, len(base), n), rng.integers(0, len(base), n)
    texts = [f"{base[a]} {base[b]}" for a, b in zip(first.tolist(), second.tolist(), strict=True)]
    out = np.empty((n, vectors.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        part = slice(start, min(n, start + 100_000))
        rows = vectors[first[part]] + vectors[second[part]]
        out[part] = rows + NOISE * rng.standard_normal(rows.shape).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return texts, out


def records(texts: list[str], vectors: Any, model: str) -> Iterator[dict[str, Any]]:
    """The memories as a remember export's records (``remember import``'s input), their vectors given."""
    import base64

    from remember.service.import_export.jsonl_reading import FORMAT

    yield {"format": FORMAT, "format_version": 1, "embedding_model": model, "embedding_dimension": "384"}
    for i, content in enumerate(texts):
        vector = base64.b64encode(vectors[i].astype("<f4").tobytes()).decode()
        yield {"kind": "memory", "user_id": USER, "memory": memory(i, content).as_dict(), "vector": vector}


def memory(number: int, content: str) -> Any:
    """The ``number``-th memory of the corpus: its id, and a minute of its own since 2020."""
    from datetime import UTC, datetime, timedelta

    from remember.models import Memory

    at = datetime(2020, 1, 1, tzinfo=UTC) + timedelta(minutes=number)
    return Memory(
        id=f"m{number:07}", user_id=USER, content=content, type="note", weight=0.5, trust=0.5,
        tags=("rare",) if number % RARE_EVERY == 0 else ("common",),
        created_at=at, updated_at=at, occurred_at=at,
    )  # fmt: skip


def ingest(services: Any, texts: list[str], vectors: Any) -> tuple[float, float, float]:
    """Memories per second through ``remember import``'s path (vectors given, none embedded; on
    PostgreSQL the HNSW index built afresh at the end included), then the seconds of the approximate
    vector index's and the ranked keyword index's bulk builds that the command runs after it (SQLite)."""
    from remember.service.import_export.jsonl import import_records

    started = time.perf_counter()

    def progress(done: int, _total: int) -> None:
        if done % 100_000 == 0:
            print(f"  {done:,} memories in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)

    assert services.indexer.embedder_name is not None
    with services.store.index.bulk_vectors(len(texts)):  # PostgreSQL: its HNSW index built at the end, in the time
        given = records(texts, vectors, services.indexer.embedder_name)
        import_records(services.store, services.indexer, given, progress)
    rate = len(texts) / (time.perf_counter() - started)
    built = time.perf_counter()
    services.indexer.build_vector_index(USER)
    build_s = time.perf_counter() - built
    built = time.perf_counter()
    services.indexer.build_keyword_index(USER)
    keyword_s = time.perf_counter() - built
    settle(services.store)
    return rate, build_s, keyword_s


def searches(services: Any, questions: list[str]) -> dict[str, Any]:
    rng = random.Random(5)
    chosen = [rng.choice(questions) for _ in range(ROUNDS)]
    services.search.search(Caller(USER), chosen[0], record_access=False)  # warm
    timings: dict[str, list[float]] = {
        "hybrid": [], "keyword": [], "semantic": [], "hybrid_rare_tag": [], "hybrid_common_tag": []
    }  # fmt: skip
    # One kind of search after the other: the same question asked again at once would find its term
    # counts cached (for 5 s) by the kind of search before it, which a user's next question does not.
    for label, alpha, filters in (("hybrid", None, None), ("keyword", 0.0, None), ("semantic", 1.0, None),
                                  ("hybrid_rare_tag", None, {"tags": "rare"}),
                                  ("hybrid_common_tag", None, {"tags": "common"})):  # fmt: skip
        for q in chosen:
            t = time.perf_counter()
            services.search.search(Caller(USER), q, alpha=alpha, filters=filters, record_access=False)
            timings[label].append((time.perf_counter() - t) * 1000)
    # The default search (alpha chosen per search, long texts weighed, first places spread) against the constant
    # blend it replaced (alpha 0.3), one search of each in turn, each on questions of its own: a question asked
    # twice in a row would find its vector kept by the embedder.
    fusions: dict[str, list[float]] = {"hybrid_alpha_chosen": [], "hybrid_alpha_0.3": []}
    for n, q in enumerate(rng.choice(questions) for _ in range(2 * ROUNDS)):
        label, alpha = ("hybrid_alpha_chosen", None) if n % 2 == 0 else ("hybrid_alpha_0.3", 0.3)
        t = time.perf_counter()
        services.search.search(Caller(USER), q, alpha=alpha, record_access=False)
        fusions[label].append((time.perf_counter() - t) * 1000)
    timings |= fusions
    listing = timed(lambda _: services.memories.list(Caller(USER), filters={"tags": "rare"}, limit=20), range(30))
    # An assistant's searches come seconds apart: its question's terms counted afresh (words not searched
    # for before), or, for words searched for before, their counts checked against what was written since.
    paused: dict[str, list[float]] = {"hybrid_after_a_pause": [], "hybrid_after_a_pause_known_words": []}
    for q in chosen[:PAUSED]:
        for label, wait in (("hybrid_after_a_pause", services.store.index.term_stats.forget),
                            ("hybrid_after_a_pause_known_words", services.store.index.term_stats.pause)):  # fmt: skip
            wait()
            t = time.perf_counter()
            services.search.search(Caller(USER), q, record_access=False)
            paused[label].append((time.perf_counter() - t) * 1000)
    return {
        **{f"{k}_ms": percentiles(v) for k, v in (timings | paused).items()},
        "list_rare_tag_ms": listing,
    }


def recall(store: Any, vectors: Any, queries: Any) -> float:
    """Recall@10 of the store's vector search against exact cosine over ``vectors``."""
    import numpy as np

    hits = 0
    for q in queries:
        exact = {f"m{i:07}" for i in np.argpartition(-(vectors @ q), 10)[:10]}
        found = store.index.vector_candidates(USER, q.astype("<f4").tobytes(), filter=None, deleted="exclude", limit=10)
        hits += len(exact & {i for i, _ in found})
    return hits / (10 * len(queries))


def sqlite_side(path: Path, texts: list[str], vectors: Any, questions: list[str], embedder: Any) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(path)), embedder=embedder)
    services.indexer.state()
    rate, build_s, keyword_s = ingest(services, texts, vectors)
    store = services.store
    default_min = store.index.vector_index_min
    approximate_default = default_min is not None and len(texts) >= default_min
    default = searches(services, questions)
    if not approximate_default:  # the approximate path all the same, for its build time, recall and speed
        store.index.vector_index_min = 0
        t = time.perf_counter()
        store.index.build_vector_index(USER, vectors.shape[1])
        build_s = time.perf_counter() - t
    figures = recalls(store, vectors, questions, embedder)
    approximate = default if approximate_default else searches(services, questions)
    store.index.vector_index_min = default_min
    services.close()
    serving = serve_apart(path, questions)
    return {"backend": "SQLite", "ingest_per_s": rate, "index_build_s": build_s, "keyword_build_s": keyword_s,
            **figures,
            "approximate_default": approximate_default, "approximate": approximate, "default": default,
            "serving": serving}  # fmt: skip


def recalls(store: Any, vectors: Any, questions: list[str], embedder: Any) -> dict[str, float]:
    """Recall@10 of the store's vector search against exact search, for questions and for queries near memories."""
    import numpy as np

    rng = np.random.default_rng(8)
    asked = np.vstack([embedder.embed_query(q) for q in rng.choice(questions, RECALL_QUERIES)]).astype(np.float32)
    near = vectors[rng.integers(0, len(vectors), RECALL_QUERIES)]
    near = near + 0.02 * rng.standard_normal(near.shape)
    near = (near / np.linalg.norm(near, axis=1, keepdims=True)).astype(np.float32)
    return {"recall_questions": recall(store, vectors, asked), "recall_near": recall(store, vectors, near)}


def postgres_side(tmp: Path, texts: list[str], vectors: Any, questions: list[str], embedder: Any) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    with embedded_postgres_url(tmp / "pg") as url:
        services = Services.over(open_store(url, keywords_home=tmp / "pg-keywords"), embedder=embedder)
        services.indexer.state()  # record the embedder, so the HNSW index exists before the load
        rate, _, keyword_s = ingest(services, texts, vectors)
        figures = recalls(services.store, vectors, questions, embedder)
        timings = searches(services, questions)
        services.close()
    return {"backend": "PostgreSQL", "ingest_per_s": rate, "keyword_build_s": keyword_s, **figures, "default": timings}


def serve(path: str, queries: list[str], spawned: float) -> dict[str, Any]:
    """A fresh server on ``path``: time from spawn to its first search answered, then 1,000 searches."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(path), embedder=MiniLMEmbedder())
    services.search.search(Caller(USER), queries[0], record_access=False)
    first_s = time.time() - spawned
    fresh, fresh_anon = rss_mb(), rss_mb("RssAnon")
    search_ms = timed(lambda q: services.search.search(Caller(USER), q, record_access=False), queries[:1_000])
    after, after_anon = rss_mb(), rss_mb("RssAnon")
    services.close()
    return {"spawn_to_first_search_s": first_s, "rss_fresh_mb": fresh, "rss_after_mb": after,
            "anon_fresh_mb": fresh_anon, "anon_after_mb": after_anon, "search_ms": search_ms}  # fmt: skip


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


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (``RssAnon``: its own pages, without the mapped files' that the
    kernel may drop at any time, such as the approximate index's)."""
    status = Path(f"/proc/{os.getpid()}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith(f"{field}:")) / 1024


def run(quick: bool = False) -> dict[str, Any]:
    from bench.embedcache import cached_minilm
    from remember.search.embedders import MiniLMEmbedder

    n = 5_000 if quick else SIZE
    base, questions = base_texts()
    texts, vectors = blended(n, base, cached_minilm())
    embedder = MiniLMEmbedder()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if SQLITE:
            results.append(sqlite_side(Path(tmp) / "scale.db", texts, vectors, questions, embedder))
        if POSTGRES:
            results.append(postgres_side(Path(tmp), texts, vectors, questions, embedder))
    report(n, results)
    return {"memories": n, "backends": results}


def report(n: int, results: list[dict[str, Any]]) -> None:
    table = Table(f"Scale: {n:,} memories of one user", ["backend", "measure", "p50", "p95", "note"])
    for r in results:
        name = r["backend"]
        table.add(name, "import (remember export records, vectors given)", r["ingest_per_s"], None, "memories/s")
        runs = [("", r["default"])]
        path = "HNSW"
        if name == "SQLite":
            path = "approximate path"
            table.add(name, "approximate index build (bulk)", r["index_build_s"], None, "s, from the database")
        table.add(name, "ranked keyword index build (bulk)", r["keyword_build_s"], None, "s, from the database")
        if name == "SQLite" and not r["approximate_default"]:
            runs = [(" (exact, default here)", r["default"]), (" (approximate)", r["approximate"])]
        table.add(name, "recall@10 vs exact (questions)", r["recall_questions"], None, path)
        table.add(name, "recall@10 vs exact (near memories)", r["recall_near"], None, path)
        for suffix, timings in runs:
            for label in LABELS:
                p = timings[f"{label}_ms"]
                table.add(name, f"{label.replace('_', ' ')}{suffix}", p["p50"], p["p95"], "ms, query embedded")
        if "serving" in r:
            s = r["serving"]
            table.add(name, "fresh server: spawn to first search", s["spawn_to_first_search_s"], None, "s")
            for when, key in (("after the first search", "fresh"), ("after 1,000 searches", "after")):
                own = f"MB {when}, {s[f'anon_{key}_mb']:.0f} of them its own (the rest mapped files)"
                table.add(name, "fresh server: resident", s[f"rss_{key}_mb"], None, own)
            table.add(name, "fresh server: hybrid", s["search_ms"]["p50"], s["search_ms"]["p95"], "ms")
    table.print()
