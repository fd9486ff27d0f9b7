"""Recall without being asked: the memories to put before a model when a session starts and with each
prompt, one line each, packed within a token budget (``question_context.pack``).

A search always ranks something first, and its fused score is relative to the other candidates, so it
cannot say "nothing here is relevant". A prompt's hits are kept only when they also match it on their
own: a cosine similarity of at least ``MIN_COSINE`` to the prompt, or (when the vector side did not run)
a keyword match, and a fused score of at least ``MIN_FUSED``. An unrelated prompt gets no memories.
docs/hooks.md describes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from remember.caller import Caller
from remember.models import Memory
from remember.service.memories import MemoryService
from remember.service.question_context import PackedContext, pack
from remember.service.search import Hit, SearchService

MIN_COSINE = 0.3  # on the common scale (all-MiniLM-L6-v2's): unrelated sentences mostly fall below it
MIN_FUSED = 0.2  # the weak tail of a ranking, even when the cosine passes
PROMPT_HITS = 8  # the most memories a prompt brings
MAX_PROMPT_CHARS = 2_000  # the beginning of a long prompt is searched (the model reads ~256 tokens anyway)
STANDING = 10  # memories read from each list (heaviest, latest) when a session starts
DEFAULT_WEIGHT = 0.5  # memory.default_weight's default: only memories weighted above it count as heavy


def for_prompt(search: SearchService, caller: Caller, prompt: str, budget: int) -> PackedContext:
    """The caller's memories relevant to ``prompt``, best first, within ``budget`` tokens (none may be)."""
    results = search.search(caller, prompt[:MAX_PROMPT_CHARS], limit=PROMPT_HITS, explain=True, record_access=False)
    least = search.indexer.scale.queries.own(MIN_COSINE)
    return pack([h for h in results.hits if relevant(h, least)], budget, one_line)


def relevant(hit: Hit, least: float = MIN_COSINE) -> bool:
    """Whether a hit matches the prompt on its own, not only as the best of poor candidates. ``least``:
    ``MIN_COSINE`` as the embedder's own cosine (``search/embedders/scale.py``)."""
    why = hit.why or {}
    if why.get("fused", 0.0) < MIN_FUSED:
        return False
    cosine = why.get("cosine")
    return bool(cosine >= least) if cosine is not None else bool(why.get("keyword", 0.0) > 0.0)


def standing(memories: MemoryService, caller: Caller, budget: int) -> PackedContext:
    """What to know from the start: the caller's heaviest memories (weighted above the default), then the
    most recently changed, within ``budget`` tokens."""
    heavy = [m for m in memories.list(caller, sort_by="weight", limit=STANDING).items if m.weight > DEFAULT_WEIGHT]
    recent = memories.list(caller, sort_by="updated_at", limit=STANDING).items
    return pack([Hit(m, m.weight) for m in _once([*heavy, *recent])], budget, one_line)


def one_line(memory: Memory) -> str:
    """A memory's text on one line and, for a templated memory, its fields."""
    text = " ".join(memory.content.split())
    if not memory.structured_content:
        return text
    fields = "; ".join(f"{name}: {_value(value)}" for name, value in memory.structured_content.items())
    return f"{text} ({fields})"


def _value(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _once(found: Iterable[Memory]) -> list[Memory]:
    seen: dict[str, Memory] = {}
    for memory in found:
        seen.setdefault(memory.id, memory)
    return list(seen.values())
