"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) run locally by ONNX Runtime.

Its matrix products run in int8 (``int8_graph``), exactly on every CPU
(``int8_kernel``), one text at a time, the texts of a call spread over the
cores: a text's vector depends neither on the others nor on the CPU's int8 kernel.

No PyTorch and no network: the model file comes from an installed package and
is checked against a pinned sha256, the tokenizer is vendored. Given a cache
folder, the edited model is kept there for the next process (``kept_graph``).
Nothing heavy happens until the first text is embedded (or ``load``), so that
constructing the embedder (at server start) is free. ONNX Runtime and tokenizers only ever log to stderr,
and only errors: stdout carries the MCP protocol.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from remember.errors import ConfigError
from remember.search.embedders.base import empty_vectors, l2_normalise
from remember.search.embedders.heap import release_freed_memory
from remember.search.embedders.int8_graph import COMPUTATION, Weights, int8_products
from remember.search.embedders.int8_kernel import exact_weights
from remember.search.embedders.kept_graph import KeptGraph, graph_key
from remember.search.embedders.model_files import (
    MODEL_SHA256,
    default_model_path,
    default_tokenizer_path,
    read_verified_model,
)

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from remember.search.embedders.base import Vectors

#: The model's own limit (sentence-transformers' max_seq_length); longer texts are cut.
MAX_TOKENS = 256
DIMENSION = 384
#: Single texts whose rows are kept: storing a memory embeds its text, and the template
#: suggestions that follow embed the same text again (a few, for the threads of one server).
RECENT_TEXTS = 8
_ORT_LOG_ERROR = 3
#: How the matrix products run: ``auto`` (int8 where this CPU's kernel is exact, ``int8_kernel``),
#: int8 with the weights ``signed`` or ``unsigned``, or ``float`` (the model as published).
Products = Literal["auto", "signed", "unsigned", "float"]


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (untyped)
    input_names: frozenset[str]
    tokenizer: Tokenizer
    products: Products


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through ONNX Runtime; 384 dimensions; loads on first use.

    ``cache_dir``, when given, keeps the model with its products in int8 between processes.
    ``threads`` (default: the cores this process may run on) texts of one call are
    embedded at once, each alone on one core, so that no text is padded and none
    changes another's row. Texts longer than 256 tokens are truncated. The rows of
    the last few single texts are kept and given again for the same text: they are
    the rows the model would compute. ``products`` says how the matrix products run
    (``auto``: exactly in int8, as this CPU allows; the others are for tests and checks).
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        expected_sha256: str = MODEL_SHA256,
        threads: int | None = None,
        products: Products = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        if threads is not None and threads < 1:
            raise ConfigError(f"The embedder needs at least one thread, not {threads}.")
        self.name = "onnx:all-MiniLM-L6-v2-int8"
        self.dimension = DIMENSION
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._expected_sha256 = expected_sha256
        self._threads = threads if threads is not None else _available_cores()
        self._products = products
        self._kept = KeptGraph(cache_dir) if cache_dir is not None else None
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, Vectors] = OrderedDict()
        self._recent_lock = threading.Lock()
        self.recent_hits = 0  # single texts answered from the recent ones, not the model

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (it loads on the first `embed`, or on `load`)."""
        return self._runtime is not None

    @property
    def products(self) -> Products:
        """How the matrix products run, once loaded: ``signed`` or ``unsigned`` int8, or ``float``."""
        return self._get_runtime().products

    @property
    def identity(self) -> str:
        """What this embedder's rows depend on, naming them where they are kept outside a database
        (``kept.py``): the model (its name and pinned sha256) and how its products run. Exact int8
        products are the same on every CPU; float ones are not the int8 ones. Loads the model."""
        computation = COMPUTATION if self.products != "float" else "float-products"
        return f"{self.name}/{self._expected_sha256[:16]}/{computation}"

    def load(self) -> None:
        """Load and verify the model now rather than on first use (e.g. to warm up)."""
        self._get_runtime()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for a single text")
        if not texts:
            return empty_vectors(self.dimension)
        if len(texts) == 1:
            return self._embed_one(texts[0])
        return self._embed_many(texts)

    def _embed_one(self, text: str) -> Vectors:
        """The row of one text, from the recent ones when it was just embedded."""
        with self._recent_lock:
            row = self._recent.get(text)
            if row is not None:
                self._recent.move_to_end(text)
                self.recent_hits += 1
                return row.copy()
        row = self._embed_many([text])
        with self._recent_lock:
            self._recent[text] = row.copy()
            while len(self._recent) > RECENT_TEXTS:
                self._recent.popitem(last=False)
        return row

    def _embed_many(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        runtime = self._get_runtime()
        token_ids = [encoding.ids for encoding in runtime.tokenizer.encode_batch(list(texts))]
        workers = min(self._threads, len(token_ids))
        if workers == 1:
            rows = [_embed_alone(runtime, ids) for ids in token_ids]
        else:  # ONNX Runtime runs one session from several threads, outside the GIL
            with ThreadPoolExecutor(workers, thread_name_prefix="embed") as pool:
                rows = list(pool.map(partial(_embed_alone, runtime), token_ids))
        if len(rows) > 1:  # the texts' activations were freed: give them back
            release_freed_memory()
        return np.stack(rows)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector

    def _get_runtime(self) -> _Runtime:
        runtime = self._runtime
        if runtime is None:
            with self._lock:
                if self._runtime is None:
                    self._runtime = self._load_runtime()
                runtime = self._runtime
        return runtime

    def _load_runtime(self) -> _Runtime:
        model_path = self._model_path or default_model_path()
        _quiet_runtime()  # before the probe opens its session
        products = self._products if self._products != "auto" else (exact_weights() or "float")
        model = self._model(model_path, products)
        session = _open_session(model, model_path)
        release_freed_memory()  # what the graph optimiser freed (~60 MB of the ~150 it took)
        names = frozenset(str(i.name) for i in session.get_inputs())
        tokenizer = _open_tokenizer(self._tokenizer_path or default_tokenizer_path())
        return _Runtime(session, names, tokenizer, products)

    def _model(self, path: Path, products: Weights | Literal["float"]) -> bytes:
        """The model the session opens: the pinned file, its products in int8 unless ``float``; the edit read from
        the cache folder when it was kept there, else made (and kept)."""
        if products == "float":
            return read_verified_model(path, self._expected_sha256)
        key = graph_key(path, self._expected_sha256, products) if self._kept is not None else None
        kept = self._kept.load(key) if self._kept is not None and key is not None else None
        if kept is not None:
            return kept
        model = int8_products(read_verified_model(path, self._expected_sha256), weights=products)
        if self._kept is not None and key is not None:
            self._kept.save(key, model)
        return model


def _embed_alone(runtime: _Runtime, token_ids: list[int]) -> Vectors:
    """One text through the model, mean-pooled over its tokens and normalised."""
    import numpy as np

    ids = np.asarray([token_ids], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    feeds = {name: array for name, array in feeds.items() if name in runtime.input_names}
    hidden = runtime.session.run(["last_hidden_state"], feeds)[0]
    row: Vectors = l2_normalise(hidden.mean(axis=1, dtype=np.float32))[0]
    return row


def _quiet_runtime() -> None:
    """ONNX Runtime logs errors only, to stderr, and sends no telemetry."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    ort.set_default_logger_severity(_ORT_LOG_ERROR)
    ort.disable_telemetry_events()


def _open_session(model: bytes, model_path: Path) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # a text runs on one core; the texts of a call on several
    options.inter_op_num_threads = 1
    # Measured on this model (2 cores): the "all" graph optimisations were slower than the
    # basic ones with the int8 products; the memory arena would keep a long text's peak
    # for the life of the session.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    options.log_severity_level = _ORT_LOG_ERROR
    try:
        return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # ONNX Runtime raises its own unexported exception types
        raise ConfigError(f"ONNX Runtime cannot load the embedding model {model_path}: {exc}") from exc


def _open_tokenizer(path: Path) -> Tokenizer:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable files
        raise ConfigError(f"Cannot load the tokenizer {path}: {exc}") from exc
    # The file as published pads and truncates to 128; the model was trained for 256,
    # and padding is done per batch instead (to the batch's longest text).
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


def _available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
