"""Cosine scales: an embedder's cosines read on the common scale every threshold is given on."""

from __future__ import annotations

import numpy as np
import pytest

from remember.search.embedders import HashEmbedder, MiniLMEmbedder, MultilingualEmbedder
from remember.search.embedders.scale import COMMON, CosineMap, scale_of


def test_an_embedder_without_a_scale_is_on_the_common_one() -> None:
    assert scale_of(MiniLMEmbedder()) is COMMON
    assert scale_of(HashEmbedder()) is COMMON
    assert COMMON.passages.identity and COMMON.queries.identity
    assert COMMON.queries.own(0.3) == 0.3
    rows = np.array([0.1, 0.5], dtype=np.float32)
    assert COMMON.passages.common(rows) is rows


def test_a_map_is_linear_between_its_points_and_its_inverse_undoes_it() -> None:
    compressed = CosineMap(((0.7, -0.1), (0.8, 0.2), (0.9, 0.6), (1.0, 1.0)))
    assert compressed.common(0.85) == pytest.approx(0.4)
    assert compressed.own(0.4) == pytest.approx(0.85)
    for common in (-0.5, -0.1, 0.0, 0.2, 0.33, 0.8, 1.0):
        assert compressed.common(compressed.own(common)) == pytest.approx(common)
    assert compressed.common(0.6) == pytest.approx(-0.4)  # beyond the ends the end's slope goes on
    mapped = compressed.common(np.array([0.7, 0.8, 1.0], dtype=np.float32))
    assert mapped.dtype == np.float32 and mapped.tolist() == pytest.approx([-0.1, 0.2, 1.0])


def test_a_map_that_does_not_increase_is_refused() -> None:
    with pytest.raises(ValueError, match="increasing"):
        CosineMap(((0.7, 0.2), (0.8, 0.1)))
    with pytest.raises(ValueError, match="at least two"):
        CosineMap(((0.7, 0.2),))


def test_the_multilingual_scale_puts_the_thresholds_high_in_its_compressed_range() -> None:
    scale = scale_of(MultilingualEmbedder())
    dedup, floor = scale.passages.own(0.8), scale.queries.own(0.2)
    assert 0.93 < dedup < 0.97  # e5 puts unrelated sentences near 0.83
    assert 0.74 < floor < 0.79
    assert scale.passages.own(0.2) < scale.passages.own(0.5) < dedup
