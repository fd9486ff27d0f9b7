"""Packing the memories that answer a question into a context of bounded size, with sources."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from remember.service import checks
from remember.service.access import note_access
from remember.service.search import Hit, SearchService

CHARS_PER_TOKEN = 4  # a rough, model-independent estimate; the budget is a ceiling, not an exact count
MIN_BUDGET, MAX_BUDGET = 100, 32_000


@dataclass(frozen=True)
class Source:
    number: int
    memory_id: str
    title: str | None
    when: str
    score: float
    truncated: bool


@dataclass(frozen=True)
class PackedContext:
    text: str
    sources: list[Source]
    tokens: int


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def pack(hits: list[Hit], budget: int) -> PackedContext:
    """Memories in rank order as ``[n] date: text`` blocks, until ``budget`` tokens are used."""
    blocks: list[str] = []
    sources: list[Source] = []
    left = budget * CHARS_PER_TOKEN
    for hit in hits:
        memory = hit.memory
        when = memory.occurred_at.date().isoformat()
        head = f"[{len(sources) + 1}] {when}" + (f" {memory.title}" if memory.title else "") + ": "
        room = left - len(head) - 1
        if room < 40:  # not enough left for a useful piece of another memory
            break
        body = memory.content if len(memory.content) <= room else memory.content[: room - 1] + "…"
        blocks.append(head + body)
        left -= len(blocks[-1]) + 1
        sources.append(Source(len(sources) + 1, memory.id, memory.title, when, hit.score, body != memory.content))
    text = "\n".join(blocks)
    return PackedContext(text, sources, estimate_tokens(text))


def answer_prompt(question: str, context: PackedContext) -> str:
    return (
        "Answer the question using only the memories below, and cite each memory you use as [n]. "
        "If they do not hold the answer, say so plainly.\n\n"
        f"Memories:\n{context.text}\n\nQuestion: {question}"
    )


def question_context(
    search: SearchService,
    user_id: str,
    question: str,
    *,
    token_budget: int = 2_000,
    alpha: float | None = None,
    filters: Mapping[str, Any] | None = None,
    limit: int = 20,
    record_access: bool = True,
) -> PackedContext:
    """The memories most relevant to ``question``, packed within ``token_budget`` tokens."""
    checks.query(question, "question")
    checks.whole_number("token_budget", token_budget, MIN_BUDGET, MAX_BUDGET)
    results = search.search(user_id, question, alpha=alpha, filters=filters, limit=limit, record_access=False)
    packed = pack(results.hits, token_budget)
    if record_access and packed.sources:
        note_access(search.store, user_id, [s.memory_id for s in packed.sources], search.clock())
    return packed
