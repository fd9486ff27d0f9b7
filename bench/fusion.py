"""What each part of the default fusion is worth, on LoCoMo and LongMemEval, with and without ids.

The default search (no ``alpha`` given) scales a long text's keyword score down, chooses ``alpha``
from the two sides' shapes and spreads its first places over conversations (search/fusion.py,
search/spread.py). Each search's pool is kept as the service fused it (both sides' scores, the
keyword candidates' lengths, each candidate's conversation and time), and re-ranked here with the
product's functions, one part at a time, against today's constant blend (``alpha`` 0.3):
question by question, with a 95% interval. The re-ranking of the full default is checked against
what the service returned.

The constants (the length from which a text counts as long and how steeply, the spread's free
places and step) are chosen on one half of the dev data (LoCoMo conv-26, conv-41 and conv-43;
LongMemEval's questions of hash fold h0) by the mean of the two benchmarks' recall@5, and reported
on the other half; the other way round as well. Ideas that did not pay are measured beside them.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from bench import locomo, longmemeval
from bench.report import Table
from bench.retrieval import Scored, figures, hash_fold, interval, paired, session_figures, summarise
from remember.caller import Caller
from remember.models import conversation_of
from remember.search import fusion
from remember.search import spread as spreading
from remember.search.fusion import Fused, above_floor, fuse, shape_alpha

CHOOSING_HALF = {"conv-26", "conv-41", "conv-43", "h0"}  # LoCoMo conversations and LongMemEval's fold
TODAY = 0.3
FLOOR = 0.2  # search.min_score's default
LONG_TEXTS = (300, 400, 600, 800, 1200)
POWERS = (0.5, 1.0)
SPREADS = tuple(itertools.product((2, 3, 4), (0.02, 0.05, 0.1)))  # (free places, step)


@dataclass
class Pool:
    """One search's candidates as the service fused them, and what scores the question."""

    question: str
    category: str
    fold: str
    keyword: dict[str, float]
    cosine: dict[str, float]
    lengths: dict[str, int]
    conversation: dict[str, str | None]
    occurred: dict[str, datetime]
    vectors: dict[str, np.ndarray]
    served: list[str]  # the service's own ranking (memory ids)
    score: Callable[[list[str]], dict[str, float]]  # ranked memory ids -> figures


# collecting the pools


class Spy:
    """The inputs of each search's fusion, as ``service/search.py`` passes them."""

    def __init__(self) -> None:
        from remember.service import search

        self.last: tuple[dict[str, float], dict[str, float], dict[str, int]] = ({}, {}, {})
        self._real = search._matching
        self._patch = mock.patch.object(search, "_matching", self._spy)

    def _spy(self, keyword: Any, cosine: Any, alpha: Any, lengths: Any, *rest: Any) -> Any:
        self.last = (dict(keyword), dict(cosine), dict(lengths))
        return self._real(keyword, cosine, alpha, lengths, *rest)

    def __enter__(self) -> Spy:
        self._patch.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._patch.stop()


def _pool(services: Any, spy: Spy, user: str, question: str, **known: Any) -> Pool:
    served = [h.memory.id for h in services.search.search(Caller(user), question, limit=20, record_access=False).hits]
    keyword, cosine, lengths = spy.last
    ids = list(dict.fromkeys([*keyword, *cosine]))
    memories = {m.id: m for m in services.store.memories.get_many(user, ids)}
    vectors = {i: np.frombuffer(v, dtype="<f4") for i, v in services.store.index.get_vectors(user, ids).items()}
    return Pool(question, keyword=keyword, cosine=cosine, lengths=lengths, served=served, vectors=vectors,
                conversation={i: conversation_of(m) for i, m in memories.items()},
                occurred={i: m.occurred_at for i, m in memories.items()}, **known)  # fmt: skip


