"""remember_infer_templates through a real MCP client: proposals, nothing changed until an accept, then applied."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from bench.infer import mix
from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio


async def _store_mix(client: Client) -> list[tuple[str, str | None]]:
    rows = mix(per_kind=6)
    for text, _ in rows:
        ok(await client.call_tool("remember_create_memory", {"content": text, "skip_template_suggestion": True}))
    return rows


async def test_proposals_change_nothing_and_an_accept_creates_and_applies(client: Client, db: Path) -> None:
    await _store_mix(client)
    before = fingerprint(db)
    found = ok(await client.call_tool("remember_infer_templates", {}))
    assert fingerprint(db) == before  # proposing stores nothing
    proposals = found["proposals"]
    assert len(proposals) >= 4
    car = next(p for p in proposals if any("mileage" in e.lower() for e in p["examples"]))
    assert car["covers"] >= 5 and {"mileage", "price"} <= {f["name"] for f in car["fields"]}
    done = ok(await client.call_tool("remember_infer_templates", {"accept": car["id"], "apply": True}))
    template_id = done["created_template_id"]
    assert len(done["applied"]) + len(done.get("skipped", [])) == car["covers"]
    assert done["applied"]
    memory = ok(await client.call_tool("remember_get_memory", {"memory_id": done["applied"][0]}))
    assert memory["template_id"] == template_id
    assert "mileage" in memory["structured_content"] or "price" in memory["structured_content"]
    template = ok(await client.call_tool("remember_get_template", {"template_id": template_id}))
    assert template["template"]["examples"] if "template" in template else template["examples"]


async def test_an_unknown_proposal_is_a_clear_error(client: Client) -> None:
    message = error(await client.call_tool("remember_infer_templates", {"accept": "infer-000000000000"}))
    assert "remember_infer_templates again" in message


@pytest.mark.parametrize("padding", [0, 2_500])
async def test_a_field_a_template_lacks_is_proposed(client: Client, padding: int) -> None:
    """Only each text's first 2,000 characters are read for the fields it states: a field stated further on is
    not seen (so a call's work is bounded, however long the texts)."""
    definition = {"template_name": "Reads", "fields": [{"name": "title", "type": "string"}]}
    made = ok(await client.call_tool("remember_create_template", definition))
    template_id = made.get("id") or made["template"]["id"]
    for n in range(4):
        text = (
            "Some words about the plot. " * (padding // 27) + f"Finished another one, ISBN 97805931352{n:02d}, liked it"
        )
        stored = ok(
            await client.call_tool("remember_create_memory", {"content": text, "skip_template_suggestion": True})
        )
        ok(
            await client.call_tool(
                "remember_apply_template",
                {"memory_id": stored["id"], "template_id": template_id, "structured_content": {"title": f"Book {n}"}},
            )
        )
    found = ok(await client.call_tool("remember_infer_templates", {}))
    additions = [a for a in found.get("field_additions", []) if a["template_id"] == template_id]
    if padding:
        assert additions == []
        return
    [addition] = additions
    assert addition["field"] == {"name": "isbn", "type": "string"}
    assert (addition["memories"], addition["of"]) == (4, 4)
