"""Fusing keyword and vector candidates into one ranking, and the boosts on top.

    fused = alpha * minmax(cosine) + (1 - alpha) * keyword / max(keyword)

over the union of both candidate lists: cosines are known for every candidate
(the matrix is in memory), keyword scores are 0 where FTS did not return the
memory. ``alpha`` 1 is semantic only, 0 keyword only. An ``alpha`` the caller
gives is used as it is (``fuse``). Without one (``fuse_by_shape``) the search
weighs its candidates two ways before the same blend:

- a memory longer than ``LONG_TEXT`` characters has its keyword score scaled by
  ``(LONG_TEXT / length) ** LONG_TEXT_POWER``: a long text holds many of a
  question's words by its length alone (an essay on the topic outscores the one
  sentence that answers), while a short one that holds them is about them;
- ``alpha`` is chosen per search from the two sides' shapes: each side weighs
  by how far its best candidate stands above its ``SHAPE_PLACE``-th (both
  normalised as above), so the side that singles out a few candidates leads and
  the side whose best are all alike follows.

Keyword evidence exists only within one language: a question shares no words with a memory written in
another, whatever they mean. With an embedder whose vectors cross languages, a candidate whose language
is known and is not the question's (``apart``) is fused by meaning alone (``fused = semantic``): its
missing keyword score is no evidence against it, and a word it shares by chance (a name) none for it.

Then

    score = fused + weight_boost * (weight - 0.5) + recency_boost * 0.5 ** (age_days / half_life_days)

A candidate that matches nothing of the question is left out before that (``above_floor``): one
no keyword of the question found and whose raw cosine is below the floor only filled the vector
side's pool (the side always takes its nearest, however far). The floor is on the raw cosine, not
on the fused score, which is relative to the other candidates: the nearest of an off-topic search
normalises to 1 all the same.

docs/search.md says how to set them; bench/fusion.py measures the choices.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

LONG_TEXT = 600  # characters: about a paragraph
LONG_TEXT_POWER = 0.5
SHAPE_PLACE = 5  # each side's best is compared with its fifth best


@dataclass(frozen=True)
class Fused:
    memory_id: str
    fused: float
    keyword: float  # normalised to 0..1 (1 = the best keyword match among the candidates)
    semantic: float  # normalised to 0..1 among the candidates
    cosine: float | None
    matched: bool  # found by the keyword side: a term of the question is in it (or in its date or context)
    long_text: float = 1.0  # what its keyword score was scaled by for its length (1: not long)


def fuse(
    keyword: Mapping[str, float], cosine: Mapping[str, float], alpha: float, apart: Collection[str] = frozenset()
) -> list[Fused]:
    """Every candidate with its fused score (unsorted), by the ``alpha`` given; ``apart``: the candidates in
    another language than the question's, fused by meaning alone."""
    return _blend(_normalised(keyword, cosine), alpha, {}, apart)


def fuse_by_shape(
    keyword: Mapping[str, float],
    cosine: Mapping[str, float],
    lengths: Mapping[str, int],
    apart: Collection[str] = frozenset(),
) -> tuple[float, list[Fused]]:
    """The ``alpha`` the candidates call for, and every candidate fused by it (unsorted). ``lengths``: the
    characters of the keyword candidates' texts (a candidate missing from it is taken as short); ``apart``:
    as for ``fuse``."""
    factors = {i: long_text_factor(lengths.get(i, 0)) for i in keyword}
    scaled = {i: score * factors[i] for i, score in keyword.items()}
    parts = _normalised(scaled, cosine)
    alpha = shape_alpha([k for _, k, _, _, _ in parts], [s for _, _, s, _, _ in parts])
    return alpha, _blend(parts, alpha, factors, apart)


def long_text_factor(length: int) -> float:
    """What a memory's keyword score is scaled by for its length: 1 up to ``LONG_TEXT`` characters."""
    return 1.0 if length <= LONG_TEXT else float((LONG_TEXT / length) ** LONG_TEXT_POWER)


def shape_alpha(keyword: Sequence[float], semantic: Sequence[float]) -> float:
    """The weight of meaning: the vector side's drop from its best to its ``SHAPE_PLACE``-th best, as a
    share of both sides' drops (each side normalised 0..1 over the candidates; 0.5 when neither drops)."""
    k, s = _drop(keyword), _drop(semantic)
    return s / (k + s) if k + s > 0 else 0.5


def _drop(values: Sequence[float]) -> float:
    ranked = sorted(values, reverse=True)
    return ranked[0] - ranked[min(SHAPE_PLACE, len(ranked)) - 1] if ranked else 0.0


# (memory id, keyword 0..1, semantic 0..1, cosine, found by the keyword side)
Parts = list[tuple[str, float, float, float | None, bool]]


def _normalised(keyword: Mapping[str, float], cosine: Mapping[str, float]) -> Parts:
    ids = list(dict.fromkeys([*keyword, *cosine]))
    top_keyword = max(keyword.values(), default=0.0)
    cosines = [cosine[i] for i in ids if i in cosine]
    low, high = (min(cosines), max(cosines)) if cosines else (0.0, 0.0)
    out: Parts = []
    for memory_id in ids:
        k = keyword.get(memory_id, 0.0) / top_keyword if top_keyword > 0 else 0.0
        c = cosine.get(memory_id)
        s = (c - low) / (high - low) if c is not None and high > low else (1.0 if c is not None else 0.0)
        out.append((memory_id, k, s, c, memory_id in keyword))
    return out


def _blend(
    parts: Parts, alpha: float, factors: Mapping[str, float], apart: Collection[str] = frozenset()
) -> list[Fused]:
    return [
        Fused(i, s if i in apart else alpha * s + (1 - alpha) * k, k, s, c, m, factors.get(i, 1.0))
        for i, k, s, c, m in parts
    ]


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
