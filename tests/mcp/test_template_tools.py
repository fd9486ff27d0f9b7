"""Templates through a real MCP client: the spec's flows, resources, prompts, elicitation, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitRequestParams, ElicitResult

from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio

BOOK_REVIEW: dict[str, Any] = {
    "template_name": "Book Review",
    "description": "Template for tracking books I've read",
    "fields": [
        {"name": "title", "type": "string", "required": True},
        {"name": "author", "type": "string", "required": True},
        {"name": "rating", "type": "number", "required": True, "validation": {"min": 1, "max": 5}},
        {"name": "genre", "type": "string", "required": False},
        {"name": "date_finished", "type": "datetime", "required": False},
        {"name": "summary", "type": "text", "required": False},
        {"name": "favorite_quotes", "type": "array", "required": False},
        {"name": "would_recommend", "type": "boolean", "required": True},
    ],
    "auto_apply": True,
    "trigger_keywords": ["finished reading", "just read", "book review"],
}
PRAGMATIC = {
    "title": "The Pragmatic Programmer",
    "author": "Andrew Hunt and David Thomas",
    "rating": 5,
    "genre": "Technical",
    "date_finished": "2026-02-10",
    "summary": "Excellent guide to software craftsmanship...",
    "favorite_quotes": ["Don't live with broken windows", "DRY - Don't Repeat Yourself"],
    "would_recommend": True,
}


@pytest.fixture
async def book(client: Client) -> str:
    made = ok(await client.call_tool("remember_create_template", BOOK_REVIEW))
    return str(made["id"])


async def test_the_spec_flow(client: Client, book: str) -> None:
    memory = ok(await client.call_tool("remember_create_memory", {"template_id": book, "content": PRAGMATIC}))
    assert memory["template_compliance"] is True
    assert memory["structured_content"]["rating"] == 5
    assert memory["title"] == "The Pragmatic Programmer"

    bad = await client.call_tool(
        "remember_validate_memory", {"template_id": book, "content": {"title": "Some Book", "rating": 6}}
    )
    result = ok(bad)
    assert result["valid"] is False
    assert {(e["field"], e["code"]) for e in result["errors"]} == {
        ("author", "required"),
        ("rating", "max"),
        ("would_recommend", "required"),
    }

    updated = ok(
        await client.call_tool(
            "remember_update_template",
            {
                "template_id": book,
                "add_fields": [{"name": "isbn", "type": "string", "required": True}],
                "version": "1.1",
            },
        )
    )
    assert (updated["version"], updated["rechecked_memories"]) == ("1.1", 1)
    after = ok(await client.call_tool("remember_get_memory", {"memory_id": memory["id"]}))
    assert after["template_compliance"] is False
    assert after["template_validation_errors"][0]["field"] == "isbn"

    listed = ok(
        await client.call_tool(
            "remember_list_memories",
            {"filters": {"template_id": book, "template_compliance": False, "structured_content.rating": {"gte": 4}}},
        )
    )
    assert [m["id"] for m in listed["memories"]] == [memory["id"]]

    kept = ok(await client.call_tool("remember_delete_template", {"template_id": book}))
    assert kept["trashed_memories"] == 0
    still = ok(await client.call_tool("remember_get_memory", {"memory_id": memory["id"]}))
    assert still["structured_content"] == after["structured_content"]
    assert "No template with id" in error(await client.call_tool("remember_get_template", {"template_id": book}))


async def test_delete_template_with_its_memories(client: Client, book: str) -> None:
    memory = ok(
        await client.call_tool("remember_create_memory", {"template_id": book, "structured_content": PRAGMATIC})
    )
    gone = ok(
        await client.call_tool("remember_delete_template", {"template_id": book, "delete_derived_memories": True})
    )
    assert gone["trashed_memories"] == 1
    trashed = ok(await client.call_tool("remember_get_memory", {"memory_id": memory["id"]}))
    assert trashed["deleted_at"] is not None


async def test_get_list_copy_and_analytics(client: Client, book: str) -> None:
    detail = ok(await client.call_tool("remember_get_template", {"template_id": "builtin:book_review"}))
    assert detail["is_default"] is True
    assert detail["json_schema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "title" in detail["json_schema"]["required"]
    page = ok(await client.call_tool("remember_list_templates", {"include_default": False}))
    assert [t["id"] for t in page["templates"]] == [book]
    everything = ok(await client.call_tool("remember_list_templates", {"limit": 100}))
    assert everything["total"] == 16
    copy = ok(
        await client.call_tool(
            "remember_copy_template", {"template_id": "builtin:book_review", "template_name": "Mine"}
        )
    )
    assert copy["derived_from"] == "builtin:book_review"
    for rating in (5, 4):
        ok(
            await client.call_tool(
                "remember_create_memory", {"template_id": book, "content": {**PRAGMATIC, "rating": rating}}
            )
        )
    stats = ok(await client.call_tool("remember_template_analytics", {"template_id": book, "metrics": ["usage_count"]}))
    assert stats["usage_count"] == 2
    assert "field_usage_statistics" not in stats
    full = ok(await client.call_tool("remember_template_analytics", {"template_id": book}))
    assert full["field_usage_statistics"]["rating"]["average"] == 4.5


async def test_builtins_are_read_only(client: Client) -> None:
    message = error(
        await client.call_tool("remember_update_template", {"template_id": "builtin:book_review", "description": "x"})
    )
    assert "remember_copy_template" in message
    assert "built-in" in error(
        await client.call_tool("remember_delete_template", {"template_id": "builtin:book_review"})
    )


async def test_templates_are_resources(client: Client, book: str) -> None:
    resources = (await client.list_resources()).resources
    uris = {str(r.uri) for r in resources}
    assert f"remember://templates/{book}" in uris
    assert "remember://templates/builtin:book_review/schema" in uris
    read = await client.read_resource(f"remember://templates/{book}")
    definition = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    assert definition["name"] == "Book Review"
    schema = await client.read_resource(f"remember://templates/{book}/schema")
    assert json.loads(schema.contents[0].text)["properties"]["rating"]["maximum"] == 5  # type: ignore[union-attr]
    templates = (await client.list_resource_templates()).resource_templates
    assert {t.uri_template for t in templates} >= {"remember://templates/{template_id}"}


async def test_unknown_template_resource_is_an_error(client: Client) -> None:
    with pytest.raises(Exception, match="No template with id"):
        await client.read_resource("remember://templates/tpl_nope")


async def test_templates_are_prompts(client: Client, book: str) -> None:
    names = {p.name for p in (await client.list_prompts()).prompts}
    assert f"capture_{book}" in names
    assert "capture_builtin_restaurant_review" in names
    prompt = await client.get_prompt(f"capture_{book}", {"text": "Just finished Dune, loved it"})
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "rating (number, required, from 1 to 5)" in text
    assert f'"template_id": "{book}"' in text
    assert "What I said: Just finished Dune" in text


def elicitation(answer: ElicitResult, asked: list[ElicitRequestParams]) -> Any:
    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return answer

    return callback


async def test_missing_fields_are_asked_for(server_for: Callable[[str], MCPServer], book: str) -> None:
    asked: list[ElicitRequestParams] = []
    answer = ElicitResult(action="accept", content={"author": "Frank Herbert", "would_recommend": True})
    async with Client(server_for("alice"), elicitation_callback=elicitation(answer, asked)) as client:
        memory = ok(
            await client.call_tool(
                "remember_create_memory", {"template_id": book, "content": {"title": "Dune", "rating": 5}}
            )
        )
    assert memory["structured_content"]["author"] == "Frank Herbert"
    schema = asked[0].requested_schema  # type: ignore[union-attr]
    assert set(schema["properties"]) == {"author", "would_recommend"}
    assert schema["properties"]["would_recommend"]["type"] == "boolean"


async def test_a_declined_question_stores_nothing(server_for: Callable[[str], MCPServer], book: str, db: Path) -> None:
    asked: list[ElicitRequestParams] = []
    before = fingerprint(db)
    async with Client(
        server_for("alice"), elicitation_callback=elicitation(ElicitResult(action="decline"), asked)
    ) as client:
        message = error(
            await client.call_tool(
                "remember_create_memory", {"template_id": book, "content": {"title": "Dune", "rating": 5}}
            )
        )
    assert "declined" in message and "author" in message
    assert len(asked) == 1
    assert fingerprint(db) == before


async def test_without_elicitation_the_missing_fields_are_listed(client: Client, book: str) -> None:
    message = error(
        await client.call_tool(
            "remember_create_memory", {"template_id": book, "content": {"title": "Dune", "rating": 5}}
        )
    )
    assert "author: author is required" in message
    assert "would_recommend" in message


async def test_other_problems_are_not_asked_about(server_for: Callable[[str], MCPServer], book: str) -> None:
    asked: list[ElicitRequestParams] = []
    answer = ElicitResult(action="accept", content={})
    async with Client(server_for("alice"), elicitation_callback=elicitation(answer, asked)) as client:
        message = error(
            await client.call_tool(
                "remember_create_memory", {"template_id": book, "content": {"title": "X", "rating": 9}}
            )
        )
    assert asked == []
    assert "rating" in message


HOSTILE_FIELDS: list[tuple[list[dict[str, Any]], str]] = [
    ([], "at least one field"),
    ([{"name": "x", "type": "colour"}], "colour"),
    ([{"name": "x", "type": "enum"}], "options"),
    ([{"name": "x", "type": "computed"}], "formula"),
    ([{"name": "x", "type": "computed", "formula": "9**9**9**9"}], "x"),
    ([{"name": "x", "type": "computed", "formula": "__import__('os').system('id')"}], "x"),
    ([{"name": "x", "type": "computed", "formula": "(" * 5000 + "1" + ")" * 5000}], "x"),
    ([{"name": "x", "type": "string", "validation": {"pattern": "(a)\\1"}}], "pattern"),
    ([{"name": "x", "type": "number", "validation": {"min": 5, "max": 1}}], "min"),
    ([{"name": "x", "type": "string"}, {"name": "x", "type": "string"}], "two fields are named"),
    ([{"name": "Bad Name", "type": "string"}], "name"),
    ([{"name": "x", "type": "string", "conditional": {"show_if": "ghost == true"}}], "ghost"),
    ([{"name": f"f{i}", "type": "string"} for i in range(500)], "fields"),
]


@pytest.mark.parametrize(("fields", "needle"), HOSTILE_FIELDS)
async def test_bad_template_definitions_are_refused(
    client: Client, db: Path, fields: list[dict[str, Any]], needle: str
) -> None:
    before = fingerprint(db)
    message = error(await client.call_tool("remember_create_template", {"template_name": "Bad", "fields": fields}))
    assert needle in message
    assert fingerprint(db) == before


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("remember_create_template", {"fields": []}, "template_name"),
    ("remember_create_template", {"template_name": "X", "fields": "title"}, "fields"),
    ("remember_create_template", {"template_name": "X", "fields": [], "weight": 2}, "weight"),
    (
        "remember_create_template",
        {"template_name": "X", "fields": [{"name": "a"}], "parent_template_id": "nope"},
        "nope",
    ),
    ("remember_create_template", {**BOOK_REVIEW}, "already have a template named"),
    ("remember_get_template", {"template_id": "nope"}, "No template with id 'nope'"),
    ("remember_get_template", {}, "template_id"),
    ("remember_list_templates", {"sort_by": "colour"}, "sort_by"),
    ("remember_list_templates", {"limit": 0}, "limit"),
    ("remember_update_template", {"template_id": "nope", "description": "x"}, "No template with id"),
    ("remember_update_template", {"template_id": "{book}"}, "Nothing to update"),
    ("remember_update_template", {"template_id": "{book}", "remove_fields": ["ghost"]}, "ghost"),
    ("remember_update_template", {"template_id": "{book}", "add_fields": [{"name": "title"}]}, "exists already"),
    ("remember_update_template", {"template_id": "{book}", "parent_template_id": "{book}"}, "cycle"),
    ("remember_delete_template", {"template_id": "nope"}, "No template with id"),
    ("remember_copy_template", {"template_id": "nope"}, "No template with id"),
    ("remember_validate_memory", {"template_id": "nope", "content": {}}, "No template with id"),
    ("remember_validate_memory", {"template_id": "{book}", "content": "title=x"}, "content"),
    ("remember_template_analytics", {"template_id": "nope"}, "No template with id"),
    ("remember_template_analytics", {"template_id": "{book}", "metrics": ["colour"]}, "metrics"),
    ("remember_create_memory", {"template_id": "nope", "content": {"a": 1}}, "No template with id"),
    ("remember_create_memory", {"template_id": "{book}", "content": [1, 2]}, "content"),
    ("remember_create_memory", {"template_id": "{book}", "content": {**PRAGMATIC, "rating": "five"}}, "rating"),
    ("remember_create_memory", {"template_id": "{book}", "content": {**PRAGMATIC, "extra": 1}}, "extra"),
]


@pytest.mark.parametrize(
    ("tool", "args", "message"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_CALLS)]
)
async def test_bad_input_is_an_error_and_changes_nothing(
    client: Client, book: str, db: Path, tool: str, args: dict[str, Any], message: str
) -> None:
    args = {k: (v.replace("{book}", book) if isinstance(v, str) else v) for k, v in args.items()}
    before = fingerprint(db)
    assert message in error(await client.call_tool(tool, args))
    assert fingerprint(db) == before


async def test_another_users_templates_are_invisible(client: Client, bob: Client, book: str, db: Path) -> None:
    ok(await client.call_tool("remember_create_memory", {"template_id": book, "content": PRAGMATIC}))
    before = fingerprint(db)
    for tool, args in [
        ("remember_get_template", {"template_id": book}),
        ("remember_update_template", {"template_id": book, "description": "pwned"}),
        ("remember_delete_template", {"template_id": book}),
        ("remember_copy_template", {"template_id": book}),
        ("remember_validate_memory", {"template_id": book, "content": {}}),
        ("remember_template_analytics", {"template_id": book}),
        ("remember_create_memory", {"template_id": book, "content": PRAGMATIC}),
    ]:
        assert f"No template with id {book!r}" in error(await bob.call_tool(tool, args)), tool
    assert fingerprint(db) == before
    mine = ok(await bob.call_tool("remember_list_templates", {"include_default": False}))
    assert mine["total"] == 0
    assert not any(book in str(r.uri) for r in (await bob.list_resources()).resources)
    assert not any(book in p.name for p in (await bob.list_prompts()).prompts)


async def test_a_template_of_twenty_thousand_fields_is_refused_by_the_limit(client: Client) -> None:
    fields = [{"name": f"f{i}", "type": "computed", "formula": f"f{i + 1} + 1"} for i in range(20_000)]
    message = error(await client.call_tool("remember_create_template", {"template_name": "Huge", "fields": fields}))
    assert "a template has at most 200 fields" in message
    assert len(message) < 500


async def test_the_form_starts_from_the_fields_read_from_the_text(server_for: Callable[[str], MCPServer]) -> None:
    asked: list[ElicitRequestParams] = []

    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        defaults = {k: v["default"] for k, v in params.requested_schema["properties"].items() if "default" in v}  # type: ignore[union-attr]
        return ElicitResult(action="accept", content={**defaults, "author": "Frank Herbert"})

    text = "Just finished 'Dune' yesterday, 4.5 stars, would recommend"
    async with Client(server_for("alice"), elicitation_callback=callback) as client:
        memory = ok(
            await client.call_tool("remember_create_memory", {"template_id": "builtin:book_review", "content": text})
        )
    properties = asked[0].requested_schema["properties"]  # type: ignore[union-attr]
    assert properties["title"]["default"] == "Dune" and properties["rating"]["default"] == 4.5
    assert "default" not in properties["author"]
    assert "Read from what you said" in asked[0].message
    assert memory["content"] == text
    fields = memory["structured_content"]
    assert (fields["title"], fields["author"], fields["rating"]) == ("Dune", "Frank Herbert", 4.5)
    assert "date_finished" in fields and fields["would_recommend"] is True
