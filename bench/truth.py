"""Truth over time on LongMemEval_S dev: knowledge-update and temporal-reasoning retrieval with and without
the rule that ranks the newer of two current memories that disagree first (service/conflicts.py).

Each question is its own user, its haystack stored one turn a memory with its session's date
(bench/longmemeval.py), searched with the question at the question's date through the service's default
search. "without" is the same search with the rule off (``search.NEWER_FIRST`` = 0): what the search did
before it. Nothing in these haystacks has ended, so "current only" leaves every memory in: the difference is
the ranking rule alone. Also timed: what the rule adds to a search (its own step, timed inside the search:
a second search of the same question finds caches the first filled, so the two searches' latencies are
not compared).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench import longmemeval
from bench.report import percentiles
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


@contextmanager
def rule_timed(spent: list[float]) -> Iterator[None]:
    """Each run of the rule's step (``SearchService._newer_first``) timed into ``spent``."""
    from remember.service.search import SearchService

    step = SearchService._newer_first

    def timed_step(self: Any, caller: Any, ranked: Any) -> Any:
        start = time.perf_counter()
        out = step(self, caller, ranked)
        spent.append(time.perf_counter() - start)
        return out

    SearchService._newer_first = timed_step  # type: ignore[method-assign]
    try:
        yield
    finally:
        SearchService._newer_first = step  # type: ignore[method-assign]


def with_rule(make: Callable[[Any], longmemeval.Search], off: bool) -> Callable[[Any], Any]:
    def build(services: Any) -> longmemeval.Search:
        inner = make(services)

        def search(user: str, question: dict[str, Any]) -> list[str]:
            if not off:
                return inner(user, question)
            with rule_off():
                return inner(user, question)

        return search

    return build


def run(quick: bool = False) -> dict[str, Any]:
    questions = [q for q in longmemeval.load() if q["question_type"] in TYPES]
    if quick:
        questions = questions[:4]
    spent: list[float] = []
    searches = {
        "newer first": with_rule(longmemeval.default_search, off=False),
        "without": with_rule(longmemeval.default_search, off=True),
    }
    with rule_timed(spent):
        runs: dict[str, list[Scored]] = longmemeval.evaluate(questions, searches)
    longmemeval.table(f"LongMemEval_S dev, {' and '.join(TYPES)} ({len(questions)} questions)", runs).print()
    pair = {"newer first - without": (runs["without"], runs["newer first"])}
    comparison("Newer first against without, per question (95% interval)", pair, ("overall", *TYPES), METRICS).print()
    cost = percentiles([s * 1000 for s in spent])
    print(f"the rule's step in a search: p50 {cost['p50']:.2f} ms, p95 {cost['p95']:.2f} ms ({cost['n']} searches)")
    return {
        "scores": {name: summarise(rows) for name, rows in runs.items()},
        "paired": {m: paired(runs["without"], runs["newer first"], m) for m in METRICS},
        "rule_ms": cost,
    }
