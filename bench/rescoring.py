"""Whether a learned re-scoring of the fused pool generalises: fitted on one benchmark, scored on the other.

For every question of LoCoMo and LongMemEval, the search's fused pool (both
sides' 50 best, as ``fuse`` returns it) is kept with features of each candidate
that a search could compute cheaply: its normalised keyword and vector scores,
its conversation neighbours' (the turn before and after, same conversation), the
best other candidate of its conversation, its length, the share of the query's
terms it holds (plain and weighted by their rarity among the user's memories).
A linear score over them is fitted two ways (a pairwise logistic loss; a grid
of weights added to the fused score, chosen for the smaller of the two
benchmarks' gains) and reported held out: within a benchmark (leave one
conversation out on LoCoMo, halves on LongMemEval), across (fitted on one,
scored on the other) and jointly (fitted on both, the scored fold left out).
bench/results/retrieval.md has the figures.
"""

from __future__ import annotations

import itertools
import json
import math
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
from remember.caller import Caller

FEATURES = ("k", "s", "prev_f", "next_f", "prev_s", "next_s", "conv_best", "conv_n", "length", "cover", "cover_idf")
SETS = {
    "scores only (k, s)": ("k", "s"),
    "+ neighbours, conversation": ("k", "s", "prev_f", "next_f", "conv_best"),
    "+ neighbours, conversation, coverage": ("k", "s", "prev_f", "next_f", "conv_best", "cover"),
    "+ length": ("k", "s", "prev_f", "next_f", "conv_best", "cover", "length"),
    "all": FEATURES,
}
GRID_FEATURES = ("conv_best", "next_f", "prev_f", "cover_idf")
GRID = (0.0, 0.05, 0.1, 0.2)
NEGATIVES = 20  # the strongest other candidates each evidence candidate is paired with


@dataclass(frozen=True)
class Question:
    fold: str
    category: str
    evidence: int  # how many evidence turns (found in the pool or not)
    fused: np.ndarray  # the search's fused score of each candidate
    x: np.ndarray  # candidates x FEATURES
    y: np.ndarray  # whether each candidate is evidence


# collecting the pools


class Pools:
    """The fused pool of each search, as the service's ``fuse`` returns it."""

    def __init__(self) -> None:
        from remember.service import search

        self.last: list[Any] = []
        self._fuse = search.fuse  # type: ignore[attr-defined]
        self._patch = mock.patch.object(search, "fuse", self._spy)

    def _spy(self, keyword: Any, cosine: Any, alpha: float) -> list[Any]:
        self.last = self._fuse(keyword, cosine, alpha)
        return self.last

    def __enter__(self) -> Pools:
        self._patch.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._patch.stop()


@dataclass
class UserTurns:
    """One user's memories in order: who follows whom in a conversation, vectors, term counts."""

    memories: dict[str, Any]
    vectors: dict[str, np.ndarray]
    before: dict[str, str]
    after: dict[str, str]
    df: dict[str, int]

    @classmethod
    def read(cls, services: Any, user: str, in_order: list[str]) -> UserTurns:
        from remember.models import conversation_of

        memories = {m.id: m for m in services.store.memories.get_many(user, in_order)}
        vectors = {i: np.frombuffer(services.store.index.get_vector(user, i), dtype=np.float32) for i in in_order}
        before, after = {}, {}
        for a, b in itertools.pairwise(in_order):
            conversation = conversation_of(memories[a])
            if conversation is not None and conversation == conversation_of(memories[b]):
                after[a], before[b] = b, a
        df: dict[str, int] = {}
        for m in memories.values():
            for word in set(_words(m.content)):
                df[word] = df.get(word, 0) + 1
        return cls(memories, vectors, before, after, df)


def _words(content: str) -> list[str]:
    from remember.search import text

    return [text.stem(w) for w in content.lower().replace(":", " ").split()]


