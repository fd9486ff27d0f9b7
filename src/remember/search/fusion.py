"""Fusing keyword and vector candidates into one ranking, and the boosts on top.

    fused = alpha * minmax(cosine) + (1 - alpha) * keyword / max(keyword)

over the union of both candidate lists: cosines are known for every candidate
(the matrix is in memory), keyword scores are 0 where FTS did not return the
memory. ``alpha`` 1 is semantic only, 0 keyword only. Then

    score = fused + weight_boost * (weight - 0.5) + recency_boost * 0.5 ** (age_days / half_life_days)

A candidate that matches nothing of the question is left out before that (``above_floor``): one
no keyword of the question found and whose raw cosine is below the floor only filled the vector
side's pool (the side always takes its nearest, however far). The floor is on the raw cosine, not
on the fused score, which is relative to the other candidates: the nearest of an off-topic search
normalises to 1 all the same.

docs/search.md says how to set them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Fused:
    memory_id: str
    fused: float
    keyword: float  # normalised to 0..1 (1 = the best keyword match among the candidates)
    semantic: float  # normalised to 0..1 among the candidates
    cosine: float | None
    matched: bool  # found by the keyword side: a term of the question is in it (or in its date or context)


def fuse(keyword: Mapping[str, float], cosine: Mapping[str, float], alpha: float) -> list[Fused]:
    """Every candidate with its fused score (unsorted)."""
    ids = list(dict.fromkeys([*keyword, *cosine]))
    top_keyword = max(keyword.values(), default=0.0)
    cosines = [cosine[i] for i in ids if i in cosine]
    low, high = (min(cosines), max(cosines)) if cosines else (0.0, 0.0)
    out = []
    for memory_id in ids:
        k = keyword.get(memory_id, 0.0) / top_keyword if top_keyword > 0 else 0.0
        c = cosine.get(memory_id)
        s = (c - low) / (high - low) if c is not None and high > low else (1.0 if c is not None else 0.0)
        out.append(Fused(memory_id, alpha * s + (1 - alpha) * k, k, s, c, memory_id in keyword))
    return out


def above_floor(fused: Iterable[Fused], floor: float) -> list[Fused]:
    """The candidates that match the question: found by a keyword, or with a cosine of at least ``floor``."""
    return [f for f in fused if f.matched or (f.cosine is not None and f.cosine >= floor)]


@dataclass(frozen=True)
class Boosts:
    weight: float = 0.0
    recency: float = 0.0
    half_life_days: float = 30.0

    @property
    def widest(self) -> float:
        """The largest difference the boosts can make between two memories."""
        return abs(self.weight) + abs(self.recency)

    def weight_part(self, weight: float) -> float:
        return self.weight * (weight - 0.5)

    def recency_part(self, occurred_at: datetime, now: datetime) -> float:
        if not self.recency:
            return 0.0
        age_days = max(0.0, (now - occurred_at).total_seconds() / 86_400)
        return float(self.recency * 0.5 ** (age_days / self.half_life_days))
