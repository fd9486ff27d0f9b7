"""Turning memories into index entries: keyword text, date words and vectors.

The embedder is loaded on first use. Its name and dimension are recorded in the
database the first time a vector is written; when the configured embedder
differs from the recorded one, no new vectors are written (memories stay
findable by keywords) and semantic search explains that `remember reindex`
rebuilds the vectors with the new embedder.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from remember.errors import ConfigError, StoreError
from remember.models import IndexEntry, Memory, Progress
from remember.search import text
from remember.store import Store

if TYPE_CHECKING:
    from remember.search.embedders import Embedder
    from remember.search.embedders.scale import CosineScale

MODEL_KEY, DIMENSION_KEY = "embedding_model", "embedding_dimension"


class Indexer:
    def __init__(self, store: Store, embedder: Embedder | None) -> None:
        self.store = store
        self.embedder = embedder
        self._state: str | None = None  # "ready", "mismatch" or "off", decided on first use
        self._lock = threading.Lock()

    def entry(self, memory: Memory, fields_text: str | None, *, vector: bytes | None = None) -> IndexEntry:
        """The index entry of ``memory``; ``vector`` is reused when given, else computed."""
        if vector is None:
            vector = self.vectors([text.vector_text(memory.title, memory.content)])[0]
        return IndexEntry(self.keyword_text(memory, fields_text), text.date_text(memory.occurred_at), vector)

    def entries(self, batch: Sequence[tuple[Memory, str | None]]) -> list[IndexEntry]:
        """Entries for many memories, embedding them in batches."""
        vectors = self.vectors([text.vector_text(m.title, m.content) for m, _ in batch])
        return [
            IndexEntry(self.keyword_text(m, f), text.date_text(m.occurred_at), v)
            for (m, f), v in zip(batch, vectors, strict=True)
        ]

    @staticmethod
    def keyword_text(memory: Memory, fields_text: str | None) -> str:
        return text.index_text(memory.title, memory.content, memory.tags, fields_text)

    def vectors(self, texts: Sequence[str]) -> list[bytes | None]:
        if not texts or self.state() != "ready":
            return [None] * len(texts)
        assert self.embedder is not None
        # One call: the embedder sorts by length and batches itself, so padding stays small.
        return [row.astype("<f4").tobytes() for row in self.embedder.embed(list(texts))]

    def memory_vectors(self, user_id: str, memories: Sequence[Memory]) -> Any:
        """A float32 row per memory, in order: the vector the index holds where the configured embedder made it,
        else its title and text embedded now (and not stored). ``ConfigError`` without an embedder."""
        import numpy as np

        if self.embedder is None:
            raise ConfigError("This needs the embedding model, and no embedder is configured.")
        stored = self.store.index.get_vectors(user_id, [m.id for m in memories]) if self.state() == "ready" else {}
        whole = 4 * int(self.store.index.index_settings().get(DIMENSION_KEY, "0")) if stored else 0
        rows = {memory_id: np.frombuffer(vector, dtype="<f4") for memory_id, vector in stored.items()
                if len(vector) == whole}  # fmt: skip
        missing = [m for m in memories if m.id not in rows]
        if missing:
            made = self.embedder.embed([text.vector_text(m.title, m.content) for m in missing])
            rows.update(zip((m.id for m in missing), made, strict=True))
        return np.stack([rows[m.id] for m in memories]) if memories else np.zeros((0, 0), dtype=np.float32)

    def load_model(self) -> None:
        """Load the embedder's model now if it runs in this process (else it loads on its first text)."""
        from remember.search.embedders.base import LocalModel

        if isinstance(self.embedder, LocalModel):
            self.embedder.load()

    def build_vector_index(self, user_id: str, progress: Progress | None = None) -> bool:
        """After a bulk write (an import, a reindex): the user's approximate vector index built now,
        in bulk, where their searches use one, so that no search waits for it; False where none is."""
        if self.state() != "ready":
            return False
        return self.store.index.build_vector_index(user_id, self.dimension, progress)

    def build_keyword_index(self, user_id: str, progress: Progress | None = None) -> bool:
        """After a bulk write: the user's ranked keyword index built now, where their searches use one."""
        return self.store.index.build_keyword_index(user_id, progress)

    def query_row(self, query: str) -> bytes | None:
        """A query's vector as the index stores vectors; None where none can be made (as ``vectors``)."""
        if self.state() != "ready":
            return None
        assert self.embedder is not None
        row: bytes = self.embedder.embed_query(query).astype("<f4").tobytes()
        return row

    def passage_vector(self, passage: str) -> Any:
        """The unit vector of a stored text computed now (as ``vectors`` would), or ConfigError as ``query_vector``."""
        self.query_vector_ready()
        assert self.embedder is not None
        return self.embedder.embed([passage])[0]

    @property
    def crosses_languages(self) -> bool:
        """Whether the embedder's vectors bring a question to a memory written in another language."""
        return self.state() == "ready" and bool(getattr(self.embedder, "crosses_languages", False))

    @property
    def scale(self) -> CosineScale:
        """Where the embedder's cosines stand on the common scale of every cosine threshold (``scale.py``)."""
        from remember.search.embedders.scale import scale_of

        return scale_of(self.embedder)

    def query_vector_ready(self) -> None:
        """ConfigError saying why semantic search cannot run, if it cannot."""
        state = self.state()
        if state == "off":
            raise ConfigError("Semantic search is off: no embedder is configured. Use alpha 0 (keywords only).")
        if state == "mismatch":
            raise ConfigError(self.mismatch_message())

    def query_vector(self, query: str) -> Any:
        """The unit vector of a query, or ConfigError saying why semantic search cannot run."""
        self.query_vector_ready()
        assert self.embedder is not None
        return self.embedder.embed_query(query)

    @property
    def embedder_name(self) -> str | None:
        return self.embedder.name if self.embedder is not None else None

    @property
    def dimension(self) -> int:
        assert self.embedder is not None
        return int(self.embedder.dimension)

    def state(self) -> str:
        with self._lock:
            if self._state is None:
                self._state = self._decide()
            return self._state

    def mismatch_message(self) -> str:
        recorded = self.store.index.index_settings()
        assert self.embedder is not None
        return (
            f"The stored vectors were made by {recorded.get(MODEL_KEY)} ({recorded.get(DIMENSION_KEY)} dimensions) "
            f"but the configured embedder is {self.embedder.name} ({self.embedder.dimension} dimensions). "
            "Run `remember reindex` to rebuild the vectors, or configure the embedder they were made with."
        )

    def warn_at_start(self) -> None:
        """At start: log (stderr) when the stored vectors were made by another model than the configured
        one, and what the database's server would need to search them fast."""
        for advice in self.store.index.sizing_advice():
            logging.getLogger("remember").warning("%s", advice)
        recorded = self.store.index.index_settings().get(MODEL_KEY)
        if self.embedder is not None and recorded is not None and recorded != self.embedder.name:
            logging.getLogger("remember").warning(
                "The stored vectors were made by %s but the configured embedder is %s: semantic search "
                "is off until `remember reindex` rebuilds them.",
                recorded,
                self.embedder.name,
            )

    def adopt(self) -> None:
        """Record the configured embedder as the one the vectors are made by (after a reindex)."""
        assert self.embedder is not None
        self.store.index.set_index_settings(
            {MODEL_KEY: self.embedder.name, DIMENSION_KEY: str(self.embedder.dimension)}
        )
        with self._lock:
            self._state = "ready"

    def _decide(self) -> str:
        if self.embedder is None:
            return "off"
        recorded = self.store.index.index_settings()
        if MODEL_KEY not in recorded:
            try:
                self.store.index.set_index_settings(
                    {MODEL_KEY: self.embedder.name, DIMENSION_KEY: str(self.embedder.dimension)}
                )
            except StoreError:  # a read-only or full database: no vector is written to it either
                logging.getLogger("remember").debug("The embedder could not be recorded; the database is read-only")
            return "ready"
        same = recorded.get(MODEL_KEY) == self.embedder.name
        return "ready" if same and recorded.get(DIMENSION_KEY) == str(self.embedder.dimension) else "mismatch"