def _question(services: Any, pools: Pools, turns: UserTurns, user: str, question: str, asked: datetime,
              is_evidence: Callable[[str], bool], fold: str, category: str, evidence: int) -> Question:  # fmt: skip
    from remember.models import conversation_of
    from remember.search import text

    services.search.clock = lambda: asked
    services.search.search(Caller(user), question, alpha=0.3, limit=20, record_access=False)  # fuse() at alpha 0.3
    fused = pools.last
    query = np.asarray(services.indexer.query_vector(question), dtype=np.float32).ravel()
    terms = {text.stem(t) for t in text.query_terms(question)}
    idf = {t: math.log(1 + len(turns.memories) / (1 + turns.df.get(t, 0))) for t in terms}
    cosines = [f.cosine for f in fused if f.cosine is not None]
    low, high = min(cosines), max(cosines)
    score = {f.memory_id: f.fused for f in fused}
    conversation = {f.memory_id: conversation_of(turns.memories[f.memory_id]) for f in fused}

    def near(memory_id: str | None) -> float:
        if memory_id is None or high <= low:
            return 0.0
        return float((float(turns.vectors[memory_id] @ query) - low) / (high - low))

    rows = []
    for f in fused:
        words = set(_words(turns.memories[f.memory_id].content))
        company = [score[g] for g, c in conversation.items() if g != f.memory_id and c == conversation[f.memory_id]]
        before, after = turns.before.get(f.memory_id), turns.after.get(f.memory_id)
        rows.append({
            "k": f.keyword, "s": f.semantic,
            "prev_f": score.get(before or "", 0.0), "next_f": score.get(after or "", 0.0),
            "prev_s": near(before), "next_s": near(after), "conv_best": max(company, default=0.0),
            "conv_n": len(company) / len(fused), "length": math.log1p(len(words)),
            "cover": len(terms & words) / max(1, len(terms)),
            "cover_idf": sum(idf[t] for t in terms & words) / max(1e-9, sum(idf.values())),
        })  # fmt: skip
    x = np.array([[row[name] for name in FEATURES] for row in rows])
    y = np.array([is_evidence(f.memory_id) for f in fused], dtype=bool)
    return Question(fold, category, evidence, np.array([f.fused for f in fused]), x, y)


def on_locomo(quick: bool) -> list[Question]:
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    data = json.loads(locomo.DATA.read_text())[: 2 if quick else None]
    asked = locomo.asked_at(data)
    out = []
    with tempfile.TemporaryDirectory() as tmp, Pools() as pools:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=cached_minilm())
        ids, _ = locomo.ingest(services, data)
        turns = {user: UserTurns.read(services, user, list(ids[user])) for user in ids}
        for user, qa, evidence in locomo.questions(data):
            out.append(_question(
                services, pools, turns[user], user, qa["question"], asked[user],
                lambda i, u=user, e=evidence: ids[u].get(i) in e,  # type: ignore[misc]
                user, locomo.CATEGORIES[qa["category"]], len(evidence),
            ))  # fmt: skip
        services.close()
    return out


def on_longmemeval(quick: bool) -> list[Question]:
    from bench.embedcache import cached_minilm
    from bench.retrieval import hash_fold
    from remember.service import Services
    from remember.store import open_store

    out = []
    with tempfile.TemporaryDirectory() as tmp, Pools() as pools:
        services = Services.over(open_store(str(Path(tmp) / "lme.db")), embedder=cached_minilm())
        for q in longmemeval.load()[: 6 if quick else None]:
            ids = longmemeval.ingest(services, q)
            user = q["question_id"]
            evidence = {i for i, (key, _) in ids.items() if not key.endswith("-")}
            out.append(_question(
                services, pools, UserTurns.read(services, user, list(ids)), user, q["question"],
                longmemeval.when(q["question_date"]), evidence.__contains__, hash_fold(user), q["question_type"],
                len(evidence),
            ))  # fmt: skip
        services.close()
    return out


# fitting and scoring


Scorer = Callable[[Question], np.ndarray]


def recall5(questions: Sequence[Question], scorer: Scorer) -> np.ndarray:
    return np.array([q.y[np.argsort(-scorer(q), kind="stable")[:5]].sum() / q.evidence for q in questions])


