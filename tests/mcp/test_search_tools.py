"""Search tools through a real MCP client: search, find-similar, query with and without sampling."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.session import SamplingFnT
from mcp.server.mcpserver import MCPServer
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio

NOTES = [
    "Sarah Chen is a product manager at Google; we met at PyCon.",
    "Had great sushi at Nobu last Friday with Tom.",
    "My dog Rex loves running on the beach.",
]


@pytest.fixture
async def ids(client: Client) -> list[str]:
    return [ok(await client.call_tool("remember_create_memory", {"content": n}))["id"] for n in NOTES]


async def test_search(client: Client, ids: list[str]) -> None:
    found = ok(await client.call_tool("remember_search_memory", {"query": "who works at Google?", "explain": True}))
    assert found["results"][0]["memory"]["id"] == ids[0]
    assert (
        found["results"][0]["why"]["matched_terms"] == ["works", "google"]
        or "google" in found["results"][0]["why"]["matched_terms"]
    )
    plan = found["plan"]  # the routes each side took and the terms used, and the alpha chosen for this search
    assert 0 <= found["alpha"] <= 1 and (plan["alpha"], plan["alpha_chosen"]) == (found["alpha"], "from the candidates")
    assert plan["keyword"]["route"] == "full text" and "google" in plan["keyword"]["terms"]["find"]
    assert plan["vector"]["route"] in ("exact", "approximate") and plan["vector"]["ran"]
    paged = ok(await client.call_tool("remember_search_memory", {"query": "anything", "limit": 2, "min_score": -1}))
    assert (len(paged["results"]), paged["has_more"], paged["next_offset"]) == (2, True, 2)
    assert paged.get("plan") is None
    semantic = ok(await client.call_tool("remember_search_memory", {"query": "pets", "alpha": 1}))
    assert semantic["results"][0]["memory"]["id"] == ids[2] and semantic["alpha"] == 1.0
    filtered = ok(
        await client.call_tool(
            "remember_search_memory",
            {"query": "anything", "filters": {"content": {"contains": "sushi"}}, "min_score": -1},
        )
    )
    assert [r["memory"]["id"] for r in filtered["results"]] == [ids[1]]
    accessed = ok(await client.call_tool("remember_get_memory", {"memory_id": ids[0]}))
    assert accessed["access_count"] >= 2  # returned by searches, then fetched


async def test_an_off_topic_search_finds_nothing_unless_asked(client: Client, ids: list[str]) -> None:
    found = ok(await client.call_tool("remember_search_memory", {"query": "tracer bullets"}))
    assert found["results"] == [] and found["has_more"] is False
    every = ok(await client.call_tool("remember_search_memory", {"query": "tracer bullets", "min_score": -1}))
    assert sorted(r["memory"]["id"] for r in every["results"]) == sorted(ids)
    context = ok(await client.call_tool("remember_query_memory", {"question": "tracer bullets"}))
    assert context["sources"] == [] and context["context"] == ""


async def test_find_similar(client: Client, ids: list[str]) -> None:
    like = ok(await client.call_tool("remember_find_similar", {"text": "animals", "limit": 1}))
    assert like["results"][0]["memory"]["id"] == ids[2]
    near = ok(await client.call_tool("remember_find_similar", {"memory_id": ids[1], "limit": 5}))
    assert ids[1] not in [r["memory"]["id"] for r in near["results"]]


async def test_query_without_sampling_gives_context_and_sources(client: Client, ids: list[str]) -> None:
    answer = ok(await client.call_tool("remember_query_memory", {"question": "Where did I eat sushi?"}))
    assert answer["sources"][0]["memory_id"] == ids[1]
    assert answer["context"].startswith("[1] ")
    assert "answer" not in answer


def answering(reply: str, prompts: list[str]) -> SamplingFnT:
    """A client's sampling: the prompt it is asked with is kept in ``prompts``, and it answers ``reply``."""

    async def sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        content = params.messages[0].content
        assert isinstance(content, TextContent)
        prompts.append(content.text)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=reply), model="test-model")

    return sampling


async def test_query_with_sampling_answers_with_citations(
    server_for: Callable[[str], MCPServer], ids: list[str]
) -> None:
    prompts: list[str] = []
    async with Client(server_for("alice"), sampling_callback=answering("At Nobu, last Friday [1].", prompts)) as client:
        answer = ok(await client.call_tool("remember_query_memory", {"question": "Where did I eat sushi?"}))
        no_answer = ok(
            await client.call_tool("remember_query_memory", {"question": "Where did I eat sushi?", "answer": False})
        )
    assert answer["answer"] == "At Nobu, last Friday [1]."
    assert "answer" not in no_answer
    assert len(prompts) == 1
    assert "Question: Where did I eat sushi?" in prompts[0] and "Nobu" in prompts[0]


