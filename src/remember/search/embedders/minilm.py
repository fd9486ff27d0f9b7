"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) run locally by ONNX Runtime.

No PyTorch and no network: the model file comes from an installed package and
is checked against a pinned sha256, the tokenizer is vendored. Nothing heavy
happens until the first text is embedded, so that constructing the embedder
(at server start) is free. ONNX Runtime and tokenizers only ever log to stderr,
and only errors: stdout carries the MCP protocol.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remember.errors import ConfigError
from remember.search.embedders.base import empty_vectors, l2_normalise
from remember.search.embedders.heap import release_freed_memory
from remember.search.embedders.model_files import (
    MODEL_SHA256,
    default_model_path,
    default_tokenizer_path,
    verify_model_file,
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
#: Padded tokens in one run of the model (rows times the longest row). Small batches of
#: short texts share the model's per-call cost; a big batch of long ones is slower per
#: text than one text at a time (its activations are allocated afresh for every layer).
BATCH_TOKENS = 512
_ORT_LOG_ERROR = 3


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (untyped)
    input_names: frozenset[str]
    tokenizer: Tokenizer


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through ONNX Runtime; 384 dimensions; loads on first use.

    ``threads`` defaults to the cores this process may run on. Texts longer than
    256 tokens are truncated. A call's texts are sorted by length and run in
    batches of at most ``batch_size`` texts and ``batch_tokens`` padded tokens, so
    that little time is spent on padding; the rows come back in the order the
    texts were given. The rows of the last few single
    texts are kept and given again for the same text: a text alone is always padded
    the same way, so the row is the one the model would compute.
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        expected_sha256: str = MODEL_SHA256,
        batch_size: int = 64,
        batch_tokens: int = BATCH_TOKENS,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"The embedding batch size must be at least 1, not {batch_size}.")
        if batch_tokens < 1:
            raise ConfigError(f"The embedding batch's token budget must be at least 1, not {batch_tokens}.")
        self.name = "onnx:all-MiniLM-L6-v2-int8"
        self.dimension = DIMENSION
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._expected_sha256 = expected_sha256
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._threads = threads if threads is not None else _available_cores()
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, Vectors] = OrderedDict()
        self._recent_lock = threading.Lock()
        self.recent_hits = 0  # single texts answered from the recent ones, not the model

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (it loads on the first `embed`, or on `load`)."""
        return self._runtime is not None

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
        vectors = np.empty((len(token_ids), self.dimension), dtype=np.float32)
        batches = plan_batches([len(ids) for ids in token_ids], self._batch_size, self._batch_tokens)
        for rows in batches:
            vectors[rows] = _embed_batch(runtime, [token_ids[i] for i in rows])
        if len(batches) > 1:  # the batches' activations were freed: give them back
            release_freed_memory()
        return vectors

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
        verify_model_file(model_path, self._expected_sha256)
        session = _open_session(model_path, self._threads)
        release_freed_memory()  # what the graph optimiser freed (~60 MB of the ~150 it took)
        names = frozenset(str(i.name) for i in session.get_inputs())
        return _Runtime(session, names, _open_tokenizer(self._tokenizer_path or default_tokenizer_path()))


def plan_batches(lengths: Sequence[int], max_rows: int, max_tokens: int) -> list[list[int]]:
    """Indexes of texts (by their token counts) grouped into batches, shortest texts first.

    A batch holds at most ``max_rows`` texts and, padded to its longest, at most
    ``max_tokens`` tokens; a text longer than the budget is a batch of its own.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    for index in order:
        batch = batches[-1] if batches else None
        # Sorted by length, so this text is the batch's longest once added.
        if batch is not None and len(batch) < max_rows and (len(batch) + 1) * lengths[index] <= max_tokens:
            batch.append(index)
        else:
            batches.append([index])
    return batches


def _embed_batch(runtime: _Runtime, token_ids: list[list[int]]) -> Vectors:
    """Pad one batch to its longest text, run the model, mean-pool over real tokens."""
    import numpy as np

    width = max(len(ids) for ids in token_ids)
    input_ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros((len(token_ids), width), dtype=np.int64)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = ids
        mask[row, : len(ids)] = 1
    feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
    feeds = {name: array for name, array in feeds.items() if name in runtime.input_names}
    hidden = runtime.session.run(["last_hidden_state"], feeds)[0]
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return l2_normalise(pooled.astype(np.float32))


def _open_session(model_path: Path, threads: int) -> Any:
    import onnxruntime as ort  # type: ignore[import-untyped]

    ort.set_default_logger_severity(_ORT_LOG_ERROR)
    ort.disable_telemetry_events()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Measured on this model (2 cores): basic graph optimisation runs as fast as "all",
    # and without the memory arena a batch of long texts no longer grows the process
    # by gigabytes (the arena keeps its peak for the life of the session).
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    # Idle worker threads would spin on the cores that numpy and SQLite need next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = _ORT_LOG_ERROR
    try:
        return ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
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
