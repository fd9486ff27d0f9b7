"""Truth over time on the remaining paths, through a real MCP client on both backends: ``as_of`` on
find_similar, query_memory and get_related; ``include_superseded`` on search; ``valid_from`` on create and
update; a template's ``identity`` changed (its memories re-keyed, none merged); a relationship's span in
its results, ended and reopened; ``as_of`` taking back ordinary edits. Bad input and other users' ids are
refused with what is stored unchanged (the whole export of every user, before and after)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from mcp import Client

from remember.service import Services
from remember.service.import_export.jsonl import export_records
from support import error, ok

pytestmark = pytest.mark.anyio


def stored(services: Services) -> str:
    """A digest of everything stored, every user's (the export less its own date): equal means unchanged."""
    records = list(export_records(services.store))
    del records[0]["exported_at"]
    return hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()


async def note(client: Client, text: str, when: str, **extra: Any) -> dict[str, Any]:
    args = {"content": text, "context": {"timestamp": when}, **extra}
    return ok(await client.call_tool("remember_create_memory", args))


async def moved(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """Paris (2019) superseded by Berlin (2024)."""
    paris = await note(client, "I live in Paris, near the canal.", "2019-03-01")
    berlin = await note(client, "I live in Berlin, near the river.", "2024-05-01", supersedes=[paris["id"]])
    return paris, berlin


async def test_find_similar_answers_with_what_was_true_then(client: Client) -> None:
    paris, berlin = await moved(client)
    like = {"text": "the city where I live", "limit": 5}
    now = ok(await client.call_tool("remember_find_similar", like))["results"]
    assert [h["memory"]["id"] for h in now] == [berlin["id"]]
    then = ok(await client.call_tool("remember_find_similar", {**like, "as_of": "2020-01-01"}))["results"]
    assert [h["memory"]["id"] for h in then] == [paris["id"]]
    from_memory = {"memory_id": berlin["id"], "as_of": "2021-06-01"}
    assert [h["memory"]["id"] for h in ok(await client.call_tool("remember_find_similar", from_memory))["results"]] == [
        paris["id"]
    ]


async def test_query_memory_packs_what_was_true_then(client: Client) -> None:
    paris, berlin = await moved(client)
    asked = {"question": "Where do I live?", "answer": False}
    now = ok(await client.call_tool("remember_query_memory", asked))
    assert [s["memory_id"] for s in now["sources"]] == [berlin["id"]] and "Berlin" in now["context"]
    then = ok(await client.call_tool("remember_query_memory", {**asked, "as_of": "2020-01-01"}))
    assert [s["memory_id"] for s in then["sources"]] == [paris["id"]] and "Berlin" not in then["context"]


async def test_search_shows_superseded_memories_with_their_validity_on_request(client: Client) -> None:
    paris, berlin = await moved(client)
    query = {"query": "where I live"}
    assert [h["memory"]["id"] for h in ok(await client.call_tool("remember_search_memory", query))["results"]] == [
        berlin["id"]
    ]
    everything = ok(await client.call_tool("remember_search_memory", {**query, "include_superseded": True}))
    found = {h["memory"]["id"]: h["memory"] for h in everything["results"]}
    assert set(found) == {paris["id"], berlin["id"]}
    assert found[paris["id"]]["validity"] == {
        "valid_until": "2024-05-01T00:00:00.000000Z",
        "superseded_by": berlin["id"],
    }
    assert found[berlin["id"]]["validity"] == {"supersedes": [paris["id"]]}
    both = {**query, "include_superseded": True, "as_of": "2020-01-01"}
    assert "not both" in error(await client.call_tool("remember_search_memory", both))


async def test_get_related_walks_the_links_true_then_to_the_memories_true_then(client: Client) -> None:
    ana = await note(client, "Ana is a software engineer.", "2019-01-01")
    acme = await note(client, "Acme Corp makes rockets.", "2019-01-01")
    link = {"memory_ids": [ana["id"], acme["id"]], "relationship_type": "works_at", "valid_from": "2020-02-01"}
    made = ok(await client.call_tool("remember_create_relationship", {**link, "observation": "Ana at Acme"}))
    ended = {"relationship_id": made["id"], "valid_until": "2024-12-31"}
    ok(await client.call_tool("remember_update_relationship", ended))
    walk = {"memory_id": ana["id"]}
    assert ok(await client.call_tool("remember_get_related", walk))["related"] == []
    then = ok(await client.call_tool("remember_get_related", {**walk, "as_of": "2023-06-01"}))["related"]
    assert [r["memory_id"] for r in then] == [acme["id"]]
    before = ok(await client.call_tool("remember_get_related", {**walk, "as_of": "2019-06-01"}))["related"]
    assert before == []  # the link was not true yet
    assert "as_of" in error(await client.call_tool("remember_get_related", {**walk, "as_of": "soon"}))


async def test_valid_from_is_given_on_create_and_update(client: Client, services: Services) -> None:
    made = await note(client, "I work at Acme.", "2024-03-01", valid_from="2023-09-01")
    assert made["validity"] == {"valid_from": "2023-09-01T00:00:00.000000Z"}
    listed = ok(await client.call_tool("remember_list_memories", {"as_of": "2023-10-01"}))["memories"]
    assert [m["id"] for m in listed] == [made["id"]]
    changed = {"memory_id": made["id"], "valid_from": "2023-07-01", "valid_until": "2025-01-31"}
    after = ok(await client.call_tool("remember_update_memory", changed))
    assert after["validity"] == {
        "valid_from": "2023-07-01T00:00:00.000000Z",
        "valid_until": "2025-01-31T00:00:00.000000Z",
    }
    before = stored(services)
    backwards = {"memory_id": made["id"], "valid_from": "2025-06-01"}  # after its end
    message = error(await client.call_tool("remember_update_memory", backwards))
    assert "valid_until (2025-01-31T00:00:00.000000Z) must be after valid_from (2025-06-01" in message
    new_backwards = {"content": "Backwards.", "valid_from": "2024-05-01", "valid_until": "2024-01-01"}
    assert "after valid_from" in error(await client.call_tool("remember_create_memory", new_backwards))
    assert "valid_from" in error(await client.call_tool("remember_create_memory", {"content": "x", "valid_from": "x"}))
    assert stored(services) == before


async def test_as_of_takes_back_an_ordinary_edit_from_when_it_was_recorded(client: Client) -> None:
    ana = {"name": "Ana", "relationship": "colleague", "company": "Google"}
    args = {"template_id": "builtin:person", "content": ana, "context": {"timestamp": "2024-01-10"}}
    made = ok(await client.call_tool("remember_create_memory", args))
    edited = {"memory_id": made["id"], "structured_content": {"company": "Meta"}, "title": "Ana (Meta)"}
    ok(await client.call_tool("remember_update_memory", edited))
    got = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"], "include_history": True}))
    (entry,) = got["history"]
    assert "effective_at" not in entry  # an ordinary edit: true from when it was recorded
    then = ok(await client.call_tool("remember_list_memories", {"as_of": "2025-01-01"}))["memories"]
    assert then[0]["structured_content"]["company"] == "Google" and then[0]["title"] == "Ana"
    since = ok(await client.call_tool("remember_list_memories", {"as_of": entry["at"]}))["memories"]
    assert since[0]["structured_content"]["company"] == "Meta"
    now = ok(await client.call_tool("remember_list_memories", {}))["memories"][0]
    assert now["structured_content"]["company"] == "Meta" and now["title"] == "Ana (Meta)"
    found = ok(await client.call_tool("remember_search_memory", {"query": "Ana", "as_of": "2025-01-01"}))["results"]
    assert found[0]["memory"]["structured_content"]["company"] == "Google"


async def test_changing_a_template_s_identity_re_keys_its_memories_and_merges_none(
    client: Client, services: Services
) -> None:
    fields = [{"name": "name", "type": "string", "required": True}, {"name": "city", "type": "string"}]
    template = ok(await client.call_tool("remember_create_template", {"template_name": "Pal", "fields": fields}))

    async def pal(name: str, city: str) -> dict[str, Any]:
        args = {"template_id": template["id"], "content": {"name": name, "city": city}}
        return ok(await client.call_tool("remember_create_memory", args))

    one, two = await pal("Li", "Oslo"), await pal("LI", "Bergen")
    assert one["id"] != two["id"]  # no identity yet: two memories
    updated = ok(
        await client.call_tool("remember_update_template", {"template_id": template["id"], "identity": ["name"]})
    )
    assert updated["rechecked_memories"] == 2
    got = ok(await client.call_tool("remember_get_template", {"template_id": template["id"]}))
    assert got["identity"] == ["name"]
    # both stay, as they were: nothing merged by the change
    page = ok(await client.call_tool("remember_list_memories", {"limit": 10}))["memories"]
    assert sorted((m["id"], m["version"], m["structured_content"]["city"]) for m in page) == sorted(
        [(one["id"], 1, "Oslo"), (two["id"], 1, "Bergen")]
    )
    # the next memory about Li finds them by the new key and updates the newest of them
    three = await pal("li", "Tromsø")
    assert three["id"] == two["id"] and three["identity"]["action"] == "updated"
    assert three["structured_content"]["city"] == "Tromsø"
    # an identity that is not a field, or another user's template: refused, nothing changed
    before = stored(services)
    bad = {"template_id": template["id"], "identity": ["nickname"]}
    assert "'nickname', which is not a field" in error(await client.call_tool("remember_update_template", bad))
    assert stored(services) == before


async def test_another_user_s_template_identity_cannot_be_changed(
    client: Client, bob: Client, services: Services
) -> None:
    fields = [{"name": "name", "type": "string", "required": True}]
    template = ok(await client.call_tool("remember_create_template", {"template_name": "Pal", "fields": fields}))
    before = stored(services)
    message = error(
        await bob.call_tool("remember_update_template", {"template_id": template["id"], "identity": ["name"]})
    )
    assert template["id"] in message
    assert stored(services) == before


async def test_a_relationship_answers_with_its_span_and_can_be_reopened(client: Client, services: Services) -> None:
    ana = await note(client, "Ana is a software engineer.", "2019-01-01")
    acme = await note(client, "Acme Corp makes rockets.", "2019-01-01")
    link = {"memory_ids": [ana["id"], acme["id"]], "relationship_type": "works_at", "observation": "Ana at Acme"}
    made = ok(await client.call_tool("remember_create_relationship", link))
    assert made["valid_from"] == "2019-01-01T00:00:00.000000Z" and "valid_until" not in made
    found = ok(await client.call_tool("remember_search_relationships", {"query": "Ana at Acme"}))["results"]
    assert found[0]["valid_from"] == made["valid_from"] and "valid_until" not in found[0]
    ended = {"relationship_id": made["id"], "valid_until": "2024-12-31", "reason": "left"}
    receipt = ok(await client.call_tool("remember_update_relationship", ended))
    assert receipt["valid_until"] == "2024-12-31T00:00:00.000000Z" and receipt["version"] == 2
    assert ok(await client.call_tool("remember_search_relationships", {"query": "Ana at Acme"}))["results"] == []

    before = stored(services)
    both = {"relationship_id": made["id"], "valid_until": "2025-01-01", "clear_fields": ["valid_until"]}
    assert "not both" in error(await client.call_tool("remember_update_relationship", both))
    other = {"relationship_id": made["id"], "clear_fields": ["observation"]}
    assert "clear_fields" in error(await client.call_tool("remember_update_relationship", other))
    assert stored(services) == before

    reopened = {"relationship_id": made["id"], "clear_fields": ["valid_until"], "reason": "back at Acme"}
    back = ok(await client.call_tool("remember_update_relationship", reopened))
    assert back["version"] == 3 and "valid_until" not in back
    again = ok(await client.call_tool("remember_search_relationships", {"query": "Ana at Acme"}))["results"]
    assert [r["id"] for r in again] == [made["id"]] and "valid_until" not in again[0]
    related = ok(await client.call_tool("remember_get_related", {"memory_id": ana["id"]}))["related"]
    assert [r["memory_id"] for r in related] == [acme["id"]]


async def test_other_users_ids_are_unknown_on_every_new_path(client: Client, bob: Client, services: Services) -> None:
    paris, berlin = await moved(client)
    acme = await note(client, "Acme Corp makes rockets.", "2019-01-01")
    link = {"memory_ids": [berlin["id"], acme["id"]], "relationship_type": "near"}
    rel = ok(await client.call_tool("remember_create_relationship", link))
    before = stored(services)
    calls = [
        ("remember_find_similar", {"memory_id": berlin["id"], "as_of": "2020-01-01"}),
        ("remember_get_related", {"memory_id": berlin["id"], "as_of": "2025-01-01"}),
        ("remember_update_memory", {"memory_id": paris["id"], "valid_from": "2018-01-01"}),
        ("remember_update_relationship", {"relationship_id": rel["id"], "clear_fields": ["valid_until"]}),
    ]
    for tool, args in calls:
        message = error(await bob.call_tool(tool, args))
        assert "No memory with id" in message or "No relationship with id" in message, (tool, message)
    assert (
        ok(await bob.call_tool("remember_search_memory", {"query": "Paris", "include_superseded": True}))["results"]
        == []
    )
    asked = {"question": "Where do I live?", "answer": False, "as_of": "2020-01-01"}
    assert ok(await bob.call_tool("remember_query_memory", asked))["sources"] == []
    assert stored(services) == before
