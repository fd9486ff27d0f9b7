"""Dedup on write: false positives on LoCoMo turns, catches on restated facts.

- **False positives**: every turn of a LoCoMo conversation (../shared/bench/locomo-dev.json)
  is a distinct thing said; none may be taken for a near duplicate of an earlier one
  (turns whose normalised text repeats an earlier turn's are counted apart).
- **Catches**: bench/data/dedup_pairs.json, facts and a restatement of each (a repeat
  with other case or punctuation, or a paraphrase), written for this bench; the
  restatement must be found as a duplicate of its own original.

Both are split: LoCoMo's first two conversations and the pairs' ``dev`` part choose the
thresholds (a sweep over the same rule the service applies, on precomputed vectors);
the other three conversations and the ``test`` part are then measured once, through the
real service (``store_new`` on a SQLite file, the real embedding model).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import DATA, turns
from bench.report import Table
from remember.caller import Caller

PAIRS = Path(__file__).resolve().parent / "data" / "dedup_pairs.json"
COSINES = (0.70, 0.75, 0.78, 0.80, 0.83, 0.85, 0.88, 0.90, 0.92, 0.95)
OVERLAPS = (0.0, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
DEV_CONVERSATIONS = 2
MAX_FALSE_POSITIVES = 0.005  # the share of distinct LoCoMo dev turns a choice may flag


def _candidates(texts: list[str], vectors: Any, earlier: list[int], i: int, nearest: int) -> list[tuple[float, float]]:
    """(cosine, keyword overlap) of text i with its ``nearest`` neighbours among ``earlier``."""
    from remember.service.dedup import keyword_overlap

    if not earlier:
        return []
    cos = vectors[earlier] @ vectors[i]
    best = np.argsort(-cos)[:nearest]
    return [(float(cos[b]), keyword_overlap(texts[i], texts[earlier[b]])) for b in best]


def _locomo_rows(embedder: Any, samples: list[dict[str, Any]], nearest: int) -> tuple[list[Any], int]:
    """Per distinct turn, its candidates; and how many turns repeat an earlier turn's text."""
    from remember.store.sql.fingerprint import normalised

    rows, repeats = [], 0
    for sample in samples:
        texts = [fields["content"] for _, fields in turns(sample["conversation"], sample["sample_id"])]
        vectors = embedder.embed(texts)
        seen: set[str] = set()
        for i, t in enumerate(texts):
            key = normalised(t)
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            rows.append(_candidates(texts, vectors, list(range(i)), i, nearest))
    return rows, repeats


def _pair_rows(embedder: Any, pairs: list[dict[str, str]], nearest: int) -> list[tuple[list[Any], list[bool]]]:
    """Per restated fact: candidates among all the originals, and which candidate is its own."""
    originals = [p["original"] for p in pairs]
    texts = originals + [p["restated"] for p in pairs]
    vectors = embedder.embed(texts)
    out = []
    for n in range(len(pairs)):
        i = len(pairs) + n
        cos = vectors[: len(pairs)] @ vectors[i]
        best = np.argsort(-cos)[:nearest]
        from remember.service.dedup import keyword_overlap

        cands = [(float(cos[b]), keyword_overlap(texts[i], originals[b])) for b in best]
        out.append((cands, [int(b) == n for b in best]))
    return out


def _flagged(cands: list[tuple[float, float]], cosine: float, overlap: float) -> int | None:
    return next((k for k, (c, o) in enumerate(cands) if c >= cosine and o >= overlap), None)


def sweep(fp_rows: list[Any], catch_rows: list[Any]) -> list[dict[str, float]]:
    out = []
    for cosine in COSINES:
        for overlap in OVERLAPS:
            fp = sum(_flagged(r, cosine, overlap) is not None for r in fp_rows) / len(fp_rows)
            caught = 0
            for cands, own in catch_rows:
                k = _flagged(cands, cosine, overlap)
                caught += k is not None and own[k]
            out.append({"cosine": cosine, "overlap": overlap, "false_positive": fp, "catch": caught / len(catch_rows)})
    return out


