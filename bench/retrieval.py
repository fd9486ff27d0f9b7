"""What the retrieval benchmarks (LoCoMo, LongMemEval) share: scoring, summaries, held-out choice.

A question is scored from the ranked ids a search returned (best first) and the
set of ids that hold its evidence: recall@k (share of the evidence in the top
k), hit@k (any evidence in the top k) and MRR (first evidence in the top 20);
where the evidence lies in sessions, session recall@k: the share of the
question's answer sessions that the top k hits come from (as mcp-memory-service
publishes it).

Anything fitted on a benchmark (a weight, an on/off choice) is reported on
questions it was not fitted on: `held_out` picks, for each fold, the setting
that scores best on the other folds, and averages what it scores on the fold.
Two searches are compared question by question (`paired`): the mean of the
per-question differences with a 95% bootstrap interval (fixed seed).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.report import Table

KS = (5, 10, 20)
DEPTH = max(KS)


@dataclass(frozen=True)
class Scored:
    """One question's figures, with the slices it counts in and the fold it belongs to."""

    question: str
    category: str
    fold: str
    figures: dict[str, float] = field(default_factory=dict)


def figures(ranked: Sequence[str], evidence: set[str], session_of: Mapping[str, str] | None = None,
            sessions: set[str] | None = None) -> dict[str, float]:  # fmt: skip
    """recall@k, hit@5 and MRR; with ``session_of``/``sessions`` also session-level hit@k."""
    out = {f"recall@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
    out["hit@5"] = float(bool(evidence & set(ranked[:5])))
    first = next((i for i, d in enumerate(ranked[:DEPTH]) if d in evidence), None)
    out["mrr"] = 0.0 if first is None else 1 / (first + 1)
    if session_of is not None and sessions is not None:
        out |= session_figures(ranked, session_of, sessions)
    return out


def session_figures(ranked: Sequence[str], session_of: Mapping[str, str], sessions: set[str]) -> dict[str, float]:
    """Session hit@k (any answer session in the top k) and session recall@k (the share of the answer
    sessions the top k come from)."""
    out = {}
    for k in KS:
        found = {session_of.get(i) for i in ranked[:k]} & sessions
        out[f"session_hit@{k}"] = float(bool(found))
        out[f"session_recall@{k}"] = len(found) / len(sessions)
    return out


def summarise(rows: Iterable[Scored]) -> dict[str, dict[str, float]]:
    """Mean figures overall and per category, each with its question count ``n``."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for row in rows:
        groups["overall"].append(row)
        groups[row.category].append(row)
    return {
        name: {key: sum(r.figures[key] for r in group) / len(group) for key in group[0].figures} | {"n": len(group)}
        for name, group in groups.items()
    }


def hash_fold(key: str, folds: int = 2) -> str:
    """A fixed fold of a question, from its id: the same on every run and machine."""
    return f"h{int(hashlib.sha256(key.encode()).hexdigest(), 16) % folds}"


def held_out(
    runs: Mapping[str, Sequence[Scored]], metric: str = "recall@5", slice_of: Callable[[Scored], bool] | None = None
) -> dict[str, Any]:
    """For each fold: the setting best on the other folds, and its mean ``metric`` on this fold.

    ``runs`` maps a setting's name to its scored questions (the same questions in
    every setting). Returns the held-out mean over all questions and each fold's choice.
    """
    keep = slice_of or (lambda _row: True)
    folds = sorted({r.fold for rows in runs.values() for r in rows})
    chosen: dict[str, str] = {}
    total, count = 0.0, 0
    for fold in folds:

        def fitted(name: str, fold: str = fold) -> float:
            rows = [r for r in runs[name] if r.fold != fold and keep(r)]
            return sum(r.figures[metric] for r in rows) / max(1, len(rows))

        best = max(runs, key=fitted)
        chosen[fold] = best
        rows = [r for r in runs[best] if r.fold == fold and keep(r)]
        total += sum(r.figures[metric] for r in rows)
        count += len(rows)
    return {"held_out": total / max(1, count), "chosen": chosen}


BOOTSTRAP = 4_000


def paired(before: Sequence[Scored], after: Sequence[Scored], metric: str = "recall@5") -> tuple[float, float, float]:
    """The mean per-question difference ``after - before`` in ``metric`` and its 95% bootstrap interval
    (the same questions in the same order on both sides; a fixed seed, so a run repeats)."""
    import numpy as np

    if [r.question for r in before] != [r.question for r in after]:
        raise ValueError("paired() compares the same questions in the same order")
    diff = np.array([b.figures[metric] - a.figures[metric] for a, b in zip(before, after, strict=True)])
    if not len(diff):
        return 0.0, 0.0, 0.0
    means = diff[np.random.default_rng(0).integers(0, len(diff), (BOOTSTRAP, len(diff)))].mean(axis=1)
    return float(diff.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def comparison(
    title: str, pairs: Mapping[str, tuple[Sequence[Scored], Sequence[Scored]]], slices: Sequence[str],
    metrics: Sequence[str],
) -> Table:  # fmt: skip
    """Each pair's (before, after) per-question difference with its 95% interval, overall and per slice."""
    out = Table(title, ["runs", "slice", "n", *metrics])
    for name, (before, after) in pairs.items():
        for part in slices:
            keep = [i for i, r in enumerate(before) if part in ("overall", r.category)]
            if keep:
                picked = ([before[i] for i in keep], [after[i] for i in keep])
                out.add(name, part, len(keep), *(interval(paired(*picked, m)) for m in metrics))
    return out


def interval(figure: tuple[float, float, float]) -> str:
    """A paired difference as text: ``+0.034 [+0.005, +0.066]``."""
    mean, low, high = figure
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"
