"""Truth over time through a real MCP client, on both backends: identity (update, supersede, keep),
``supersedes``, ending a memory, current-by-default reads, ``as_of`` and ``include_superseded``, and the
bad input and other callers that must change nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.mcp.server import build_server
from remember.service import Services
from support import error, ok

pytestmark = pytest.mark.anyio

PERSON = "builtin:person"


async def person(client: Client, name: str, company: str, when: str, **extra: Any) -> dict[str, Any]:
    args = {
        "template_id": PERSON,
        "content": {"name": name, "relationship": "colleague", "company": company},
        "context": {"timestamp": when},
        **extra,
    }
    return ok(await client.call_tool("remember_create_memory", args))


async def note(client: Client, text: str, when: str, **extra: Any) -> dict[str, Any]:
    args = {"content": text, "context": {"timestamp": when}, **extra}
    return ok(await client.call_tool("remember_create_memory", args))


async def listed(client: Client, **args: Any) -> list[dict[str, Any]]:
    return list(ok(await client.call_tool("remember_list_memories", {"limit": 100, **args}))["memories"])


async def searched(client: Client, query: str, **args: Any) -> list[dict[str, Any]]:
    found = ok(await client.call_tool("remember_search_memory", {"query": query, **args}))["results"]
    return [hit["memory"] for hit in found]


async def everything(client: Client) -> list[tuple[str, int, str | None]]:
    """Every memory of the caller, as (id, version, valid_until): what "nothing changed" compares."""
    found = await listed(client, include_superseded=True, include_deleted="include")
    return sorted((m["id"], m["version"], m.get("valid_until")) for m in found)


async def prefer(client: Client, mode: str) -> None:
    args = {"preference_path": "memory.on_identity", "value": mode}
    ok(await client.call_tool("remember_update_preferences", args))


async def test_same_identity_updates_the_memory_with_history(client: Client) -> None:
    first = await person(client, "Ana Núñez", "Google", "2024-01-10")
    second = await person(client, "  ana   NUNEZ ", "Meta", "2025-06-01")
    assert second["id"] == first["id"]
    assert second["version"] == 2
    assert second["structured_content"]["company"] == "Meta"
    assert second["structured_content"]["name"] == "Ana Núñez"  # the identity keeps its first spelling
    assert second["identity"] == {
        "action": "updated",
        "memory_id": first["id"],
        "same": ["name"],
        "changes": [{"field": "company", "from": "Google", "to": "Meta"}],
    }
    assert "validity" not in second  # simply true: from when it happened, no end
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": first["id"], "include_history": True}))
    (entry,) = got["history"]
    assert entry["previous"]["structured_content"]["company"] == "Google"
    assert entry["effective_at"] == "2025-06-01T00:00:00.000000Z"
    assert [m["id"] for m in await listed(client)] == [first["id"]]


async def test_as_of_answers_with_the_values_then(client: Client) -> None:
    made = await person(client, "Ana", "Google", "2024-01-10")
    await person(client, "Ana", "Meta", "2025-06-01")
    before = await listed(client, as_of="2025-01-01")
    after = await listed(client, as_of="2025-07-01")
    assert [m["structured_content"]["company"] for m in before] == ["Google"]
    assert [m["structured_content"]["company"] for m in after] == ["Meta"]
    assert await listed(client, as_of="2023-01-01") == []  # not yet known to be true
    then = await searched(client, "Ana works at", as_of="2025-01-01")
    assert [(m["id"], m["structured_content"]["company"]) for m in then] == [(made["id"], "Google")]
    now = await searched(client, "Ana works at")
    assert now[0]["structured_content"]["company"] == "Meta"


async def test_an_older_memory_does_not_overwrite_newer_values(client: Client) -> None:
    await person(client, "Ana", "Meta", "2025-06-01")
    late = await person(client, "Ana", "Google", "2020-01-01", tags=["work"])
    assert late["structured_content"]["company"] == "Meta"
    assert late["tags"] == ["work"]


async def test_supersede_mode_stores_a_successor(client: Client) -> None:
    await prefer(client, "supersede")
    old = await person(client, "Ana", "Google", "2024-01-10")
    new = await person(client, "ana", "Meta", "2025-06-01")
    assert new["id"] != old["id"]
    assert new["identity"]["action"] == "superseded"
    assert new["identity"]["memory_id"] == old["id"]
    assert new["validity"] == {"supersedes": [old["id"]]}
    assert {"field": "company", "from": "Google", "to": "Meta"} in new["identity"]["changes"]
    ended = ok(await client.call_tool("remember_get_memory", {"memory_id": old["id"]}))
    assert ended["validity"] == {"valid_until": "2025-06-01T00:00:00.000000Z", "superseded_by": new["id"]}
    assert [m["id"] for m in await listed(client)] == [new["id"]]
    assert {m["id"] for m in await listed(client, include_superseded=True)} == {old["id"], new["id"]}
    assert [m["id"] for m in await listed(client, as_of="2025-01-01")] == [old["id"]]


async def test_keep_mode_keeps_both(client: Client) -> None:
    await prefer(client, "keep")
    one = await person(client, "Ana", "Google", "2024-01-10")
    two = await person(client, "Ana", "Meta", "2025-06-01")
    assert one["id"] != two["id"]
    assert "identity" not in two
    assert len(await listed(client)) == 2


async def test_supersedes_ends_a_free_text_memory(client: Client) -> None:
    paris = await note(client, "I live in Paris, in a flat near the Canal Saint-Martin.", "2019-05-01")
    berlin = await note(client, "I moved to Berlin, Kreuzberg.", "2024-03-01", supersedes=[paris["id"]], title="Home")
    assert berlin["validity"] == {"supersedes": [paris["id"]]}
    assert [m["id"] for m in await searched(client, "where do I live")] == [berlin["id"]]
    every = {m["id"] for m in await listed(client, include_superseded=True)}
    assert every == {paris["id"], berlin["id"]}
    ended = await searched(client, "where do I live", filters={"valid_until": {"exists": True}})
    assert [m["id"] for m in ended] == [paris["id"]]  # a filter on validity says itself which it wants
    assert [m["id"] for m in await searched(client, "where do I live", as_of="2022-01-01")] == [paris["id"]]
    similar = ok(await client.call_tool("remember_find_similar", {"text": "my home city"}))["results"]
    assert [h["memory"]["id"] for h in similar] == [berlin["id"]]
    args = {"question": "where do I live", "answer": False}
    query = ok(await client.call_tool("remember_query_memory", args))
    assert [s["memory_id"] for s in query["sources"]] == [berlin["id"]]


async def test_a_memory_can_end_without_being_deleted(client: Client) -> None:
    job = await note(client, "I work as a barista at Café Lumen.", "2021-02-01")
    ended = ok(
        await client.call_tool(
            "remember_update_memory", {"memory_id": job["id"], "valid_until": "2023-09-30", "reason": "quit"}
        )
    )
    assert ended["validity"] == {"valid_until": "2023-09-30T00:00:00.000000Z"}
    assert await listed(client) == []
    assert [m["id"] for m in await listed(client, as_of="2022-06-01")] == [job["id"]]
    assert [m["id"] for m in await listed(client, filters={"valid_until": {"lt": "2024-01-01"}})] == [job["id"]]
    still = ok(await client.call_tool("remember_get_memory", {"memory_id": job["id"], "include_history": True}))
    assert "deleted_at" not in still
    assert still["history"][0]["previous"] == {"valid_until": None}
    args = {"memory_id": job["id"], "clear_fields": ["valid_until"]}
    reopened = ok(await client.call_tool("remember_update_memory", args))
    assert "validity" not in reopened
    assert [m["id"] for m in await listed(client)] == [job["id"]]


async def test_valid_from_and_until_are_given_and_filtered(client: Client) -> None:
    made = await note(client, "Lived in Lyon.", "2015-01-01", valid_until="2018-06-30")
    assert made["validity"] == {"valid_until": "2018-06-30T00:00:00.000000Z"}
    assert [m["id"] for m in await listed(client, as_of="2016-01-01")] == [made["id"]]
    assert await listed(client) == []
    found = await listed(client, filters={"valid_from": {"lt": "2016-01-01"}})
    assert [m["id"] for m in found] == [made["id"]]
    later = await note(client, "Lyon again.", "2020-01-01")
    args = {"memory_id": later["id"], "context": {"timestamp": "2021-01-01"}}
    moved = ok(await client.call_tool("remember_update_memory", args))
    assert "validity" not in moved  # true from when it happened, which moved with it


async def test_bad_spans_are_refused_and_change_nothing(client: Client) -> None:
    made = await note(client, "A fact.", "2024-01-01")
    before = await everything(client)
    backwards = {"content": "Backwards.", "context": {"timestamp": "2024-05-01"}, "valid_until": "2024-01-01"}
    message = error(await client.call_tool("remember_create_memory", backwards))
    assert "valid_until" in message and "after valid_from" in message
    args = {"memory_id": made["id"], "valid_until": "2023-01-01"}
    message = error(await client.call_tool("remember_update_memory", args))
    assert "after valid_from" in message
    message = error(await client.call_tool("remember_list_memories", {"as_of": "yesterday-ish"}))
    assert "as_of" in message
    args = {"as_of": "2024-01-01", "include_superseded": True}
    assert "not both" in error(await client.call_tool("remember_list_memories", args))
    assert await everything(client) == before


async def test_an_identity_field_must_be_a_field(client: Client) -> None:
    fields = [{"name": "name", "type": "string", "required": True}, {"name": "city", "type": "string"}]
    args = {"template_name": "Friend", "fields": fields, "identity": ["name", "nickname"]}
    message = error(await client.call_tool("remember_create_template", args))
    assert "identity names 'nickname', which is not a field" in message
    listed_templates = ok(await client.call_tool("remember_list_templates", {"include_default": False}))
    assert listed_templates["templates"] == []
    made = ok(await client.call_tool("remember_create_template", {**args, "identity": ["name"]}))
    removed = {
        "template_id": made["id"],
        "remove_fields": ["name"],
        "add_fields": [{"name": "alias", "type": "string"}],
    }
    message = error(await client.call_tool("remember_update_template", removed))
    assert "'name', which is not a field" in message
    got = ok(await client.call_tool("remember_get_template", {"template_id": made["id"]}))
    assert got["version"] == made["version"]
    one = {"template_id": made["id"], "content": {"name": "Li", "city": "Oslo"}}
    two = {"template_id": made["id"], "content": {"name": "LI", "city": "Bergen"}}
    first = ok(await client.call_tool("remember_create_memory", one))
    second = ok(await client.call_tool("remember_create_memory", two))
    assert second["id"] == first["id"] and second["structured_content"]["city"] == "Bergen"


async def test_another_users_id_in_supersedes_is_unknown(client: Client, bob: Client) -> None:
    alices = await note(client, "Alice's flat is in Paris.", "2020-01-01")
    before_alice, before_bob = await everything(client), await everything(bob)
    message = error(
        await bob.call_tool("remember_create_memory", {"content": "Mine now.", "supersedes": [alices["id"]]})
    )
    assert f"No memory with id {alices['id']!r}" in message
    assert await everything(client) == before_alice
    assert await everything(bob) == before_bob == []


@pytest.fixture
async def guest(services: Services) -> AsyncIterator[Client]:
    async with Client(build_server(services, lambda: Caller("alice", 0.5))) as c:
        yield c


async def test_trust_is_kept_on_every_new_path(client: Client, guest: Client) -> None:
    secret = await person(client, "Ana", "Google", "2024-01-10", trust=0.9)
    hidden = await note(client, "The vault code is 4411.", "2024-01-01", trust=0.9)
    before = await everything(client)
    message = error(await guest.call_tool("remember_create_memory", {"content": "x", "supersedes": [hidden["id"]]}))
    assert f"No memory with id {hidden['id']!r}" in message
    assert await everything(client) == before
    # a memory about the same thing that the caller cannot see is not touched: the new one is its own
    mine = await person(guest, "Ana", "Meta", "2025-06-01")
    assert mine["id"] != secret["id"] and "identity" not in mine
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": secret["id"]}))
    assert got["version"] == 1 and got["structured_content"]["company"] == "Google"
    assert [m["id"] for m in await listed(guest, include_superseded=True)] == [mine["id"]]
    assert [m["id"] for m in await listed(guest, as_of="2025-07-01")] == [mine["id"]]


async def test_a_relationship_can_end(client: Client) -> None:
    ana = await note(client, "Ana is a software engineer.", "2019-01-01")
    acme = await note(client, "Acme Corp makes rockets.", "2019-01-01")
    linked = {"memory_ids": [ana["id"], acme["id"]], "relationship_type": "works_at", "observation": "Ana at Acme"}
    rel = ok(await client.call_tool("remember_create_relationship", linked))
    related = ok(await client.call_tool("remember_get_related", {"memory_id": ana["id"]}))["related"]
    assert [r["memory_id"] for r in related] == [acme["id"]]
    backwards = {"relationship_id": rel["id"], "valid_until": "2001-01-01"}
    assert "after valid_from" in error(await client.call_tool("remember_update_relationship", backwards))
    ended = {"relationship_id": rel["id"], "valid_until": "2024-12-31", "reason": "left Acme"}
    assert ok(await client.call_tool("remember_update_relationship", ended))["version"] == 2
    assert ok(await client.call_tool("remember_get_related", {"memory_id": ana["id"]}))["related"] == []
    found = ok(await client.call_tool("remember_search_relationships", {"query": "Ana at Acme"}))
    assert found["results"] == []
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": ana["id"]}))
    assert got["relationships"][0]["valid_until"] == "2024-12-31T00:00:00.000000Z"  # kept, and says it ended


async def test_get_related_answers_with_current_memories(client: Client) -> None:
    ana = await note(client, "Ana is a software engineer.", "2019-01-01")
    old = await note(client, "Ana's team lead is Bo.", "2019-01-01")
    linked = {"memory_ids": [ana["id"], old["id"]], "relationship_type": "related_to"}
    ok(await client.call_tool("remember_create_relationship", linked))
    await note(client, "Ana's team lead is Cy.", "2024-01-01", supersedes=[old["id"]])
    assert ok(await client.call_tool("remember_get_related", {"memory_id": ana["id"]}))["related"] == []


@pytest.mark.parametrize(
    ("before", "after", "kind", "old", "new"),
    [
        ("The rent for my flat is $1,200 a month.", "The rent for my flat is $1,350 a month.", "amount", "$1200",
         "$1350"),
        ("My dentist appointment is on March 3rd.", "My dentist appointment is on March 10th.", "date", "march 3rd",
         "march 10th"),
        ("My manager at work is Priya.", "My manager at work is Daniel.", "name", "priya", "daniel"),
        ("I run 3 times a week.", "I run 5 times a week.", "number", "3", "5"),
    ],
)  # fmt: skip
async def test_a_near_memory_with_another_value_is_named_and_left_alone(
    client: Client, before: str, after: str, kind: str, old: str, new: str
) -> None:
    first = await note(client, before, "2024-01-01")
    second = await note(client, after, "2025-01-01")
    (hint,) = second["conflicts"]
    assert hint["memory_id"] == first["id"]
    assert {"kind": kind, "from": [old], "to": [new]} in hint["differs"]
    assert {m["id"] for m in await listed(client)} == {first["id"], second["id"]}  # nothing changed unasked
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": first["id"]}))
    assert got["version"] == 1
    found = await searched(client, before)  # the older text asked for, the newer one still first
    assert [m["id"] for m in found[:2]] == [second["id"], first["id"]]
    then = await searched(client, before, as_of="2024-06-01")
    assert [m["id"] for m in then] == [first["id"]]


async def test_unrelated_memories_raise_no_hint(client: Client) -> None:
    await note(client, "I adopted a dog named Rex in 2021.", "2021-05-01")
    await note(client, "My sister lives in Lisbon.", "2022-01-01")
    third = await note(client, "I bought a bike for $400.", "2023-01-01")
    assert "conflicts" not in third


async def test_hints_name_only_memories_the_caller_can_read(client: Client, guest: Client, bob: Client) -> None:
    await note(client, "My rent for the flat is $1,200 a month.", "2024-01-01", trust=0.9)
    await note(bob, "My rent for the flat is $1,100 a month.", "2024-01-01")
    mine = await note(guest, "My rent for the flat is $1,350 a month.", "2025-01-01")
    assert "conflicts" not in mine


async def test_a_search_finds_what_is_current_among_many_that_ended(client: Client, services: Services) -> None:
    """Most candidates ended: "current only", first checked on the ranked candidates, goes into the search."""
    ended = [
        {"content": f"Apple pie recipe, try {n}: {n} apples.", "context": {"timestamp": "2020-01-01"},
         "valid_until": "2021-01-01"}
        for n in range(60)
    ]  # fmt: skip
    services.memories.create_many(Caller("alice"), ended)
    final = await note(client, "Apple pie recipe, the one I keep: six apples.", "2024-01-01")
    found = ok(await client.call_tool("remember_search_memory", {"query": "apple pie recipe", "limit": 5}))
    assert [h["memory"]["id"] for h in found["results"]] == [final["id"]]
    assert "has_more" not in found or found["has_more"] is False
    then = await searched(client, "apple pie recipe", as_of="2020-06-01", limit=5)
    assert len(then) == 5 and final["id"] not in {m["id"] for m in then}