def locomo_pools(with_ids: bool, quick: bool) -> list[Pool]:
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    data = json.loads(locomo.DATA.read_text())[: 1 if quick else None]
    asked = locomo.asked_at(data)
    out = []
    with tempfile.TemporaryDirectory() as tmp, Spy() as spy:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=cached_minilm())
        ids, _ = locomo.ingest(services, data, with_ids=with_ids)
        for user, qa, evidence in locomo.questions(data):
            services.search.clock = lambda user=user: asked[user]

            def score(ranked: list[str], user: str = user, evidence: set[str] = evidence) -> dict[str, float]:
                return figures([ids[user].get(i, "") for i in ranked], evidence)

            category = locomo.CATEGORIES[qa["category"]]
            out.append(_pool(services, spy, user, qa["question"], category=category, fold=user, score=score))
        services.close()
    return out


def longmemeval_pools(with_ids: bool, quick: bool) -> list[Pool]:
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    out = []
    with tempfile.TemporaryDirectory() as tmp, Spy() as spy:
        services = Services.over(open_store(str(Path(tmp) / "lme.db")), embedder=cached_minilm())
        for q in longmemeval.load()[: 6 if quick else None]:
            ids = longmemeval.ingest(services, q, with_ids=with_ids)
            asked = longmemeval.when(q["question_date"])
            services.search.clock = lambda asked=asked: asked
            evidence = {key for key, _ in ids.values() if not key.endswith("-")}
            sessions = set(q["answer_session_ids"])

            def score(ranked: list[str], ids: Any = ids, evidence: set[str] = evidence,
                      sessions: set[str] = sessions) -> dict[str, float]:  # fmt: skip
                keys = [ids[i][0] if i in ids else "" for i in ranked]
                return figures(keys, evidence) | session_figures(ranked, {i: s for i, (_, s) in ids.items()}, sessions)

            user = q["question_id"]
            out.append(_pool(services, spy, user, q["question"], category=q["question_type"], fold=hash_fold(user),
                             score=score))  # fmt: skip
        services.close()
    return out


# re-ranking a pool


@dataclass(frozen=True)
class Recipe:
    """One way to rank a pool: an ``alpha`` (None: from the shapes), the length rule, the spread."""

    alpha: float | None = None
    long_text: int | None = fusion.LONG_TEXT  # None: no length rule
    power: float = fusion.LONG_TEXT_POWER
    spread: tuple[int, float] | None = (spreading.FREE_PLACES, spreading.YIELD)  # (free places, step); None: off
    spread_places: int = spreading.FIRST_PLACES
    zscores: bool = False  # each side as z-scores over its candidates instead of min-max / max
    mmr: float = 0.0  # > 0: each place chosen by score - mmr * the best cosine with a hit already placed


TODAYS = Recipe(alpha=TODAY, long_text=None, spread=None)


def ranked(pool: Pool, recipe: Recipe) -> list[str]:
    """The pool's memory ids, best first, as ``recipe`` ranks them."""
    scale = recipe.long_text
    keyword = pool.keyword if scale is None else {
        i: s * min(1.0, scale / max(1, pool.lengths.get(i, 0))) ** recipe.power for i, s in pool.keyword.items()
    }  # fmt: skip
    fused = _zscored(keyword, pool.cosine, recipe.alpha) if recipe.zscores else _blended(keyword, pool.cosine, recipe)
    kept = sorted(above_floor(fused, FLOOR), key=lambda f: (-round(f.fused, 6), f.memory_id))
    if recipe.mmr:
        return _mmr(pool, kept, recipe.mmr)
    if recipe.spread is None:
        return [f.memory_id for f in kept]
    free, step = recipe.spread
    placed = [
        spreading.Placed(round(f.fused, 6), pool.conversation[f.memory_id], pool.occurred[f.memory_id]) for f in kept
    ]
    with mock.patch.multiple(spreading, FREE_PLACES=free, YIELD=step, FIRST_PLACES=recipe.spread_places):
        order, _ = spreading.spread(placed)
    return [kept[i].memory_id for i in order]


def _blended(keyword: dict[str, float], cosine: dict[str, float], recipe: Recipe) -> list[Fused]:
    if recipe.alpha is not None:
        return fuse(keyword, cosine, recipe.alpha)
    parts = fuse(keyword, cosine, 0.0)
    return fuse(keyword, cosine, shape_alpha([f.keyword for f in parts], [f.semantic for f in parts]))


