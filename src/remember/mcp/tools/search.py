"""MCP tools for finding memories: hybrid search, find-similar, and a question's context."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import Field

from remember.errors import RememberError
from remember.mcp.caller import current_user
from remember.mcp.registry import HasTools, ToolContext, add_tool, hints
from remember.mcp.schemas import MemoryOut, QueryOut, SearchHitOut, SearchOut, SourceOut
from remember.mcp.state import state_of
from remember.mcp.tools.params import Filters
from remember.service.context import answer_prompt, question_context

Alpha = Annotated[
    float | None,
    Field(description="1 = by meaning only, 0 = by keywords only (default: preference, 0.3)."),
]
ANSWER_TOKENS = 600


def register(server: HasTools, tc: ToolContext) -> None:
    search = tc.services.search

    def remember_search_memory(
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        alpha: Alpha = None,
        filters: Filters = None,
        limit: Annotated[int | None, Field(description="How many, 1 to 100 (default 10).")] = None,
        offset: Annotated[int, Field(description="How many to skip.")] = 0,
        deleted: Annotated[
            Literal["exclude", "include", "only"], Field(description="Deleted memories too, or only.")
        ] = "exclude",
        explain: Annotated[bool, Field(description="Say why each matched.")] = False,
    ) -> SearchOut:
        """Find the user's memories about something, best first, by meaning and keywords.

        Use it before answering anything about the user's past, people, plans or preferences.

        Example: {"query": "books I liked", "filters": {"template_id": "builtin:book_review",
        "structured_content.rating": {"gte": 4}}, "limit": 5}
        """
        results = search.search(
            tc.user(), query, alpha=alpha, filters=filters, limit=limit, offset=offset, deleted=deleted,
            explain=explain,
        )  # fmt: skip
        return SearchOut(
            results=[SearchHitOut(memory=MemoryOut.of(h.memory), score=h.score, why=h.why) for h in results.hits],
            offset=results.offset,
            limit=results.limit,
            has_more=results.has_more,
            next_offset=results.offset + len(results.hits) if results.has_more else None,
            alpha=results.alpha,
        )

    def remember_find_similar(
        memory_id: Annotated[str | None, Field(description="Like this memory (or give text).")] = None,
        text: Annotated[str | None, Field(description="Like this text (or give memory_id).")] = None,
        min_similarity: Annotated[float, Field(description="Lowest cosine similarity, -1 to 1.")] = 0.0,
        limit: Annotated[int, Field(description="How many, 1 to 100.")] = 10,
        filters: Filters = None,
    ) -> SearchOut:
        """Find memories close in meaning to one memory or to a text (duplicates, related notes).

        Example: {"memory_id": "0b6f3c1e-...", "min_similarity": 0.5, "limit": 5}
        """
        hits = search.similar(
            tc.user(), memory_id=memory_id, text_query=text, min_similarity=min_similarity, limit=limit,
            filters=filters,
        )  # fmt: skip
        return SearchOut(
            results=[SearchHitOut(memory=MemoryOut.of(h.memory), score=h.score) for h in hits],
            offset=0,
            limit=limit,
            has_more=False,
            next_offset=None,
            alpha=1.0,
        )

    def remember_query_memory(
        sampled: Annotated[CreateMessageResult | None, Resolve(_answer_request)],
        question: Annotated[str, Field(description="The question to answer from the user's memories.")],
        token_budget: Annotated[int, Field(description="Most tokens of memory text, 100 to 32000.")] = 2000,
        alpha: Alpha = None,
        filters: Filters = None,
        answer: Annotated[  # noqa: ARG001 - read by _answer_request, which runs before this body
            bool, Field(description="Also answer with the client's model, if it can sample.")
        ] = True,
    ) -> QueryOut:
        """The memories that answer a question, in one context with numbered sources: answer from
        it, citing [n]. With client sampling, an `answer` from the client's model is included.

        Example: {"question": "When did I last see Sarah, and where?", "token_budget": 1500}
        """
        packed = question_context(search, tc.user(), question, token_budget=token_budget, alpha=alpha, filters=filters)
        text = sampled.content.text if sampled is not None and isinstance(sampled.content, TextContent) else None
        return QueryOut(
            question=question,
            context=packed.text,
            tokens=packed.tokens,
            sources=[SourceOut(**s.__dict__) for s in packed.sources],
            answer=text,
        )

    read = hints(read_only=True, idempotent=True)
    add_tool(server, remember_search_memory, title="Search memories", hints=read)
    add_tool(server, remember_find_similar, title="Find similar memories", hints=read)
    add_tool(server, remember_query_memory, title="Answer from memory", hints=read)


def _answer_request(
    ctx: Context[Any, Any],
    question: str,
    token_budget: int = 2000,
    alpha: float | None = None,
    filters: dict[str, Any] | None = None,
    answer: bool = True,
) -> Sample | None:
    """Ask the client's model to answer from the memories, when asked and the client can sample."""
    capabilities = ctx.client_capabilities
    if not answer or capabilities is None or capabilities.sampling is None:
        return None
    try:
        packed = question_context(
            state_of(ctx).services.search, current_user(), question, token_budget=token_budget, alpha=alpha,
            filters=filters, record_access=False,
        )  # fmt: skip
    except RememberError:
        return None  # the tool body reports it
    if not packed.sources:
        return None
    prompt = answer_prompt(question, packed)
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    return Sample([message], max_tokens=ANSWER_TOKENS, temperature=0.0)
