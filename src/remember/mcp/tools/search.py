"""MCP tools for finding memories: hybrid search, find-similar, and a question's context."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import Field

from remember.errors import RememberError
from remember.mcp.state import member_of, services_of
from remember.mcp.tools.hints import READS, Tools
from remember.mcp.tools.params import (
    Alpha,
    AlphaAsInSearch,
    AsOf,
    FiltersAsInList,
    Links,
    MinScore,
    Offset,
    Spaces,
    Superseded,
    links_in_spaces,
    memory_links,
    when,
)
from remember.schemas.memories import MemoryOut
from remember.schemas.search import QueryOut, SearchHitOut, SearchOut, SourceOut
from remember.service import space_reads
from remember.service.question_context import answer_prompt, question_context

ANSWER_TOKENS = 600


def remember_search_memory(
    ctx: Context,
    query: Annotated[str, Field(description="What to look for, in plain words.")],
    alpha: Alpha = None,
    filters: FiltersAsInList = None,
    limit: Annotated[int | None, Field(description="How many, 1 to 100 (default 10).")] = None,
    offset: Offset = 0,
    deleted: Literal["exclude", "include", "only"] = "exclude",
    explain: Annotated[bool, Field(description="With the plan and each score's parts.")] = False,
    include_relationships: Links = True,
    min_score: MinScore = None,
    as_of: AsOf = None,
    include_superseded: Superseded = False,
    spaces: Spaces = None,
) -> SearchOut:
    """Find the user's memories about something, best first, by meaning and keywords. Use it
    before answering anything about the user's past, people, plans or preferences.

    Example: {"query": "books I liked", "filters": {"structured_content.rating": {"gte": 4}}}
    """
    services = services_of(ctx)
    callers = services.spaces.reading(member_of(ctx), spaces)
    results = space_reads.search(
        services.search, callers, query, alpha=alpha, filters=filters, limit=limit, offset=offset, deleted=deleted,
        explain=explain, min_score=min_score, when=when(as_of, include_superseded),
    )  # fmt: skip
    linked = links_in_spaces(ctx, callers, [h.memory for h in results.hits]) if include_relationships else {}
    return SearchOut(
        results=[
            SearchHitOut(memory=MemoryOut.of(h.memory), score=h.score, why=h.why, relationships=linked.get(h.memory.id))
            for h in results.hits
        ],
        offset=results.offset,
        limit=results.limit,
        has_more=results.has_more,
        next_offset=results.offset + len(results.hits) if results.has_more else None,
        alpha=results.alpha,
        plan=results.plan,
    )


def remember_find_similar(
    ctx: Context,
    memory_id: Annotated[str | None, Field(description="Like this memory (or give text).")] = None,
    text: Annotated[str | None, Field(description="Like this text (or give memory_id).")] = None,
    min_similarity: Annotated[float, Field(description="Lowest cosine similarity, -1 to 1.")] = 0.0,
    limit: Annotated[int, Field(description="How many, 1 to 100.")] = 10,
    filters: FiltersAsInList = None,
    include_relationships: Links = True,
    as_of: AsOf = None,
    spaces: Spaces = None,
) -> SearchOut:
    """Find memories close in meaning to one memory (in its space) or to a text (duplicates, related notes).

    Example: {"memory_id": "0b6f...", "min_similarity": 0.5}
    """
    services, caller = services_of(ctx), member_of(ctx)
    callers = services.spaces.reading_from(caller, memory_id, spaces)
    hits = space_reads.similar(
        services.search, callers, memory_id=memory_id, text_query=text, min_similarity=min_similarity, limit=limit,
        filters=filters, when=when(as_of, False),
    )  # fmt: skip
    linked = links_in_spaces(ctx, callers, [h.memory for h in hits]) if include_relationships else {}
    return SearchOut(
        results=[
            SearchHitOut(memory=MemoryOut.of(h.memory), score=h.score, relationships=linked.get(h.memory.id))
            for h in hits
        ],
        offset=0,
        limit=limit,
        has_more=False,
        next_offset=None,
        alpha=1.0,
    )


def _answer_request(
    ctx: Context,
    question: str,
    token_budget: int = 2000,
    alpha: float | None = None,
    filters: dict[str, Any] | None = None,
    answer: bool = True,
    include_relationships: bool = True,  # noqa: ARG001 - the tool's parameters, all passed in
    include_related: bool = False,
    as_of: str | None = None,
    spaces: list[str] | None = None,
) -> Sample | None:
    """Ask the client's model to answer from the memories, when asked and the client can sample."""
    capabilities = ctx.client_capabilities
    if not answer or capabilities is None or capabilities.sampling is None:
        return None
    services, caller = services_of(ctx), member_of(ctx)
    try:
        packed = question_context(
            services.search, caller, question, templates=services.templates, token_budget=token_budget,
            alpha=alpha, filters=filters, record_access=False, related=services.related if include_related else None,
            when=when(as_of, False),
            readers=services.spaces.reading(caller, spaces),
        )  # fmt: skip
    except RememberError:
        return None  # the tool body reports it
    if not packed.sources:
        return None
    prompt = answer_prompt(question, packed)
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    return Sample([message], max_tokens=ANSWER_TOKENS, temperature=0.0)


def remember_query_memory(
    ctx: Context,
    sampled: Annotated[CreateMessageResult | None, Resolve(_answer_request)],
    question: Annotated[str, Field(description="What to answer from memory.")],
    token_budget: Annotated[int, Field(description="Most tokens of memory text, 100 to 32000.")] = 2000,
    alpha: AlphaAsInSearch = None,
    filters: FiltersAsInList = None,
    answer: Annotated[  # noqa: ARG001 - read by _answer_request, which runs before this body
        bool, Field(description="Answer with the client's model if it can sample.")
    ] = True,
    include_relationships: Links = True,
    include_related: Annotated[bool, Field(description="Add memories linked to the best.")] = False,
    as_of: AsOf = None,
    spaces: Spaces = None,
) -> QueryOut:
    """The memories that answer a question, in one context with numbered sources: answer from
    it, citing [n]. With client sampling, `answer` is the client model's answer.

    Example: {"question": "When did I last see Sarah, and where?", "token_budget": 1500}
    """
    services, caller = services_of(ctx), member_of(ctx)
    readers = services.spaces.reading(caller, spaces)
    packed = question_context(
        services.search, caller, question, templates=services.templates, token_budget=token_budget,
        alpha=alpha, filters=filters, related=services.related if include_related else None, readers=readers,
        when=when(as_of, False),
    )  # fmt: skip
    linked: dict[str, list[dict[str, Any]]] = {}
    for acting in readers if include_relationships else ():
        ids = [s.memory_id for s in packed.sources if (s.space or caller.person) == acting.user]
        linked |= memory_links(ctx, ids, acting) if ids else {}
    text = sampled.content.text if sampled is not None and isinstance(sampled.content, TextContent) else None
    return QueryOut(
        question=question,
        context=packed.text,
        tokens=packed.tokens,
        sources=[SourceOut(**s.__dict__, relationships=linked.get(s.memory_id)) for s in packed.sources],
        answer=text,
    )


TOOLS: Tools = [(remember_search_memory, READS), (remember_find_similar, READS), (remember_query_memory, READS)]
