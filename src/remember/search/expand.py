"""Candidate expansion after fusion: the neighbours of strong hits.

The evidence of a question is often a few turns in a row (a statement and the
reply that gives the detail), and only one of them shares words or meaning with
the question. A memory adjacent in its conversation to one of the best fused
candidates is lifted to a share of that candidate's score, if it scored lower on
its own. docs/search.md gives what it was worth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from remember.search.fusion import Fused


def strongest(fused: Sequence[Fused], n: int) -> list[str]:
    """The ids of the ``n`` best fused candidates (ties by id)."""
    return [f.memory_id for f in sorted(fused, key=lambda f: (-f.fused, f.memory_id))[:n]]


def spread(fused: Sequence[Fused], adjacent: Mapping[str, Sequence[str]], share: float) -> list[Fused]:
    """``fused`` with each neighbour of a key of ``adjacent`` raised to ``share`` of that key's score."""
    by_id = {f.memory_id: f for f in fused}
    lifted: dict[str, float] = {}
    for source, neighbours in adjacent.items():
        parent = by_id.get(source)
        if parent is None:
            continue
        for other in neighbours:
            lifted[other] = max(lifted.get(other, 0.0), share * parent.fused)
    out = []
    for f in fused:
        score = max(f.fused, lifted.pop(f.memory_id, 0.0))
        out.append(f if score == f.fused else Fused(f.memory_id, score, f.keyword, f.semantic, f.cosine))
    out += [Fused(i, score, 0.0, 0.0, None) for i, score in sorted(lifted.items())]
    return out
