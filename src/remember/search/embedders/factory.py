"""Choose an embedder from configuration: ``onnx`` (the default), ``multilingual``, ``openai`` or ``hash``."""

from __future__ import annotations

from pathlib import Path

from remember.errors import ConfigError, excerpt
from remember.search.embedders.base import Embedder
from remember.search.embedders.hashing import HashEmbedder
from remember.search.embedders.minilm import MiniLMEmbedder
from remember.search.embedders.multilingual import MultilingualEmbedder
from remember.search.embedders.openai_compat import OpenAIEmbedder

KINDS = ("onnx", "multilingual", "openai", "hash")
_MULTILINGUAL_MODELS = ("multilingual-e5-small", "multilingual-e5-small-q4")
_ONNX_MODELS = ("all-MiniLM-L6-v2", "all-minilm-l6-v2", "all-MiniLM-L6-v2-int8")


def embedder_from_config(
    kind: str = "onnx",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    cache_dir: Path | None = None,
) -> Embedder:
    """The embedder a configuration asks for; nothing is loaded or contacted yet.

    ``onnx`` runs the bundled all-MiniLM-L6-v2 locally (``model`` may only name it); ``multilingual``
    runs multilingual-e5-small locally (the extra ``remember[multilingual]``; checked on first use);
    ``openai`` calls an OpenAI-compatible server and needs ``base_url`` and ``model``;
    ``hash`` is the feature-hashing embedder meant for unit tests. ``cache_dir``: where ``onnx`` keeps its model
    with the products in int8 between processes (``kept_graph.py``).
    """
    chosen = (kind or "onnx").strip().lower()
    if chosen == "onnx":
        if model and model not in _ONNX_MODELS:
            raise ConfigError(
                f"The onnx embedder only runs the bundled all-MiniLM-L6-v2, not {excerpt(model)}. Serve other "
                "models through an OpenAI-compatible server (Ollama, vLLM) with REMEMBER_EMBEDDER=openai."
            )
        return MiniLMEmbedder(cache_dir=cache_dir)
    if chosen == "multilingual":
        if model and model not in _MULTILINGUAL_MODELS:
            raise ConfigError(
                f"The multilingual embedder only runs multilingual-e5-small, not {excerpt(model)}: unset "
                "REMEMBER_EMBEDDER_MODEL, or serve another model through REMEMBER_EMBEDDER=openai."
            )
        return MultilingualEmbedder()
    if chosen == "openai":
        if not base_url:
            raise ConfigError(
                "The openai embedder needs a base URL (REMEMBER_EMBEDDER_URL), e.g. "
                "http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1."
            )
        if not model:
            raise ConfigError(
                "The openai embedder needs a model name (REMEMBER_EMBEDDER_MODEL), e.g. nomic-embed-text."
            )
        return OpenAIEmbedder(base_url, model, api_key=api_key)
    if chosen == "hash":
        return HashEmbedder()
    raise ConfigError(f"Unknown embedder kind {excerpt(kind)} (REMEMBER_EMBEDDER): choose one of {', '.join(KINDS)}.")
