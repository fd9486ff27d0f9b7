"""Truth over time on LongMemEval_S dev: knowledge-update and temporal-reasoning retrieval with and without
the rule that ranks the newer of two current memories that disagree first (service/conflicts.py).

Each question is its own user, its haystack stored one turn a memory with its session's date
(bench/longmemeval.py), searched with the question at the question's date through the service's default
search. "without" is the same search with the rule off (``search.NEWER_FIRST`` = 0): what the search did
before it. Nothing in these haystacks has ended, so "current only" leaves every memory in: the difference is
the ranking rule alone. Also timed: the search's latency with and without it (the question embedded before
either is timed, so that neither pays for it and the other not).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench import longmemeval
from bench.retrieval import Scored, comparison, paired, summarise

TYPES = ("knowledge-update", "temporal-reasoning")
METRICS = ("recall@5", "recall@10", "session_recall@5", "mrr")


@contextmanager
def rule_off() -> Iterator[None]:
    from remember.service import search

    kept = search.NEWER_FIRST
    search.NEWER_FIRST = 0
    try:
        yield
    finally:
        search.NEWER_FIRST = kept


def timed(make: Callable[[Any], longmemeval.Search], spent: list[float], off: bool) -> Callable[[Any], Any]:
    def build(services: Any) -> longmemeval.Search:
        inner = make(services)

        def search(user: str, question: dict[str, Any]) -> list[str]:
            services.indexer.query_vector(question["question"])  # embedded before either is timed: both fairly
            start = time.perf_counter()
            if off:
                with rule_off():
                    found = inner(user, question)
            else:
                found = inner(user, question)
            spent.append(time.perf_counter() - start)
            return found

        return search

    return build


def run(quick: bool = False) -> dict[str, Any]:
    questions = [q for q in longmemeval.load() if q["question_type"] in TYPES]
    if quick:
        questions = questions[:4]
    times: dict[str, list[float]] = {"newer first": [], "without": []}
    searches = {
        "newer first": timed(longmemeval.default_search, times["newer first"], off=False),
        "without": timed(longmemeval.default_search, times["without"], off=True),
    }
    runs: dict[str, list[Scored]] = longmemeval.evaluate(questions, searches)
    longmemeval.table(f"LongMemEval_S dev, {' and '.join(TYPES)} ({len(questions)} questions)", runs).print()
    pair = {"newer first - without": (runs["without"], runs["newer first"])}
    comparison("Newer first against without, per question (95% interval)", pair, ("overall", *TYPES), METRICS).print()
    latency = {name: sorted(t) for name, t in times.items()}
    for name, t in latency.items():
        print(f"{name}: search p50 {t[len(t) // 2] * 1000:.1f} ms, p95 {t[int(len(t) * 0.95)] * 1000:.1f} ms")
    return {
        "scores": {name: summarise(rows) for name, rows in runs.items()},
        "paired": {m: paired(runs["without"], runs["newer first"], m) for m in METRICS},
        "latency_ms": {
            n: {"p50": t[len(t) // 2] * 1000, "p95": t[int(len(t) * 0.95)] * 1000} for n, t in latency.items()
        },
    }
