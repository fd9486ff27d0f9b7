"""Choosing an embedder from configuration, and the hashing embedder meant for unit tests."""

from __future__ import annotations

import numpy as np
import pytest

from remember.errors import ConfigError
from remember.search import embedders
from remember.search.embedders import (
    Embedder,
    HashEmbedder,
    MiniLMEmbedder,
    OpenAIEmbedder,
    embedder_from_config,
)


def test_the_default_is_the_local_minilm_not_yet_loaded() -> None:
    embedder = embedder_from_config("onnx", model=None, base_url=None, api_key=None)
    assert isinstance(embedder, MiniLMEmbedder)
    assert not embedder.loaded
    assert isinstance(embedder_from_config(), MiniLMEmbedder)
    assert isinstance(embedder_from_config(" ONNX ", model="all-MiniLM-L6-v2"), MiniLMEmbedder)


def test_openai_kind_builds_an_http_embedder_without_contacting_it() -> None:
    embedder = embedder_from_config("openai", model="nomic-embed-text", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.name == "openai:nomic-embed-text"


def test_hash_kind() -> None:
    embedder = embedder_from_config("hash")
    assert isinstance(embedder, HashEmbedder)
    assert (embedder.name, embedder.dimension) == ("hash:384", 384)


@pytest.mark.parametrize(
    ("kind", "options", "message"),
    [
        (
            "bert",
            {},
            r"Unknown embedder kind 'bert' \(REMEMBER_EMBEDDER\): choose one of onnx, multilingual, openai, hash",
        ),
        ("openai", {"model": "m"}, "needs a base URL .* http://localhost:11434/v1"),
        ("openai", {"base_url": "http://localhost:11434/v1"}, "needs a model name"),
        ("openai", {"model": "m", "base_url": "file:///etc/passwd"}, "must be an http"),
        ("onnx", {"model": "bge-small"}, "only runs the bundled all-MiniLM-L6-v2"),
    ],
)
def test_unusable_configurations_are_config_errors(kind: str, options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        embedder_from_config(kind, **options)


def test_the_public_names_are_exported() -> None:
    assert set(embedders.__all__) == {
        "KINDS",
        "MODEL_SHA256",
        "Embedder",
        "HashEmbedder",
        "MiniLMEmbedder",
        "MultilingualEmbedder",
        "OpenAIEmbedder",
        "embedder_from_config",
    }
    for name in embedders.__all__:
        assert getattr(embedders, name) is not None


def test_hash_embedder_is_deterministic_normalised_and_lexical() -> None:
    embedder: Embedder = HashEmbedder(64)
    texts = ["the red fox jumps", "a red fox jumped", "quarterly tax return", "", "!!!"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, 64)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(vectors, HashEmbedder(64).embed(texts))
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    np.testing.assert_array_equal(vectors[3], vectors[4])  # no words: the same fixed vector
    assert embedder.embed([]).shape == (0, 64)
    assert embedder.embed_query("red fox").shape == (64,)


def test_hash_embedder_refuses_a_tiny_dimension_and_a_bare_string() -> None:
    with pytest.raises(ConfigError, match="at least 8"):
        HashEmbedder(4)
    with pytest.raises(TypeError, match="embed_query"):
        HashEmbedder().embed("text")  # type: ignore[arg-type]  # the mistake under test
