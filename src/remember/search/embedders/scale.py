"""Where an embedder's cosines stand: every cosine threshold of remember is read through it.

The thresholds (dedup's ``COSINE``, ``min_similarity``, the search floor ``search.min_score``, the recall
hook's ``MIN_COSINE``) were chosen on all-MiniLM-L6-v2's cosines, the *common scale*. (The template
suggestions' weights are fitted per embedder instead: ``templates/suggest/score.py``.)
Another model spreads its cosines otherwise: multilingual-e5-small puts two unrelated sentences around
0.83, where MiniLM puts them around 0.26. An embedder therefore carries a ``CosineScale``: two
increasing maps from its own cosines to the common scale, fitted by matching the quantiles of its
cosines to MiniLM's over the same pairs of dev texts (``bench/calibrate.py``), one between two stored
texts (``passages``) and one between a query and a stored text (``queries``), which e5 embeds
differently. A threshold given on the common scale is compared with the embedder's own cosines
through ``own``; ``common`` gives a cosine's place on the common scale. An embedder without one
(MiniLM, an OpenAI-compatible server) is on the common scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any


@dataclass(frozen=True)
class CosineMap:
    """An increasing piecewise-linear map: ``points`` are (own cosine, common cosine), ends held flat beyond."""

    points: tuple[tuple[float, float], ...] = ((-1.0, -1.0), (1.0, 1.0))

    def __post_init__(self) -> None:
        xs, ys = [x for x, _ in self.points], [y for _, y in self.points]
        if len(self.points) < 2 or any(b <= a for a, b in pairwise(xs)) or any(b <= a for a, b in pairwise(ys)):
            raise ValueError("a cosine map needs at least two points, increasing in both coordinates")

    @property
    def identity(self) -> bool:
        return all(x == y for x, y in self.points) and self.points[0][0] <= -1.0 and self.points[-1][0] >= 1.0

    def common(self, own: Any) -> Any:
        """The common-scale value of an own cosine (a float or an array of them)."""
        return own if self.identity else _interp(own, self.points)

    def own(self, common: float) -> float:
        """The own cosine that stands where ``common`` stands on the common scale (a threshold)."""
        if self.identity:
            return common
        return float(_interp(common, tuple((y, x) for x, y in self.points)))


def _interp(value: Any, points: tuple[tuple[float, float], ...]) -> Any:
    """Linear between the points; beyond the ends, the end's slope carried on (a threshold stays ordered)."""
    import numpy as np

    xs = np.array([x for x, _ in points])
    ys = np.array([y for _, y in points])
    array = np.asarray(value, dtype=np.float64)
    inside = np.interp(array, xs, ys)
    low_slope = (ys[1] - ys[0]) / (xs[1] - xs[0])
    high_slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    out = np.where(array < xs[0], ys[0] + (array - xs[0]) * low_slope, inside)
    out = np.where(array > xs[-1], ys[-1] + (array - xs[-1]) * high_slope, out)
    if np.ndim(value) == 0:
        return float(out)
    return out.astype(np.float32)


@dataclass(frozen=True)
class CosineScale:
    """An embedder's two maps to the common scale: between stored texts, and from a query to a stored text."""

    passages: CosineMap = field(default_factory=CosineMap)
    queries: CosineMap = field(default_factory=CosineMap)


COMMON = CosineScale()


def scale_of(embedder: object) -> CosineScale:
    """The embedder's ``scale``, or the common scale for one that declares none."""
    scale = getattr(embedder, "scale", None)
    return scale if isinstance(scale, CosineScale) else COMMON
