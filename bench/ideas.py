"""What each optional retrieval idea is worth, on LoCoMo and LongMemEval side by side.

Each idea is a `Recipe` (bench/search_ideas/): a re-ranking of the service's
search results that the product does not do. Its settings are fitted on part of
each benchmark and scored on the rest (leave-one-conversation-out on LoCoMo,
halves by question id hash on LongMemEval): the held-out figure is the one that
says whether it pays.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import locomo, longmemeval, search_ideas
from bench.report import Table
from bench.retrieval import Scored, held_out, summarise
from bench.search_ideas import Recipe
from remember.caller import Caller

IDEAS: dict[str, dict[str, dict[str, Any]]] = {
    "neighbours of the 5 best": {f"share {s}": {"neighbours_of": 5, "neighbour_share": s} for s in (0.5, 0.7, 0.85)},
    "time the query names": {
        f"boost {b}, pool {p}": {"time_boost": b, "time_pool": p} for b in (0.1, 0.2) for p in (0, 20)
    },
    "the best other hit of the conversation": {f"share {s}": {"conversation_share": s} for s in (0.1, 0.15, 0.2)},
}


def settings() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {"default": {}}
    for idea, options in IDEAS.items():
        out |= {f"{idea}: {name}": kwargs for name, kwargs in options.items()}
    return out


def on_locomo(quick: bool) -> dict[str, list[Scored]]:
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    data = json.loads(locomo.DATA.read_text())[: 2 if quick else None]
    asked = locomo.asked_at(data)
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=cached_minilm())
        ids, _ = locomo.ingest(services, data)
        for name, kwargs in settings().items():
            recipe = Recipe(**kwargs)

            def search(user: str, question: str, recipe: Recipe = recipe) -> list[str]:
                services.search.clock = lambda: asked[user]
                found = search_ideas.search(
                    services, Caller(user), question, recipe, limit=locomo.DEPTH, now=services.search.clock
                )
                return [r.memory_id for r in found]

            runs[name] = locomo.score(search, data, ids)
        services.close()
    return runs


def on_longmemeval(quick: bool, limit: int | None = None) -> dict[str, list[Scored]]:
    def with_recipe(kwargs: dict[str, Any]) -> Callable[[Any], longmemeval.Search]:
        recipe = Recipe(**kwargs)

        def build(services: Any) -> longmemeval.Search:
            def search(user: str, question: dict[str, Any]) -> list[str]:
                asked = longmemeval.when(question["question_date"])
                services.search.clock = lambda: asked
                found = search_ideas.search(
                    services, Caller(user), question["question"], recipe, limit=longmemeval.DEPTH, now=lambda: asked
                )
                return [r.memory_id for r in found]

            return search

        return build

    questions = longmemeval.load()[: 6 if quick else limit]
    return longmemeval.evaluate(questions, {name: with_recipe(kwargs) for name, kwargs in settings().items()})


def run(quick: bool = False, limit: int | None = None) -> dict[str, Any]:
    """``limit``: only the first so many LongMemEval questions (the types in turn)."""
    benchmarks = {"LoCoMo": on_locomo(quick), "LongMemEval": on_longmemeval(quick, limit)}
    locomo.table("LoCoMo, default recipe (service, ids)", {"default": benchmarks["LoCoMo"]["default"]}).print()
    longmemeval.table("LongMemEval, default recipe", {"default": benchmarks["LongMemEval"]["default"]}).print()
    table = Table("Retrieval ideas: recall@5 (all questions)", ["setting", *benchmarks])
    for name in settings():
        table.add(name, *(summarise(runs[name])["overall"]["recall@5"] for runs in benchmarks.values()))
    table.print()
    fitted = Table("Held out: each idea fitted on the other folds", ["idea", *benchmarks])
    out: dict[str, Any] = {"all": {}, "held_out": {}}
    for idea, options in IDEAS.items():
        names = ["default"] + [f"{idea}: {n}" for n in options]
        scores = [held_out({n: runs[n] for n in names})["held_out"] for runs in benchmarks.values()]
        fitted.add(idea, *scores)
        out["held_out"][idea] = dict(zip(benchmarks, scores, strict=True))
    defaults = [summarise(runs["default"])["overall"]["recall@5"] for runs in benchmarks.values()]
    fitted.add("default (nothing fitted)", *defaults)
    fitted.print()
    for bench_name, runs in benchmarks.items():
        out["all"][bench_name] = {name: summarise(rows) for name, rows in runs.items()}
    return out