def choose(grid: list[dict[str, float]]) -> dict[str, float]:
    """The best catch rate within the false-positive budget (ties: the stricter thresholds)."""
    allowed = [g for g in grid if g["false_positive"] <= MAX_FALSE_POSITIVES]
    return max(allowed, key=lambda g: (g["catch"], g["cosine"], g["overlap"]))


def measure(samples: list[dict[str, Any]], pairs: list[dict[str, str]], embedder: Any = None) -> dict[str, Any]:
    """The held-out figures, through MemoryService.store_new with the configured thresholds (read through the
    embedder's scale: search/embedders/scale.py), with MiniLM unless another ``embedder`` is given."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store
    from remember.store.sql.fingerprint import normalised

    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "dedup.db")), embedder=embedder or MiniLMEmbedder())
        distinct = flagged = repeats = 0
        for sample in samples:
            seen: set[str] = set()
            for _, fields in turns(sample["conversation"], sample["sample_id"]):
                key = normalised(fields["content"])
                stored = services.memories.store_new(Caller(sample["sample_id"]), fields)
                if key in seen:
                    repeats += 1
                    continue
                seen.add(key)
                distinct += 1
                flagged += stored.duplicate is not None
        originals = [services.memories.create(Caller("pairs"), {"content": p["original"]}).id for p in pairs]
        caught = 0
        for own, pair in zip(originals, pairs, strict=True):
            found = services.memories.store_new(Caller("pairs"), {"content": pair["restated"]}).duplicate
            caught += found is not None and found.memory_id == own
        services.close()
    return {
        "distinct_turns": distinct,
        "false_positives": flagged,
        "false_positive_rate": flagged / distinct,
        "repeated_turns": repeats,
        "pairs": len(pairs),
        "caught": caught,
        "catch_rate": caught / len(pairs),
    }


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import dedup

    data = json.loads(DATA.read_text())
    labelled = json.loads(PAIRS.read_text())
    dev_samples, test_samples = data[:DEV_CONVERSATIONS], data[DEV_CONVERSATIONS:]
    if quick:
        dev_samples, test_samples = dev_samples[:1], test_samples[:1]
    embedder = MiniLMEmbedder()
    fp_rows, _ = _locomo_rows(embedder, dev_samples, dedup.NEAREST)
    grid = sweep(fp_rows, _pair_rows(embedder, labelled["dev"], dedup.NEAREST))
    best = choose(grid)
    table = Table(
        "Dedup thresholds on the dev parts (LoCoMo conv 1-2, dev pairs)", ["cosine", "overlap", "FP", "catch"]
    )
    for g in grid:
        if g["overlap"] in (0.0, 0.5, 0.6) or g is best:
            table.add(g["cosine"], g["overlap"], g["false_positive"], g["catch"])
    table.print()
    configured = {"cosine": dedup.COSINE, "overlap": dedup.OVERLAP}
    print(f"\nbest within FP <= {MAX_FALSE_POSITIVES}: {best}; configured: {configured}")
    held_out = measure(test_samples, labelled["test"])
    print(
        f"held out, through the service: false positives {held_out['false_positives']}/{held_out['distinct_turns']} "
        f"distinct LoCoMo turns ({held_out['false_positive_rate']:.2%}), "
        f"caught {held_out['caught']}/{held_out['pairs']} restated facts ({held_out['catch_rate']:.0%})"
    )
    from bench.embedcache import cached_e5

    e5 = measure(test_samples, labelled["test"], cached_e5())
    print(
        f"the same, multilingual-e5-small (dedup's {dedup.COSINE} on its scale): false positives "
        f"{e5['false_positives']}/{e5['distinct_turns']} ({e5['false_positive_rate']:.2%}), "
        f"caught {e5['caught']}/{e5['pairs']} ({e5['catch_rate']:.0%})"
    )
    return {"dev_best": best, "configured": configured, "held_out": held_out, "multilingual": e5, "grid": grid}
