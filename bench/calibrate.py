"""Where each embedder's cosines stand: the map from an embedder's cosines to MiniLM's, fitted on dev data.

Every cosine threshold of remember (dedup, ``min_similarity``, the search floor ``min_score``, the
template suggestions' semantic signals) was chosen for all-MiniLM-L6-v2. Another model spreads its
cosines otherwise (multilingual-e5-small's between two unrelated LoCoMo turns are around 0.83, MiniLM's
around 0.26), so the thresholds are read through a map from the embedder's cosines to MiniLM's: the
quantiles of one distribution matched to the other's over the same pairs. Two maps, because a question
and a memory are embedded differently (e5's ``query: `` and ``passage: ``):

- ``passages``: every pair of distinct turns within a conversation (dedup, similar memories, suggestions);
- ``queries``: every question against every turn of its conversation (the search floor, similar to a text).

Fitted on LoCoMo's first two conversations (../shared/bench/locomo-dev.json); ``check`` reports how
the fitted map carries the other three (the share of held-out pairs each side puts above MiniLM's
thresholds). The points printed are the ones ``remember.search.embedders.multilingual`` ships.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bench.locomo import DATA, turns
from bench.report import Table

LEVELS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999)
DEV_CONVERSATIONS = 2
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)  # MiniLM's: the floor, suggestions, similar, dedup


def cosines(embedder: Any, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Every within-conversation pair's cosine, and every question-turn cosine, pooled over ``samples``."""
    passages, queries = [], []
    for sample in samples:
        texts = [fields["content"] for _, fields in turns(sample["conversation"], sample["sample_id"])]
        rows = embedder.embed(texts)
        upper = np.triu_indices(len(texts), k=1)
        passages.append((rows @ rows.T)[upper])
        questions = [q["question"] for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
        asked = np.stack([embedder.embed_query(q) for q in questions])
        queries.append((asked @ rows.T).ravel())
    return {"passages": np.concatenate(passages), "queries": np.concatenate(queries)}


def fit(own: Any, reference: Any) -> list[tuple[float, float]]:
    """(own cosine, reference cosine) at each quantile level, kept increasing, and (1, 1)."""
    points: list[tuple[float, float]] = []
    for level in LEVELS:
        x, y = float(np.quantile(own, level)), float(np.quantile(reference, level))
        if not points or (x > points[-1][0] + 1e-4 and y > points[-1][1]):
            points.append((round(x, 4), round(y, 4)))
    if points[-1][0] < 1.0:
        points.append((1.0, 1.0))
    return points


def check(points: list[tuple[float, float]], own: Any, reference: Any) -> list[tuple[float, float, float]]:
    """Per MiniLM threshold: the share of pairs MiniLM puts above it, and the share the mapped threshold does."""
    from remember.search.embedders.scale import CosineMap

    mapped = CosineMap(tuple(points))
    return [(t, float((reference >= t).mean()), float((own >= mapped.own(t)).mean())) for t in THRESHOLDS]


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder

    data = json.loads(DATA.read_text())
    dev, held_out = data[:DEV_CONVERSATIONS], data[DEV_CONVERSATIONS:]
    if quick:
        dev, held_out = dev[:1], held_out[:1]
    minilm, e5 = MiniLMEmbedder(), MultilingualEmbedder()
    fitted: dict[str, Any] = {}
    dev_minilm, dev_e5 = cosines(minilm, dev), cosines(e5, dev)
    test_minilm, test_e5 = cosines(minilm, held_out), cosines(e5, held_out)
    for side in ("passages", "queries"):
        points = fit(dev_e5[side], dev_minilm[side])
        fitted[side] = points
        print(f"\n{side}: median cosine MiniLM {np.median(dev_minilm[side]):.3f}, e5 {np.median(dev_e5[side]):.3f}")
        print(f"{side} points (e5, MiniLM): {points}")
        table = Table(
            f"{side}, held out (conversations 3-5): share of pairs at or above",
            ["MiniLM threshold", "MiniLM", "e5 mapped"],
        )
        for row in check(points, test_e5[side], test_minilm[side]):
            table.add(*row)
        table.print()
    return fitted
