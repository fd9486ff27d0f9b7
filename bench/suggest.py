"""Template suggestion figures: accuracy on the labelled sets with and without the embedder, and latency.

Accuracy uses the fifteen built-ins at the default threshold and limit:
top-1 is the share of matching utterances whose first suggestion is the
labelled template, top-3 the share where it is among the suggestions, and
"none clear" the share of non-matching utterances that get no suggestion.
Latency is one ``suggest`` call (content embedding included) over fifty
templates: the built-ins and 35 synthetic ones. ``fit`` reproduces how the
weights in ``remember.templates.suggest.score`` were chosen, on the dev set only.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import Table, percentiles
from remember.templates import TemplateDefinition, builtin_templates, parse_template
from remember.templates.suggest import DEFAULT_LIMIT, DEFAULT_THRESHOLD, EmbedderLike, score_templates, suggest
from remember.templates.suggest.score import Signals
from remember.templates.suggest.small_talk import SMALL_TALK

DATA = Path(__file__).resolve().parents[1] / "tests" / "templates" / "suggest" / "data"
NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)
# The fields of ``score.Weights``, in the order of ``_features``.
FEATURES = ("bias", "keywords", "summary", "keyword_meaning", "context", "fields", "request", "examples",
            "small_talk")  # fmt: skip


def labelled(name: str) -> list[tuple[str, str | None]]:
    """(utterance, template id or None) pairs of ``dev`` or ``test``."""
    lines = (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [(row["text"], row["template"]) for row in map(json.loads, lines) if row]


def accuracy(
    rows: list[tuple[str, str | None]], embedder: EmbedderLike | None, templates: tuple[TemplateDefinition, ...]
) -> dict[str, Any]:
    """top1, top3 and none_clear over ``rows``, with the misses for inspection."""
    top1 = top3 = clear = matching = 0
    misses: list[dict[str, Any]] = []
    for text, label in rows:
        found = [s.template_id for s in suggest(text, templates, now=NOW, embedder=embedder)]
        if label is None:
            clear += not found
        else:
            matching += 1
            top1 += bool(found) and found[0] == label
            top3 += label in found
        if (label is None and found) or (label is not None and (not found or found[0] != label)):
            misses.append({"text": text, "label": label, "suggested": found})
    none = len(rows) - matching
    return {"top1": top1 / matching, "top3": top3 / matching, "none_clear": clear / none, "misses": misses}


def synthetic_templates(count: int, seed: int = 7) -> list[TemplateDefinition]:
    """Plausible user templates with keywords, context and a handful of fields."""
    rng = random.Random(seed)
    words = ["garden", "plant", "wine", "tea", "coffee", "guitar", "chess", "bird", "hike", "car", "bike", "dog",
             "cat", "game", "podcast", "album", "concert", "museum", "course", "exam", "patient", "client", "invoice",
             "lease", "repair", "doctor", "medicine", "workout", "race", "climb", "sketch", "poem", "trade",
             "stock"]  # fmt: skip
    kinds = ["string", "text", "number", "date", "boolean", "integer"]
    made = []
    for index in range(count):
        topic = rng.sample(words, 3)
        fields = [{"name": "title", "type": "string", "required": True}]
        fields += [{"name": f"{topic[i % 3]}_{i}", "type": rng.choice(kinds)} for i in range(rng.randint(3, 9))]
        made.append(parse_template({
            "id": f"user:{index}", "name": f"{topic[0].title()} {topic[1]} log",
            "description": f"Notes about {topic[0]}, {topic[1]} and {topic[2]}.", "auto_apply": True,
            "trigger_keywords": [*topic, f"my {topic[0]}", f"{topic[1]} session", f"new {topic[2]}"],
            "trigger_context": {"time_of_day": ["evening"]} if index % 3 == 0 else {}, "fields": fields,
        }))  # fmt: skip
    return made


def latency(embedder: EmbedderLike | None, rounds: int) -> dict[str, float]:
    """Milliseconds per ``suggest`` call over 50 templates, prototype vectors already cached."""
    templates = (*builtin_templates(), *synthetic_templates(35))
    texts = [text for text, _ in labelled("test")]
    suggest(texts[0], templates, now=NOW, embedder=embedder)  # warm the model and the caches
    samples = []
    for index in range(rounds):
        started = time.perf_counter()
        suggest(texts[index % len(texts)], templates, now=NOW, embedder=embedder)
        samples.append((time.perf_counter() - started) * 1000)
    return percentiles(samples)


def run(quick: bool) -> dict[str, Any]:
    """Print and return the accuracy and latency figures."""
    from remember.search.embedders import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    builtins = builtin_templates()
    figures: dict[str, Any] = {"threshold": DEFAULT_THRESHOLD, "limit": DEFAULT_LIMIT}
    table = Table(
        "Template suggestions (15 built-ins, threshold 0.5)", ["set", "signals", "top-1", "top-3", "none clear"]
    )
    for name in ("dev", "test"):
        rows = labelled(name)
        for label, model in (("keywords + context + MiniLM with examples", embedder), ("keywords + context", None)):
            result = accuracy(rows, model, builtins)
            figures[f"{name}:{'embedder' if model else 'keywords'}"] = {
                k: v for k, v in result.items() if k != "misses"
            }
            table.add(f"{name} ({len(rows)})", label, result["top1"], result["top3"], result["none_clear"])
    table.print()
    rounds = 50 if quick else 400
    timing = Table("Suggestion latency, 50 templates (ms)", ["signals", "p50", "p95", "n"])
    for label, model in (("with MiniLM", embedder), ("keywords only", None)):
        figures[f"latency:{label}"] = result = latency(model, rounds)
        timing.add(label, result["p50"], result["p95"], result["n"])
    timing.print()
    return figures


def fit(
    embedder: EmbedderLike | None,
    *,
    examples: bool = True,
    held: dict[str, float] | None = None,
    positive_weight: float = 14.0,
    none_weight: float = 6.0,
    dev_weight: float = 3.0,
    l2: float = 1e-4,
    steps: int = 6000,
) -> dict[str, float]:
    """Logistic regression of the signals (how the weights were chosen); returns ``Weights`` fields.

    Every (utterance, template) pair is a row, 1 for the right template and 0
    otherwise. The utterances are the dev set (weighted ``dev_weight``), every
    built-in example as an utterance of its own template (scored against its
    template with that example left out) and every small-talk utterance as one
    that fits none (scored with itself left out of the small-talk centroid).
    Right pairs are weighted ``positive_weight`` and the pairs of an utterance
    that fits none ``none_weight``, so that 0.5 is a useful threshold. The
    examples, written apart from the labelled sets, are most of the data: with
    the dev set alone the keyword weight came out twice as high, because the
    trigger keywords were tuned on the dev set (88% of its utterances match one
    of their template's keywords; 38% of the examples do).

    ``held`` fixes some weights instead of fitting them; by default the context
    weight is held at 0.2 (the labelled sets carry no caller context) and, when
    the templates have examples, the two description and keyword similarities
    at 0 (beside the example similarities their fitted weights are noise). With
    ``examples=False`` the built-ins are scored without their example utterances
    (the weights for templates that have none); the examples are still utterances.
    """
    import numpy as np

    if held is None:
        held = {"context": 0.2, "summary": 0.0, "keyword_meaning": 0.0} if examples else {"context": 0.2}
    builtins = builtin_templates()
    bare = tuple(replace(t, examples=()) for t in builtins)
    rows: list[list[float]] = []
    labels: list[float] = []
    weights: list[float] = []

    def add(text: str, label: str | None, templates: tuple[TemplateDefinition, ...], weight: float,
            small_talk: tuple[str, ...] = SMALL_TALK) -> None:  # fmt: skip
        for score in score_templates(text, templates, now=NOW, embedder=embedder, small_talk=small_talk):
            right = score.definition.id == label
            rows.append(_features(score.signals))
            labels.append(1.0 if right else 0.0)
            weights.append(weight * (positive_weight if right else none_weight if label is None else 1.0))

    for text, label in labelled("dev"):
        add(text, label, builtins if examples else bare, dev_weight)
    for position, template in enumerate(builtins):
        for index, example in enumerate(template.examples):
            if examples:
                left_out = replace(template, examples=template.examples[:index] + template.examples[index + 1 :])
                add(example, template.id, (*builtins[:position], left_out, *builtins[position + 1 :]), 1.0)
            else:
                add(example, template.id, bare, 1.0)
    for index, text in enumerate(SMALL_TALK):
        add(text, None, builtins if examples else bare, 1.0, SMALL_TALK[:index] + SMALL_TALK[index + 1 :])
    x, y, weight = np.array(rows), np.array(labels), np.array(weights)
    coefficients, free = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
    for name, value in held.items():
        coefficients[FEATURES.index(name)], free[FEATURES.index(name)] = value, 0.0
    if not examples or embedder is None:
        free[FEATURES.index("examples")] = 0.0
    if embedder is None:
        free[FEATURES.index("small_talk")] = 0.0
    for _ in range(steps):
        predicted = 1 / (1 + np.exp(-x @ coefficients))
        gradient = x.T @ ((predicted - y) * weight) / len(y) + l2 * np.r_[0, coefficients[1:]]
        coefficients -= 0.5 * gradient * free
    return {name: round(float(c), 2) for name, c in zip(FEATURES, coefficients, strict=True)}


def _features(signals: Signals) -> list[float]:
    """The signals in the order of ``FEATURES`` (the request and small talk negated, as they are subtracted)."""
    values = [1.0, signals.keywords.score, signals.summary, signals.keyword_meaning, signals.context.score,
              min(len(signals.fillable), 2) / 2, -float(signals.request), signals.examples,
              -(signals.small_talk or 0.0)]  # fmt: skip
    return [0.0 if v is None else float(v) for v in values]
