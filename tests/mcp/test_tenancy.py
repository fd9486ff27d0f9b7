"""No tool lets one user read, change or learn of another user's data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from remember.caller import Caller
from remember.service import Services
from support import error, fingerprint, ok

pytestmark = pytest.mark.anyio

ID_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("remember_get_memory", {"include_history": True}),
    ("remember_update_memory", {"title": "pwned"}),
    ("remember_delete_memory", {}),
    ("remember_delete_memory", {"permanent": True}),
    ("remember_restore_memory", {}),
]


@pytest.fixture
async def alices(client: Client) -> dict[str, Any]:
    made = ok(await client.call_tool("remember_create_memory", {"content": "Alice's secret", "tags": ["private"]}))
    ok(await client.call_tool("remember_update_preferences", {"preference_path": "search.default_limit", "value": 42}))
    return made


@pytest.mark.parametrize(("tool", "extra"), ID_TOOLS)
async def test_another_users_id_is_not_found(
    bob: Client, alices: dict[str, Any], db: Path, tool: str, extra: dict[str, Any]
) -> None:
    before = fingerprint(db)
    message = error(await bob.call_tool(tool, {"memory_id": alices["id"], **extra}))
    # The same answer as for an id that never existed: nothing is learned.
    assert message.endswith(f"No memory with id {alices['id']!r}. Find ids by listing or searching memories.")
    assert fingerprint(db) == before


async def test_listing_and_filters_show_only_ones_own(bob: Client, alices: dict[str, Any]) -> None:
    for args in (
        {},
        {"include_deleted": "include"},
        {"tags": ["private"]},
        {"filters": {"id": alices["id"]}},
        {"filters": {"content": {"contains": "secret"}}},
    ):
        page = ok(await bob.call_tool("remember_list_memories", args))
        assert page["total"] == 0 and page["memories"] == [], args


async def test_preferences_are_per_user(bob: Client, alices: dict[str, Any]) -> None:
    prefs = ok(await bob.call_tool("remember_get_preferences", {"category": "search"}))
    assert prefs["preferences"]["search"]["default_limit"] == 10
    change = ok(
        await bob.call_tool("remember_update_preferences", {"preference_path": "search.default_limit", "value": 5})
    )
    assert change["old_value"] == 10


async def test_creating_as_bob_leaves_alice_alone(bob: Client, alices: dict[str, Any], services: Services) -> None:
    ok(await bob.call_tool("remember_create_memory", {"content": "Bob's note"}))
    alice_view = services.memories.list(Caller("alice"))
    assert [m.content for m in alice_view.items] == ["Alice's secret"]
    assert services.preferences.effective(Caller("alice"))["search.default_limit"] == 42
