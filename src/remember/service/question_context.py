"""Packing the memories that answer a question into a context of bounded size, with sources.

Each memory is its text as a reader needs it: a templated memory's own text, then its fields
(``UserTemplates.text_of``), so that the context says the score a tasting note only implies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from remember.caller import Caller
from remember.models import Memory
from remember.service import checks, space_reads, validity
from remember.service.access_counts import note_access
from remember.service.related import RelatedService
from remember.service.search import Hit, SearchService
from remember.service.templates import TemplateService
from remember.space_keys import is_space_key

CHARS_PER_TOKEN = 4  # a rough, model-independent estimate; the budget is a ceiling, not an exact count
MIN_BUDGET, MAX_BUDGET = 100, 32_000
RELATED_OF = 3  # the best hits whose linked memories include_related pulls in


@dataclass(frozen=True)
class Source:
    number: int
    memory_id: str
    title: str | None
    when: str
    score: float
    truncated: bool
    related_to: int | None = None  # the number of the source it was pulled in for
    space: str | None = None  # the shared space it is in (None: the caller's own)


@dataclass(frozen=True)
class PackedContext:
    text: str
    sources: list[Source]
    tokens: int


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def pack(hits: list[Hit], budget: int, text_of: Callable[[Memory], str]) -> PackedContext:
    """Memories in rank order as ``[n] date: text`` blocks (``text_of`` a memory), until ``budget`` tokens
    are used."""
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
        whole = text_of(memory)
        body = whole if len(whole) <= room else whole[: room - 1] + "…"
        blocks.append(head + body)
        left -= len(blocks[-1]) + 1
        space = memory.user_id if is_space_key(memory.user_id) else None
        sources.append(Source(len(sources) + 1, memory.id, memory.title, when, hit.score, body != whole, None, space))
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
    caller: Caller,
    question: str,
    *,
    templates: TemplateService,
    token_budget: int = 2_000,
    alpha: float | None = None,
    filters: Mapping[str, Any] | None = None,
    limit: int = 20,
    record_access: bool = True,
    related: RelatedService | None = None,
    min_score: float | None = None,
    when: validity.When = validity.CURRENT,
    readers: Sequence[Caller] = (),
) -> PackedContext:
    """The memories most relevant to ``question``, packed within ``token_budget`` tokens.

    ``readers``: the caller acting in each space to read (``SpaceService.reading``); none: the caller's own.

    ``templates`` render the fields of templated memories. Memories that match nothing of the question
    (``min_score``: as for search) are left out. With ``related``, the memories linked to the best hits
    follow each of them (within the budget).
    """
    checks.query(question, "question")
    checks.whole_number("token_budget", token_budget, MIN_BUDGET, MAX_BUDGET)
    callers = list(readers) or [caller]
    owners = {c.user: c for c in callers}
    results = space_reads.search(
        search, callers, question, alpha=alpha, filters=filters, limit=limit, record_access=False,
        min_score=min_score, when=when,
    )  # fmt: skip
    hits, origin = results.hits, dict[str, str]()
    if related is not None:
        hits, origin = _with_related(related, owners, hits)
    views = {key: templates.view_of(acting) for key, acting in owners.items()}
    packed = pack(hits, token_budget, lambda m: views[m.user_id].text_of(m))
    if origin:
        numbers = {s.memory_id: s.number for s in packed.sources}
        sources = [replace(s, related_to=numbers.get(origin.get(s.memory_id, ""))) for s in packed.sources]
        packed = replace(packed, sources=sources)
    if record_access and packed.sources:
        for key in owners:
            read = [s.memory_id for s in packed.sources if (s.space or caller.person) == key]
            if read:
                note_access(search.store, key, read, search.clock())
    return packed


def _with_related(
    related: RelatedService, owners: Mapping[str, Caller], hits: list[Hit]
) -> tuple[list[Hit], dict[str, str]]:
    """The hits with the memories linked to the best ``RELATED_OF`` of them right after each (moved up when
    they were lower hits); and, per memory pulled in, the hit it follows."""
    placed: set[str] = set()
    out: list[Hit] = []
    origin: dict[str, str] = {}
    for rank, hit in enumerate(hits):
        if hit.memory.id in placed:
            continue
        out.append(hit)
        placed.add(hit.memory.id)
        if rank >= RELATED_OF:
            continue
        for found in related.related(owners[hit.memory.user_id], hit.memory.id, depth=1):
            if found.memory.id not in placed:
                placed.add(found.memory.id)
                origin[found.memory.id] = hit.memory.id
                out.append(Hit(found.memory, hit.score))
    return out, origin
