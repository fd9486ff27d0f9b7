"""An embedder that remembers its vectors in a file, so that a benchmark run embeds each text once.

Retrieval benchmarks embed tens of thousands of turns; on a shared machine each
experiment should not pay for that again. Vectors are kept in a SQLite file
under ``.cache/`` named after the model file's sha256 and how it computes (a
changed model or computation is a new file), keyed by the sha256 of the text. The service sees an ordinary embedder.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache" / "embeddings"


class CachedEmbedder:
    def __init__(self, inner: Any, model_key: str, directory: Path = CACHE_DIR) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        # What the service reads of an embedder besides its vectors (search/embedders/scale.py, fusion).
        for attribute in ("scale", "crosses_languages"):
            if hasattr(inner, attribute):
                setattr(self, attribute, getattr(inner, attribute))
        directory.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(directory / f"{model_key}.sqlite"), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        self._lock = threading.Lock()
        self.computed = 0

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        keys = [hashlib.sha256(t.encode()).digest() for t in texts]
        found = self._lookup(set(keys))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            first = dict(zip(keys, texts, strict=True))
            rows = self.inner.embed([first[k] for k in missing])
            fresh = {k: np.asarray(r, dtype="<f4").tobytes() for k, r in zip(missing, rows, strict=True)}
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", list(fresh.items()))
                self._db.commit()
            found.update(fresh)
            self.computed += len(missing)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype="<f4")
        return out

    def embed_query(self, text: str) -> Any:
        """A query's vector; kept apart from a memory's of the same text where the model reads them apart (e5)."""
        import numpy as np

        if not self.separate_queries:
            return self.embed([text])[0]
        key = b"query:" + hashlib.sha256(text.encode()).digest()
        found = self._lookup({key})
        if key not in found:
            row = np.asarray(self.inner.embed_query(text), dtype="<f4").tobytes()
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (key, row))
                self._db.commit()
            found[key] = row
        return np.frombuffer(found[key], dtype="<f4").copy()

    @property
    def separate_queries(self) -> bool:
        return type(self.inner).__name__ == "MultilingualEmbedder"

    def _lookup(self, keys: set[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        ordered = list(keys)
        with self._lock:
            for start in range(0, len(ordered), 500):
                chunk = ordered[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk))
        return found


def cached_e5() -> CachedEmbedder:
    from remember.search.embedders import MultilingualEmbedder
    from remember.search.embedders.e5_files import MODEL_SHA256

    return CachedEmbedder(MultilingualEmbedder(), f"e5-{MODEL_SHA256[:16]}")


def cached_minilm() -> CachedEmbedder:
    from remember.search.embedders import MiniLMEmbedder
    from remember.search.embedders.int8_graph import COMPUTATION
    from remember.search.embedders.model_files import MODEL_SHA256

    return CachedEmbedder(MiniLMEmbedder(), f"{MODEL_SHA256[:16]}-{COMPUTATION}")
