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
        best = max(range(len(templates)), key=lambda i: scores[i].summary + scores[i].keywords)
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


def test_examples_give_a_similarity_to_their_centroid(minilm: MiniLMEmbedder) -> None:
    movie = builtin_template("builtin:movie_review")
    assert movie is not None and movie.examples
    bare = replace(movie, examples=())
    with_examples, without = similarities("Casablanca still holds up", [movie, bare], minilm, PrototypeCache())
    assert without.examples is None
    assert with_examples.examples is not None and with_examples.examples > 0.3
    assert (with_examples.summary, with_examples.keywords) == (without.summary, without.keywords)
    rows = PrototypeCache().vectors(minilm, movie)
    assert len(rows) == len(prototypes(movie)) + len(movie.trigger_keywords) + 1  # one centroid row
    assert abs(float((rows[-1] ** 2).sum()) - 1) < 1e-5


def test_small_talk_is_measured(minilm: MiniLMEmbedder) -> None:
    movie = builtin_template("builtin:movie_review")
    assert movie is not None
    bare = replace(movie, examples=())
    [with_examples, without] = similarities("Casablanca still holds up", [movie, bare], minilm, PrototypeCache())
    assert with_examples.small_talk == without.small_talk  # one value for every template
    [chat] = similarities("thanks, that's all for now", [movie], minilm, PrototypeCache())
    review_text = "Watched Oppenheimer last night, 4/5, the score was incredible"
    [review] = similarities(review_text, [movie], minilm, PrototypeCache())
    assert chat.small_talk is not None and review.small_talk is not None
    assert chat.small_talk > review.small_talk
    [none] = similarities("thanks, that's all for now", [movie], minilm, PrototypeCache(), small_talk=())
    assert none.small_talk is None


def test_examples_rank_utterances_that_have_no_telling_word(minilm: MiniLMEmbedder) -> None:
    templates = builtin_templates()
    cases = {"Jaws still holds up, the shark looks fake but who cares": "builtin:movie_review",
             "Porto was lovely, those tiled houses everywhere": "builtin:travel_destination",
             "The garden shears are hanging behind the shed door": "builtin:inventory_item"}  # fmt: skip
    for content, expected in cases.items():
        meanings = similarities(content, templates, minilm, PrototypeCache())
        best = max(range(len(templates)), key=lambda i: meanings[i].examples or 0.0)
        assert templates[best].id == expected, content


def test_a_call_embeds_missing_templates_together_and_reuses_the_stack(minilm: MiniLMEmbedder) -> None:
    calls: list[int] = []

    def embed(texts: Sequence[str]) -> Any:
        calls.append(len(texts))
        return minilm.embed(texts)

    cache, templates = PrototypeCache(), builtin_templates()
    similarities("one", templates, embed, cache)
    assert len(calls) == 3  # every template's texts in one call, the small talk, then the content
    similarities("two", templates, embed, cache)
    assert calls[3:] == [1]
    edited = replace(templates[0], examples=("A new example about nothing much",))
    similarities("three", [edited, *templates[1:]], embed, cache)
    assert calls[4:] == [1 + len(prototypes(edited)) + len(edited.trigger_keywords), 1]  # only the edited one
