"""Semantic similarity: the real model ranks the right template, vectors are cached per version."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from remember.search.embedders import MiniLMEmbedder
from remember.templates import builtin_template, builtin_templates
from remember.templates.suggest import PrototypeCache
from remember.templates.suggest.semantic import prototypes, similarities


class Counting:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.texts = inner, inner.name, 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_prototypes_describe_name_description_and_fields() -> None:
    book = builtin_template("builtin:book_review")
    assert book is not None
    summary, fields, keywords = prototypes(book)
    assert summary.startswith("Book Review: A book")
    assert "date finished" in fields and "reading days" not in fields  # computed fields are left out
    assert keywords.startswith("Book Review: finished reading")


def test_the_real_model_ranks_paraphrases(minilm: MiniLMEmbedder) -> None:
    templates = builtin_templates()
    cases = {"We binged the whole show in one weekend": "builtin:movie_review",
             "Cooked a lasagna with fresh pasta sheets": "builtin:recipe",
             "Where the spare keys are kept": "builtin:inventory_item"}  # fmt: skip
    for content, expected in cases.items():
        scores = similarities(content, templates, minilm, PrototypeCache())
        best = max(range(len(templates)), key=lambda i: scores[i][0] + scores[i][1])
        assert templates[best].id == expected, content


def test_vectors_are_computed_once_per_template_version(minilm: MiniLMEmbedder) -> None:
    counting, cache = Counting(minilm), PrototypeCache()
    templates = builtin_templates()[:3]
    similarities("hello", templates, counting, cache)
    first = counting.texts
    similarities("another text", templates, counting, cache)
    assert counting.texts == first + 1  # only the content
    bumped = replace(templates[0], version="2.0")
    similarities("again", [bumped], counting, cache)
    assert counting.texts > first + 2
    assert len(cache) == 4


def test_an_edit_without_a_new_version_is_still_seen(minilm: MiniLMEmbedder) -> None:
    counting, cache = Counting(minilm), PrototypeCache()
    template = builtin_templates()[0]
    similarities("x", [template], counting, cache)
    before = counting.texts
    similarities("x", [replace(template, description="Something else entirely")], counting, cache)
    assert counting.texts > before + 1


def test_the_cache_is_bounded(minilm: MiniLMEmbedder) -> None:
    cache = PrototypeCache(capacity=2)
    similarities("x", builtin_templates()[:5], minilm, cache)
    assert len(cache) == 2


def test_a_plain_callable_works_as_an_embedder(minilm: MiniLMEmbedder) -> None:
    templates = builtin_templates()[:2]
    assert similarities("x", templates, minilm.embed, PrototypeCache()) == similarities(
        "x", templates, minilm, PrototypeCache()
    )


def test_importing_the_engine_loads_no_numpy_or_onnx() -> None:
    code = "import sys, remember.templates.suggest; print('numpy' in sys.modules, 'onnxruntime' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