def pairwise(questions: Sequence[Question], columns: Sequence[int], l2: float = 1e-2, steps: int = 300) -> np.ndarray:
    """Weights for ``columns`` by a pairwise logistic loss, each question weighing the same."""
    blocks = []
    for q in questions:
        if q.y.any() and (~q.y).any():
            x = q.x[:, columns]
            negatives = x[~q.y][np.argsort(-q.fused[~q.y])[:NEGATIVES]]
            blocks.append((x[q.y][:, None, :] - negatives[None, :, :]).reshape(-1, len(columns)))
    d = np.concatenate(blocks)
    share = np.concatenate([np.full(len(b), 1 / len(b)) for b in blocks])
    w = np.zeros(len(columns))
    for _ in range(steps):
        p = 1 / (1 + np.exp(np.clip(d @ w, -30, 30)))
        w -= 0.5 * (-(d * (p * share)[:, None]).sum(0) / len(blocks) + l2 * w)
    return w


def _linear(columns: Sequence[int], w: np.ndarray) -> Scorer:
    return lambda q: q.x[:, columns] @ w


def _added(columns: Sequence[int], w: np.ndarray) -> Scorer:
    return lambda q: q.fused + q.x[:, columns] @ w


def _fused(q: Question) -> np.ndarray:
    return q.fused


def folds(questions: Sequence[Question]) -> Iterator[tuple[list[Question], list[Question]]]:
    for fold in sorted({q.fold for q in questions}):
        yield [q for q in questions if q.fold != fold], [q for q in questions if q.fold == fold]


def held_out(benchmarks: dict[str, list[Question]], fit: Callable[[list[Question], list[Question]], Scorer],
             ) -> dict[str, float]:  # fmt: skip
    """Within each benchmark, across them, and jointly; ``fit(a, b)``: a scorer from two training sets."""
    (name_a, a), (name_b, b) = benchmarks.items()
    within = {
        name_a: np.concatenate([recall5(test, fit(train, [])) for train, test in folds(a)]).mean(),
        name_b: np.concatenate([recall5(test, fit([], train)) for train, test in folds(b)]).mean(),
    }
    across = {name_b: recall5(b, fit(a, [])).mean(), name_a: recall5(a, fit([], b)).mean()}
    joint = {
        name_a: np.concatenate([recall5(test, fit(train, b)) for train, test in folds(a)]).mean(),
        name_b: np.concatenate([recall5(test, fit(a, train)) for train, test in folds(b)]).mean(),
    }
    out: dict[str, float] = {}
    for label, figures in (("within", within), ("across", across), ("joint", joint)):
        out |= {f"{label} {name}": round(float(v), 3) for name, v in figures.items()}
    return out


def pairwise_fit(columns: Sequence[int]) -> Callable[[list[Question], list[Question]], Scorer]:
    return lambda a, b: _linear(columns, pairwise(a + b, columns))


def grid_fit(columns: Sequence[int]) -> Callable[[list[Question], list[Question]], Scorer]:
    """The grid's weights whose smaller gain over the two training sets (or the one given) is largest."""
    weights = [np.array(w) for w in itertools.product(GRID, repeat=len(columns))]

    def fit(a: list[Question], b: list[Question]) -> Scorer:
        sets = [s for s in (a, b) if s]
        base = [recall5(s, _fused).mean() for s in sets]

        def gain(w: np.ndarray) -> float:
            return float(min(recall5(s, _added(columns, w)).mean() - b0 for s, b0 in zip(sets, base, strict=True)))

        return _added(columns, max(weights, key=gain))

    return fit


def run(quick: bool = False) -> dict[str, Any]:
    benchmarks = {"LoCoMo": on_locomo(quick), "LongMemEval": on_longmemeval(quick)}
    index = {name: i for i, name in enumerate(FEATURES)}
    results: dict[str, dict[str, float]] = {
        "the search's own order": {
            f"{label} {name}": round(float(recall5(qs, _fused).mean()), 3)
            for label in ("within", "across", "joint")
            for name, qs in benchmarks.items()
        }
    }
    for label, names in SETS.items():
        results[f"pairwise: {label}"] = held_out(benchmarks, pairwise_fit([index[n] for n in names]))
    results[f"grid over {', '.join(GRID_FEATURES)}"] = held_out(benchmarks, grid_fit([index[n] for n in GRID_FEATURES]))
    columns = list(next(iter(results.values())))
    table = Table("Learned re-scoring of the fused pool: recall@5 held out", ["scorer", *columns])
    for name, figures in results.items():
        table.add(name, *(figures[c] for c in columns))
    table.print()
    return results
