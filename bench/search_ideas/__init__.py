"""Retrieval ideas measured by ``python -m bench --only ideas``; none of them is in the product.

Each is a re-ranking of what the service's search returns (its first ``POOL``
hits, with the parts of their scores from ``explain``):

- neighbours: the memories just before and after each of the ``neighbours_of``
  best hits in their conversation are lifted to ``neighbour_share`` of that hit's
  score (``expand.spread``; the store's ``adjacent``), found or not;
- time: a hit that happened within the time the question names ("last Friday",
  ``when.span``) gains ``time_boost``; with ``time_pool``, that many memories of
  that time are searched for as well (the question with a filter on the time);
- company: a hit gains ``conversation_share`` of the best other hit of its
  conversation (``expand.together``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bench.search_ideas import expand, when
from remember.caller import Caller
from remember.models import conversation_of
from remember.search.fusion import Fused

POOL = 100  # hits re-ranked (the service's most)


@dataclass(frozen=True)
class Recipe:
    neighbours_of: int = 0
    neighbour_share: float = 0.0
    time_boost: float = 0.0
    time_pool: int = 0
    conversation_share: float = 0.0


@dataclass(frozen=True)
class Ranked:
    memory_id: str
    score: float
    memory: Any = None


def search(
    services: Any,
    caller: Caller,
    question: str,
    recipe: Recipe,
    *,
    limit: int,
    now: Callable[[], datetime],
    **options: Any,
) -> list[Ranked]:
    """The ``limit`` best memories for ``question`` once ``recipe`` re-ranks the service's hits (``options``:
    the service's search arguments, ``alpha`` and the like)."""
    found = services.search.search(caller, question, limit=POOL, record_access=False, **options).hits
    span = when.span(question, now()) if recipe.time_boost or recipe.time_pool else None
    if span is not None and recipe.time_pool:
        window: dict[str, Any] = {"occurred_at": {"gte": span[0].isoformat(), "lte": span[1].isoformat()}}
        given = options.get("filters")
        within = {**options, "filters": window if given is None else {"and": [given, window]}}
        extra = services.search.search(caller, question, limit=recipe.time_pool, record_access=False, **within).hits
        seen = {h.memory.id for h in found}
        found = [*found, *(h for h in extra if h.memory.id not in seen)]
    scores = {h.memory.id: h.score for h in found}
    memories = {h.memory.id: h.memory for h in found}
    if recipe.neighbours_of > 0 and recipe.neighbour_share > 0:
        scores = _neighbours(services, caller, scores, memories, recipe)
    if span is not None and recipe.time_boost:
        scores = {i: s + (recipe.time_boost if _within(memories.get(i), span) else 0.0) for i, s in scores.items()}
    if recipe.conversation_share > 0:
        scores = _in_company(scores, memories, recipe.conversation_share)
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [Ranked(i, s, memories.get(i)) for i, s in ranked]


def _neighbours(
    services: Any, caller: Caller, scores: dict[str, float], memories: dict[str, Any], recipe: Recipe
) -> dict[str, float]:
    fused = [Fused(i, s, 0.0, 0.0, None, matched=False) for i, s in scores.items()]
    adjacent = services.store.index.adjacent(caller.user, expand.strongest(fused, recipe.neighbours_of))
    spread = {f.memory_id: f.fused for f in expand.spread(fused, adjacent, recipe.neighbour_share)}
    new = [i for i in spread if i not in memories]
    for memory in services.store.memories.get_many(caller.user, new):
        if memory.deleted_at is None and caller.reaches(memory.trust):
            memories[memory.id] = memory
    return {i: s for i, s in spread.items() if i in memories}


def _within(memory: Any, span: tuple[datetime, datetime]) -> bool:
    return memory is not None and span[0] <= memory.occurred_at <= span[1]


def _in_company(scores: dict[str, float], memories: dict[str, Any], share: float) -> dict[str, float]:
    ids = list(scores)
    lifts = expand.together([(conversation_of(memories[i]), memories[i].occurred_at, scores[i]) for i in ids], share)
    return {i: scores[i] + lift for i, lift in zip(ids, lifts, strict=True)}
