"""Conflict hints on create: false hints on LoCoMo turns, catches on restated facts with another value.

- **False hints**: every turn of a LoCoMo conversation (../shared/bench/locomo-dev.json) is a distinct thing
  said; a create may name none of the earlier turns as a memory it may update (repeated texts are left out).
- **Catches**: bench/data/conflict_pairs.json, a fact and a later statement of it with another number, date,
  amount, name or place; the later one must name the earlier one.

As for dedup (bench/dedup.py): LoCoMo's first two conversations and the pairs' ``dev`` part choose the
thresholds (a sweep of the rule in service/conflicts.py on precomputed vectors); the other three
conversations and the ``test`` part are then measured once, through ``MemoryService.store_new`` on a SQLite
file with the real embedding model.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import DATA, turns
from bench.report import Table
from remember.caller import Caller

PAIRS = Path(__file__).resolve().parent / "data" / "conflict_pairs.json"
COSINES = (0.4, 0.5, 0.6, 0.7, 0.75)
OVERLAPS = (0.5, 0.6, 0.7, 0.8)
SHARED = (1, 2, 3)
DEV_CONVERSATIONS = 2
MAX_FALSE_HINTS = 0.005  # the share of distinct LoCoMo dev turns a choice may flag
Candidates = list[tuple[float, str, str]]  # (cosine, earlier text, new text)


@contextmanager
def rule(cosine: float, overlap: float, shared: int) -> Iterator[None]:
    """The service's rule with these thresholds, for the time of a sweep step."""
    from remember.service import conflicts

    kept = conflicts.COSINE, conflicts.OVERLAP, conflicts.MIN_SHARED
    conflicts.COSINE, conflicts.OVERLAP, conflicts.MIN_SHARED = cosine, overlap, shared
    try:
        yield
    finally:
        conflicts.COSINE, conflicts.OVERLAP, conflicts.MIN_SHARED = kept


def _locomo_rows(embedder: Any, samples: list[dict[str, Any]], nearest: int) -> list[Candidates]:
    """Per distinct turn, its ``nearest`` earlier turns by cosine."""
    from remember.store.sql.fingerprint import normalised

    rows: list[Candidates] = []
    for sample in samples:
        texts = [fields["content"] for _, fields in turns(sample["conversation"], sample["sample_id"])]
        vectors = embedder.embed(texts)
        seen: set[str] = set()
        for i, t in enumerate(texts):
            if normalised(t) in seen or i == 0:
                seen.add(normalised(t))
                continue
            seen.add(normalised(t))
            cos = vectors[:i] @ vectors[i]
            best = np.argsort(-cos)[:nearest]
            rows.append([(float(cos[b]), texts[b], t) for b in best])
    return rows


def _pair_rows(embedder: Any, pairs: list[dict[str, str]]) -> list[Candidates]:
    vectors = embedder.embed([p[k] for p in pairs for k in ("before", "after")])
    return [[(float(vectors[2 * n] @ vectors[2 * n + 1]), p["before"], p["after"])] for n, p in enumerate(pairs)]


def _flags(rows: list[Candidates]) -> int:
    from remember.service.conflicts import disagree

    return sum(any(disagree(before, after, c) for c, before, after in row) for row in rows)


def sweep(fp_rows: list[Candidates], catch_rows: list[Candidates]) -> list[dict[str, float]]:
    out = []
    for cosine in COSINES:
        for overlap in OVERLAPS:
            for shared in SHARED:
                with rule(cosine, overlap, shared):
                    fp, caught = _flags(fp_rows) / len(fp_rows), _flags(catch_rows) / len(catch_rows)
                out.append({"cosine": cosine, "overlap": overlap, "shared": shared, "false_hint": fp, "catch": caught})
    return out


def choose(grid: list[dict[str, float]]) -> dict[str, float]:
    """The best catch rate within the false-hint budget (ties: the stricter thresholds)."""
    allowed = [g for g in grid if g["false_hint"] <= MAX_FALSE_HINTS]
    return max(allowed, key=lambda g: (g["catch"], g["shared"], g["overlap"], g["cosine"]))


def measure(samples: list[dict[str, Any]], pairs: list[dict[str, str]]) -> dict[str, Any]:
    """The held-out figures, through MemoryService.store_new with the configured thresholds."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store
    from remember.store.sql.fingerprint import normalised

    examples: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "conflicts.db")), embedder=MiniLMEmbedder())
        distinct = flagged = 0
        for sample in samples:
            seen: set[str] = set()
            for _, fields in turns(sample["conversation"], sample["sample_id"]):
                stored = services.memories.store_new(Caller(sample["sample_id"]), fields)
                key = normalised(fields["content"])
                if key in seen:
                    continue
                seen.add(key)
                distinct += 1
                if stored.conflicts:
                    flagged += 1
                    examples.append({"turn": fields["content"], "hints": [h.as_dict() for h in stored.conflicts]})
        caught = 0
        for n, pair in enumerate(pairs):
            user = Caller(f"pairs-{n}")
            earlier = services.memories.create(
                user, {"content": pair["before"], "context": {"timestamp": "2024-01-01"}}
            )
            later = services.memories.store_new(
                user, {"content": pair["after"], "context": {"timestamp": "2025-01-01"}}
            )
            caught += any(h.memory_id == earlier.id for h in later.conflicts)
        services.close()
    return {
        "distinct_turns": distinct,
        "false_hints": flagged,
        "false_hint_rate": flagged / distinct,
        "pairs": len(pairs),
        "caught": caught,
        "catch_rate": caught / len(pairs),
        "examples": examples[:10],
    }


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import conflicts

    data = json.loads(DATA.read_text())
    labelled = json.loads(PAIRS.read_text())
    dev_samples, test_samples = data[:DEV_CONVERSATIONS], data[DEV_CONVERSATIONS:]
    if quick:
        dev_samples, test_samples = dev_samples[:1], test_samples[:1]
    embedder = MiniLMEmbedder()
    grid = sweep(_locomo_rows(embedder, dev_samples, conflicts.NEAREST), _pair_rows(embedder, labelled["dev"]))
    best = choose(grid)
    table = Table(
        "Conflict hint thresholds on the dev parts (LoCoMo conv 1-2, dev pairs)",
        ["cosine", "overlap", "shared", "false hints", "catch"],
    )
    for g in grid:
        if g["shared"] == conflicts.MIN_SHARED or g is best:
            table.add(g["cosine"], g["overlap"], g["shared"], g["false_hint"], g["catch"])
    table.print()
    configured = {"cosine": conflicts.COSINE, "overlap": conflicts.OVERLAP, "shared": conflicts.MIN_SHARED}
    print(f"\nbest within false hints <= {MAX_FALSE_HINTS}: {best}; configured: {configured}")
    held_out = measure(test_samples, labelled["test"])
    print(
        f"held out, through the service: false hints {held_out['false_hints']}/{held_out['distinct_turns']} "
        f"distinct LoCoMo turns ({held_out['false_hint_rate']:.2%}), "
        f"caught {held_out['caught']}/{held_out['pairs']} restated facts ({held_out['catch_rate']:.0%})"
    )
    for example in held_out["examples"]:
        print(f"  false hint: {example['turn'][:100]!r} -> {example['hints'][0]['differs']}")
    return {"dev_best": best, "configured": configured, "held_out": held_out, "grid": grid}
