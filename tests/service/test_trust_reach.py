"""A caller below full trust learns nothing of memories above its level: not from a memory's history,
not from template usage figures, and it cannot lower the default trust of memories to come."""

from __future__ import annotations

import json

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.service import Services
from remember.service.import_export.jsonl import export_records

ALICE = "alice"
BOOK = {"title": "Dune", "author": "Frank Herbert", "rating": 5}


def _declassified(services: Services) -> str:
    """A memory stored at trust 0.9 with a secret, then rewritten and lowered to 0.3, then tagged."""
    memory = services.memories.create(Caller(ALICE), {"content": "the launch code is ZEBRA-4242", "trust": 0.9})
    services.memories.update(Caller(ALICE), memory.id, {"content": "nothing to see", "trust": 0.3})
    services.memories.update(Caller(ALICE), memory.id, {"tags": ["old"]})
    return memory.id


def test_history_leaves_out_the_versions_above_the_callers_trust(services: Services) -> None:
    memory_id = _declassified(services)
    seen = services.memories.history(Caller(ALICE, 0.5), memory_id)
    assert [e.version for e in seen] == [2]  # the tagging; version 1 was the secret
    assert "ZEBRA-4242" not in json.dumps([e.as_dict() for e in seen])
    assert [e.version for e in services.memories.history(Caller(ALICE), memory_id)] == [2, 1]


def test_an_export_at_lower_trust_carries_no_version_above_it(services: Services) -> None:
    _declassified(services)
    records = list(export_records(services.store, [Caller(ALICE, 0.5)]))
    assert "ZEBRA-4242" not in json.dumps(records, default=str)
    assert "ZEBRA-4242" in json.dumps(list(export_records(services.store, [Caller(ALICE)])), default=str)


def test_template_usage_counts_only_memories_within_reach(services: Services) -> None:
    services.memories.create(
        Caller(ALICE), {"template_id": "builtin:book_review", "structured_content": BOOK, "trust": 0.95}
    )
    assert services.templates.get(Caller(ALICE, 0.5), "builtin:book_review").usage.usage_count == 0
    listed, _ = services.templates.list_templates(Caller(ALICE, 0.5))
    assert all(v.usage.usage_count == 0 for v in listed)
    assert services.templates.get(Caller(ALICE), "builtin:book_review").usage.usage_count == 1


def test_a_lower_trust_caller_cannot_change_the_default_trust(services: Services) -> None:
    services.preferences.update(Caller(ALICE), "privacy.default_trust", 0.9)
    with pytest.raises(AccessDenied, match="full-trust token"):
        services.preferences.update(Caller(ALICE, 0.5), "privacy.default_trust", 0.0)
    assert services.preferences.effective(Caller(ALICE))["privacy.default_trust"] == 0.9
    services.preferences.update(Caller(ALICE, 0.5), "search.default_alpha", 0.4)  # other preferences: as before
    assert services.preferences.effective(Caller(ALICE))["search.default_alpha"] == 0.4


def test_an_export_at_lower_trust_names_no_memory_above_it(services: Services) -> None:
    hidden = services.memories.create(Caller(ALICE), {"content": "I finished reading Dune, five stars", "trust": 0.9})
    services.suggestions.for_memory(Caller(ALICE), hidden)
    assert any(r.get("memory_id") == hidden.id for r in export_records(services.store, [Caller(ALICE)]))
    records = list(export_records(services.store, [Caller(ALICE, 0.5)]))
    assert hidden.id not in json.dumps(records, default=str)