def _zscored(keyword: dict[str, float], cosine: dict[str, float], alpha: float | None) -> list[Fused]:
    ids = list(dict.fromkeys([*keyword, *cosine]))
    k, c = np.array(list(keyword.values()) or [0.0]), np.array([cosine[i] for i in ids])
    kz = {i: (keyword[i] - k.mean()) / (k.std() or 1.0) for i in keyword}
    low = min(kz.values(), default=0.0)
    weight = 0.5 if alpha is None else alpha
    return [Fused(i, weight * (cosine[i] - c.mean()) / (c.std() or 1.0) + (1 - weight) * kz.get(i, low), 0.0, 0.0,
                  cosine[i], i in keyword) for i in ids]  # fmt: skip


def _mmr(pool: Pool, kept: list[Fused], weight: float) -> list[str]:
    waiting, out = list(kept), []
    nearest: dict[str, float] = {f.memory_id: 0.0 for f in kept}
    while waiting and len(out) < 20:
        best = max(waiting, key=lambda f: (round(f.fused - weight * max(0.0, nearest[f.memory_id]), 6), f.memory_id))
        waiting.remove(best)
        out.append(best.memory_id)
        chosen = pool.vectors.get(best.memory_id)
        for f in waiting:
            other = pool.vectors.get(f.memory_id)
            if chosen is not None and other is not None:
                nearest[f.memory_id] = max(nearest[f.memory_id], float(chosen @ other))
    return out + [f.memory_id for f in waiting]


def scored(pools: Sequence[Pool], recipe: Recipe) -> list[Scored]:
    return [Scored(p.question, p.category, p.fold, p.score(ranked(p, recipe))) for p in pools]


# the study


Benchmarks = dict[str, list[Pool]]  # "LoCoMo, ids" -> pools


CHANGES = {
    "the length rule (alpha 0.3)": Recipe(alpha=TODAY, spread=None),
    "alpha from the shapes": Recipe(long_text=None, spread=None),
    "both": Recipe(spread=None),
    "the spread (alpha 0.3)": Recipe(alpha=TODAY, long_text=None),
    "the default: both and the spread": Recipe(),
}
NOT_KEPT = {
    "alpha 0.6": Recipe(alpha=0.6, long_text=None, spread=None),
    "z-scores, alpha 0.5": Recipe(alpha=0.5, long_text=None, spread=None, zscores=True),
    "the default, spread over every place": Recipe(spread_places=20),
    "the default, spread with 2 free places": Recipe(spread=(2, spreading.YIELD)),
    "the default without the spread, MMR 0.1": Recipe(spread=None, mmr=0.1),
}


def held_out_choice(benchmarks: Benchmarks) -> tuple[Table, dict[str, Any]]:
    """The constants chosen on each half, and what they score on the other (with ids)."""
    grid = {
        f"long {n} chars, power {p}, " + ("no spread" if s is None else f"spread {s[0]} free, step {s[1]}"): Recipe(
            long_text=n, power=p, spread=s
        )
        for n, p, s in itertools.product(LONG_TEXTS, POWERS, (None, *SPREADS))
    }
    with_ids = {name: pools for name, pools in benchmarks.items() if name.endswith(", ids")}
    runs = {label: {b: scored(pools, recipe) for b, pools in with_ids.items()} for label, recipe in grid.items()}
    today = {b: scored(pools, TODAYS) for b, pools in with_ids.items()}
    columns = [*(f"{b} (today)" for b in with_ids), *(f"{b} s-recall@5" for b in with_ids if "LongMem" in b)]
    table = Table(
        "Held out: the constants chosen on one half, recall@5 on the other", ["chosen on", "chosen", *columns]
    )
    out: dict[str, Any] = {}
    for choosing in (True, False):

        def on(rows: list[Scored], half: bool = choosing, metric: str = "recall@5") -> float:
            picked = [r.figures[metric] for r in rows if (r.fold in CHOOSING_HALF) == half]
            return float(np.mean(picked)) if picked else 0.0

        best = max(runs, key=lambda label: sum(on(rows) for rows in runs[label].values()))
        held = {b: (on(rows, not choosing), on(today[b], not choosing)) for b, rows in runs[best].items()}
        sessions = [on(rows, not choosing, "session_recall@5") for b, rows in runs[best].items() if "LongMem" in b]
        name = "A (conv-26, -41, -43; h0), scored on B" if choosing else "B (conv-30, -42; h1), scored on A"
        table.add(name, best, *(f"{a:.3f} ({t:.3f})" for a, t in held.values()), *sessions)
        out[name] = {"chosen": best, "held_out": held}
    return table, out


