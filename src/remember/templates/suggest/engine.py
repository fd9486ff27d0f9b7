"""``suggest`` and ``score_templates``: which templates fit what the user just said.

The caller passes the templates the user may use (built-ins and their own,
those with ``auto_apply``, minus suppressed ones), the moment ``now`` (the
user's local time if known, for relative dates), optionally the situation
(``context``), an embedder, and per-template learning adjustments
(``learning.adjustment``). Nothing here touches a database or the network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from remember.errors import TemplateError
from remember.templates.definition import TemplateDefinition
from remember.templates.fields import FieldDef
from remember.templates.inherit import Lookup, ancestors, lookup_from, merge_fields, resolve
from remember.templates.library import builtin_lookup
from remember.templates.suggest.places import is_request
from remember.templates.suggest.prefill import Extracted, candidates, extract, prefill
from remember.templates.suggest.score import (
    KEYWORDS_ONLY,
    EmbedderWeights,
    Signals,
    Weights,
    confidence,
    reason,
    weights_for,
)
from remember.templates.suggest.semantic import (
    DEFAULT_CACHE,
    EmbedderLike,
    Meaning,
    PrototypeCache,
    embedder_key,
    similarities,
)
from remember.templates.suggest.situation import Situation, score_context
from remember.templates.suggest.small_talk import SMALL_TALK
from remember.templates.suggest.text import stems
from remember.templates.suggest.triggers import KeywordIndex, match_keywords

#: The default of the ``templates.suggestion_threshold`` preference, and of ``max_suggestions``.
DEFAULT_THRESHOLD = 0.5
DEFAULT_LIMIT = 3


@dataclass(frozen=True)
class Suggestion:
    """One suggested template, with what the content already fills."""

    template_id: str
    name: str
    description: str
    confidence: float
    reason: str
    prefill: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TemplateScore:
    """The confidence of one template before the threshold, and the signals behind it."""

    definition: TemplateDefinition
    confidence: float
    signals: Signals


def suggest(
    content: str,
    templates: Sequence[TemplateDefinition],
    *,
    now: datetime,
    context: Mapping[str, Any] | None = None,
    embedder: EmbedderLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    limit: int = DEFAULT_LIMIT,
    adjustments: Mapping[str, float] | None = None,
    lookup: Lookup | None = None,
    cache: PrototypeCache = DEFAULT_CACHE,
    keywords_apply: bool = True,
) -> list[Suggestion]:
    """The best ``limit`` templates whose confidence reaches ``threshold``, best first, with prefill.

    ``adjustments`` maps template ids to a learned shift (``learning.adjustment``)
    added to the confidence. ``lookup`` finds parent templates for prefill
    (default: the given templates, then the built-ins). ``cache`` holds the
    templates' vectors (the default one lives as long as the process).
    ``keywords_apply`` False: the content is in another language than the trigger keywords (English), so a
    template none of whose keywords it holds is weighed by the embedder's weights fitted without them.
    """
    if limit <= 0 or not content.strip():
        return []
    found = extract(content, now.date())
    scores = score_templates(content, templates, now=now, context=context, embedder=embedder,
                             adjustments=adjustments, lookup=lookup, found=found, cache=cache,
                             keywords_apply=keywords_apply)  # fmt: skip
    chosen = [score for score in scores if score.confidence >= threshold][:limit]
    parents = _lookup(templates, lookup)
    return [_suggestion(score, found, parents, now) for score in chosen]


def score_templates(
    content: str,
    templates: Sequence[TemplateDefinition],
    *,
    now: datetime,
    context: Mapping[str, Any] | None = None,
    embedder: EmbedderLike | None = None,
    adjustments: Mapping[str, float] | None = None,
    lookup: Lookup | None = None,
    found: Extracted | None = None,
    cache: PrototypeCache = DEFAULT_CACHE,
    small_talk: Sequence[str] = SMALL_TALK,
    keywords_apply: bool = True,
) -> list[TemplateScore]:
    """Every template scored, best first (ties by name); no threshold, no prefill.

    ``small_talk``: utterances that fit no template, whose centroid lowers every
    template's score the closer the content is to it (with an embedder).
    """
    found = found if found is not None else extract(content, now.date())
    words, situation, request = stems(content), Situation.read(content, context), is_request(content)
    meanings = (
        similarities(content, templates, embedder, cache, small_talk) if embedder is not None and templates else None
    )
    parents = _lookup(templates, lookup)
    fitted = weights_for(embedder_key(embedder)) if embedder is not None else None
    scores: list[TemplateScore] = []
    for position, definition in enumerate(templates):
        fillable = tuple(
            name for name, kind in _fillable(found, _fields(definition, parents)).items() if kind != "date"
        )
        meaning = meanings[position] if meanings is not None else None
        signals = Signals(
            keywords=match_keywords(words, _index(definition.trigger_keywords)),
            context=score_context(definition.trigger_context, situation),
            fillable=fillable,
            request=request,
            summary=meaning.summary if meaning else None,
            keyword_meaning=meaning.keywords if meaning else None,
            examples=meaning.examples if meaning else None,
            small_talk=meaning.small_talk if meaning else None,
        )
        weights = _weights(fitted, meaning, keywords_apply, signals.keywords.score > 0)
        shift = (adjustments or {}).get(definition.id, 0.0)
        value = min(1.0, max(0.0, confidence(signals, weights) + shift))
        scores.append(TemplateScore(definition, round(value, 4), signals))
    return sorted(scores, key=lambda score: (-score.confidence, score.definition.name))


def _weights(fitted: EmbedderWeights | None, meaning: Meaning | None, keywords_apply: bool, matched: bool) -> Weights:
    """The weights for one template: the keyword-only ones without an embedder; else the embedder's for a
    template without or with examples, and for a note in another language than the keywords that holds none
    of them, its weights fitted without keywords (where it has some)."""
    if meaning is None or fitted is None:
        return KEYWORDS_ONLY
    if meaning.examples is None:
        return fitted.with_embedder
    if not keywords_apply and not matched and fitted.without_keywords is not None:
        return fitted.without_keywords
    return fitted.with_examples


def _suggestion(score: TemplateScore, found: Extracted, parents: Lookup, now: datetime) -> Suggestion:
    definition = score.definition
    try:
        values = prefill(found, resolve(definition, parents), now)
    except TemplateError:
        values = {}  # a template that no longer resolves is still suggested, without prefill
    return Suggestion(definition.id, definition.name, definition.description, score.confidence,
                      reason(score.signals), values)  # fmt: skip


def _fillable(found: Extracted, fields: tuple[FieldDef, ...]) -> dict[str, str]:
    """Field name -> the kind of value the content offers it (before validation)."""
    proposed = candidates(found, fields, readers=False)
    return {name: "date" if _is_date(fields, name) else "value" for name in proposed}


def _is_date(fields: tuple[FieldDef, ...], name: str) -> bool:
    return any(f.name == name and f.type in ("date", "datetime") for f in fields)


def _fields(definition: TemplateDefinition, parents: Lookup) -> tuple[FieldDef, ...]:
    """Own and inherited fields; just the own ones when the parent chain is broken."""
    if definition.parent_template_id is None:
        return definition.fields
    try:
        chain = ancestors(definition, parents)
    except TemplateError:
        return definition.fields
    return merge_fields([*reversed(chain), definition])


def _lookup(templates: Sequence[TemplateDefinition], lookup: Lookup | None) -> Lookup:
    if lookup is not None:
        return lookup
    given = lookup_from(templates)
    builtins = builtin_lookup()
    return lambda template_id: given(template_id) or builtins(template_id)


@lru_cache(maxsize=4096)
def _index(keywords: tuple[str, ...]) -> KeywordIndex:
    """Compiled once per distinct keyword list (so once per template version)."""
    return KeywordIndex.build(keywords)