async def test_query_context_and_prompt_show_a_templated_memorys_fields(
    server_for: Callable[[str], MCPServer], ids: list[str]
) -> None:
    prompts: list[str] = []
    wine = {
        "template_name": "Wine tasting",
        "fields": [{"name": "wine", "type": "string"}, {"name": "score", "type": "number"}],
    }
    async with Client(server_for("alice"), sampling_callback=answering("96 [1].", prompts)) as client:
        template = ok(await client.call_tool("remember_create_template", wine))["id"]
        tasting = {"content": "Tasted at Ana's place", "template_id": template,
                   "structured_content": {"wine": "Barca Velha", "score": 96}}  # fmt: skip
        made = ok(await client.call_tool("remember_create_memory", tasting))
        answer = ok(await client.call_tool("remember_query_memory", {"question": "what score did I give Barca Velha"}))
    assert answer["sources"][0]["memory_id"] == made["id"]
    shown = "Barca Velha: Tasted at Ana's place\nWine: Barca Velha\nScore: 96"
    assert shown in answer["context"].split("\n[2]")[0] and shown in prompts[0]


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("remember_search_memory", {}, "query"),
    ("remember_search_memory", {"query": ""}, "query must be a non-empty text"),
    ("remember_search_memory", {"query": "x" * 5000}, "the limit is 2000"),
    ("remember_search_memory", {"query": "x", "alpha": 2}, "alpha must be a number from 0 to 1"),
    ("remember_search_memory", {"query": "x", "limit": 0}, "limit must be a whole number"),
    ("remember_search_memory", {"query": "x", "filters": {"colour": 1}}, "Unknown filter field"),
    ("remember_search_memory", {"query": "x", "filters": {"type": {"regex": "."}}}, "Operator 'regex'"),
    ("remember_search_memory", {"query": "x", "deleted": "sometimes"}, "deleted"),
    ("remember_search_memory", {"query": "x", "min_score": 1.5}, "min_score must be a number from -1 to 1"),
    ("remember_find_similar", {}, "either memory_id or text"),
    ("remember_find_similar", {"memory_id": "nope"}, "No memory with id 'nope'"),
    ("remember_find_similar", {"text": "x", "min_similarity": 5}, "min_similarity"),
    ("remember_find_similar", {"text": "  "}, "text must be a non-empty text"),
    ("remember_find_similar", {"text": "x" * 5000}, "text is 5000 characters; the limit is 2000"),
    ("remember_query_memory", {"question": ""}, "question must be a non-empty text"),
    ("remember_query_memory", {"question": "x" * 5000}, "question is 5000 characters"),
    ("remember_query_memory", {"question": "x", "token_budget": 1}, "token_budget"),
]


@pytest.mark.parametrize(
    ("tool", "args", "message"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_CALLS)]
)
async def test_bad_input(
    client: Client, ids: list[str], db: Path, tool: str, args: dict[str, Any], message: str
) -> None:
    before = fingerprint(db)
    assert message in error(await client.call_tool(tool, args))
    assert fingerprint(db) == before


async def test_fts_syntax_is_harmless(client: Client, ids: list[str]) -> None:
    for query in ['"', 'NEAR("a" "b")', "a OR", "*", "'; DROP TABLE memories; --"]:
        ok(await client.call_tool("remember_search_memory", {"query": query}))
    assert ok(await client.call_tool("remember_list_memories", {}))["total"] == 3


async def test_another_users_memories_are_never_found(bob: Client, ids: list[str]) -> None:
    for query, alpha in (("Sarah Chen Google", 0.0), ("Sarah Chen Google", 1.0), ("sushi", 0.3)):
        found = ok(await bob.call_tool("remember_search_memory", {"query": query, "alpha": alpha}))
        assert found["results"] == []
    assert "No memory with id" in error(await bob.call_tool("remember_find_similar", {"memory_id": ids[0]}))
    similar = ok(await bob.call_tool("remember_find_similar", {"text": "dog on the beach"}))
    assert similar["results"] == []
    context = ok(await bob.call_tool("remember_query_memory", {"question": "Who is Sarah?"}))
    assert context["sources"] == [] and context["context"] == ""