def run(quick: bool = False) -> dict[str, Any]:
    benchmarks: Benchmarks = {}
    for with_ids, label in ((True, "ids"), (False, "no ids")):
        benchmarks[f"LoCoMo, {label}"] = locomo_pools(with_ids, quick)
        benchmarks[f"LongMemEval, {label}"] = longmemeval_pools(with_ids, quick)
    agree = {b: np.mean([ranked(p, Recipe())[:20] == p.served for p in pools]) for b, pools in benchmarks.items()}
    print("the default re-ranked here = the service's ranking:", {b: f"{a:.3f}" for b, a in agree.items()})
    today = {b: scored(pools, TODAYS) for b, pools in benchmarks.items()}
    metrics = ("recall@5", "recall@10", "session_recall@5")
    columns = [f"{b}: {m}" for b in benchmarks for m in (metrics if "LongMem" in b else metrics[:2])]
    figures_table = Table("Each change against alpha 0.3, per question (95% interval)", ["change", *columns])
    levels = Table("Each change: recall@5 (session recall@5 on LongMemEval)", ["change", *benchmarks])
    out: dict[str, Any] = {"agreement": agree, "changes": {}}
    for name, recipe in {
        "today: alpha 0.3": TODAYS,
        **CHANGES,
        **{f"not kept: {n}": r for n, r in NOT_KEPT.items()},
    }.items():
        rows = {b: scored(pools, recipe) for b, pools in benchmarks.items()}
        diffs = {f"{b}: {m}": paired(today[b], rows[b], m) for b in benchmarks for m in metrics
                 if "LongMem" in b or m != "session_recall@5"}  # fmt: skip
        figures_table.add(name, *(interval(diffs[c]) for c in columns))
        means = {b: summarise(r)["overall"] for b, r in rows.items()}
        levels.add(name, *(_level(b, means[b]) for b in benchmarks))
        out["changes"][name] = {"paired": diffs, "means": means}
    levels.print()
    figures_table.print()
    default = {b: scored(pools, Recipe()) for b, pools in benchmarks.items()}
    _per_category(benchmarks, today, default).print()
    held, out["held_out"] = held_out_choice(benchmarks)
    held.print()
    return out


def _level(benchmark: str, means: dict[str, float]) -> str:
    if "LongMem" in benchmark:
        return f"{means['recall@5']:.3f} ({means['session_recall@5']:.3f})"
    return f"{means['recall@5']:.3f}"


def _per_category(benchmarks: Benchmarks, today: dict[str, list[Scored]], default: dict[str, list[Scored]]) -> Table:
    table = Table("Per category: recall@5 today -> the default (paired difference, 95% interval)",
                  ["benchmark", "slice", "n", "today", "default", "difference"])  # fmt: skip
    for b in benchmarks:
        for part, keep in _slices(today[b]):
            before, after = [today[b][i] for i in keep], [default[b][i] for i in keep]
            mean = summarise(before)["overall"]["recall@5"], summarise(after)["overall"]["recall@5"]
            table.add(b, part, len(keep), *mean, interval(paired(before, after)))
    return table


def _slices(rows: list[Scored]) -> Iterator[tuple[str, list[int]]]:
    yield "overall", list(range(len(rows)))
    for category in sorted({r.category for r in rows}):
        yield category, [i for i, r in enumerate(rows) if r.category == category]
