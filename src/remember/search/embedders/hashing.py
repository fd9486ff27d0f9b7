"""A tiny deterministic feature-hashing embedder, for unit tests only.

It knows no meaning: texts that share words get similar vectors, paraphrases do
not. It exists so that tests of code *around* embeddings (storage, fusion,
reindexing) run in microseconds; never use it as the default, and never as the
only test of search quality (those run the real model).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from remember.errors import ConfigError
from remember.search.embedders.base import empty_vectors, l2_normalise

if TYPE_CHECKING:
    from remember.search.embedders.base import Vectors

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Words and word pairs hashed (blake2b, so stable across processes) into signed buckets."""

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise ConfigError(f"The hash embedder needs at least 8 dimensions, not {dimension}.")
        self.name = f"hash:{dimension}"
        self.dimension = dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for a single text")
        if not texts:
            return empty_vectors(self.dimension)
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in _features(text):
                digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
                rows[row, digest % self.dimension] += 1.0 if digest >> 63 else -1.0
        return l2_normalise(rows)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector


def _features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    if not words:
        # A fixed feature keeps the row non-zero, so it can still be normalised.
        return ["\x00empty"]
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
