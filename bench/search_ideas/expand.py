"""Candidate expansion after fusion: the neighbours of strong hits, and the company a hit keeps.

The evidence of a question is often a few turns in a row (a statement and the
reply that gives the detail), and only one of them shares words or meaning with
the question. A memory adjacent in its conversation to one of the best fused
candidates is lifted to a share of that candidate's score, if it scored lower on
its own. And a memory whose conversation holds other strong hits may be likelier
the one asked about than a stray match elsewhere: it can be lifted by a share of
the best of them. Both are off by default; docs/search.md gives what each was worth.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from remember.models import IMPLICIT_GAP
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
        out.append(f if score == f.fused else replace(f, fused=score))
    out += [Fused(i, score, 0.0, 0.0, None, matched=False) for i, score in sorted(lifted.items())]
    return out


def together(items: Sequence[tuple[str | None, datetime, float]], share: float) -> list[float]:
    """Each item's lift: ``share`` of the best score among the other items of its conversation, never
    below 0. An item is (conversation id, when it happened, score); items without an id are together
    when they happened within ``IMPLICIT_GAP`` of each other (as the index chains them)."""
    best: dict[str, list[float]] = {}
    for conversation, _, score in items:
        if conversation is not None:
            best[conversation] = heapq.nlargest(2, [*best.get(conversation, []), score])
    loose = sorted((when, score) for conversation, when, score in items if conversation is None)
    times, scores = [when for when, _ in loose], [score for _, score in loose]
    out = []
    for conversation, when, score in items:
        if conversation is not None:
            top = best[conversation]
        else:
            top = heapq.nlargest(
                2, scores[bisect_left(times, when - IMPLICIT_GAP) : bisect_right(times, when + IMPLICIT_GAP)]
            )
        other = top[0] if top[0] != score else (top[1] if len(top) > 1 else None)
        out.append(share * max(0.0, other) if other is not None else 0.0)
    return out
