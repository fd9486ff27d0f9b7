"""Template suggestions: which templates fit what the user said, with the values already readable.

A pure part of the template engine: keyword, context and semantic signals
combined into one confidence per template (``score``), prefill extracted
without a model (``prefill``), and the bounded adjustment learned from what a
user accepts (``learning``). The embedder is passed in, never imported, so
importing this package loads neither numpy nor ONNX Runtime.
docs/suggestions.md describes the formula, the signals and the figures.
"""

from remember.templates.suggest.engine import (
    DEFAULT_LIMIT,
    DEFAULT_THRESHOLD,
    Suggestion,
    TemplateScore,
    score_templates,
    suggest,
)
from remember.templates.suggest.learning import MAX_ADJUSTMENT, TemplateStats, acceptance_rate, adjustment
from remember.templates.suggest.prefill import Extracted, extract, prefill
from remember.templates.suggest.semantic import EmbedderLike, PrototypeCache, SupportsEmbed
from remember.templates.suggest.situation import SUPPORTED_KEYS as SUPPORTED_CONTEXT_KEYS

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_THRESHOLD",
    "MAX_ADJUSTMENT",
    "SUPPORTED_CONTEXT_KEYS",
    "EmbedderLike",
    "Extracted",
    "PrototypeCache",
    "Suggestion",
    "SupportsEmbed",
    "TemplateScore",
    "TemplateStats",
    "acceptance_rate",
    "adjustment",
    "extract",
    "prefill",
    "score_templates",
    "suggest",
]
