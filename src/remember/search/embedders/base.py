"""The `Embedder` protocol every embedding backend follows, and the helpers they share.

numpy is imported inside functions, not at module level, so that importing the
package (at server start) costs nothing until the first text is embedded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vectors = NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors, comparable by dot product.

    ``name`` identifies the model (``"onnx:all-MiniLM-L6-v2-int8"``) and is stored
    with the vectors together with ``dimension``, so that a change of embedder is
    detected and the vectors rebuilt. Implementations are safe to call from
    several threads at once.

    Not ``runtime_checkable`` on purpose: on Python 3.11 an ``isinstance`` check
    reads every property, and reading ``dimension`` may ask a server.
    """

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text: shape ``(len(texts), dimension)``."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """The vector of one text: shape ``(dimension,)``."""
        ...


@runtime_checkable
class LocalModel(Protocol):
    """An embedder whose model runs in this process and can be loaded before its first text."""

    def load(self) -> None:
        """Load the model now rather than on first use."""
        ...


def l2_normalise(rows: Vectors) -> Vectors:
    """Rows scaled to unit length; an all-zero row stays zero instead of becoming NaN."""
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: Vectors = (rows / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return unit


def empty_vectors(dimension: int) -> Vectors:
    """The answer to embedding no texts: shape ``(0, dimension)``."""
    import numpy as np

    return np.zeros((0, dimension), dtype=np.float32)
