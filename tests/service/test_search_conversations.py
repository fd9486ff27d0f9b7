"""Conversations in search: turns without ids form one by time, and a memory's neighbours in its own."""

from __future__ import annotations

from typing import Any

from remember.caller import Caller
from remember.service import Services

ALICE = "alice"


def top(services: Services, query: str, **kwargs: Any) -> list[str]:
    return [h.memory.id for h in services.search.search(Caller(ALICE), query, **kwargs).hits]


def at(moment: str) -> dict[str, Any]:
    return {"timestamp": moment}


def test_turns_stored_close_in_time_without_ids_form_a_conversation(services: Services) -> None:
    question = services.memories.create(Caller(ALICE), {"content": "Tom: how long have you had your guitar?"})
    reply = services.memories.create(Caller(ALICE), {"content": "Me: about seven years now."})
    assert top(services, "guitar", alpha=0.0) == [question.id, reply.id]  # the reply carries the question


def test_memories_far_apart_in_time_are_not_one_conversation(services: Services) -> None:
    first = services.memories.create(
        Caller(ALICE), {"content": "Bought a new guitar", "context": at("2024-01-01T10:00")}
    )
    services.memories.create(Caller(ALICE), {"content": "Paid the rent", "context": at("2024-01-01T11:00")})
    assert top(services, "guitar", alpha=0.0) == [first.id]


def test_a_memory_with_a_conversation_id_does_not_join_the_ones_without(services: Services) -> None:
    loose = services.memories.create(Caller(ALICE), {"content": "Bought a new guitar"})
    services.memories.create(Caller(ALICE), {"content": "Paid the rent", "context": {"conversation_id": "c1"}})
    assert top(services, "guitar", alpha=0.0) == [loose.id]
    after = services.memories.create(Caller(ALICE), {"content": "It is red."})  # continues the loose one
    assert top(services, "guitar", alpha=0.0) == [loose.id, after.id]


def test_adjacent_gives_the_turns_before_and_after(services: Services) -> None:
    made = services.memories.create_many(
        Caller(ALICE), [{"content": f"turn {n}", "context": {"conversation_id": "c"}} for n in range(3)]
    )
    other = services.memories.create(Caller(ALICE), {"content": "elsewhere", "context": {"conversation_id": "d"}})
    a, b, c = (m.id for m in made)
    found = services.store.index.adjacent(ALICE, [a, b, c, other.id, "no-such-id"])
    assert found == {a: [b], b: [a, c], c: [b], other.id: [], "no-such-id": []}
    assert services.store.index.adjacent("bob", [a, b]) == {a: [], b: []}  # another user's ids: nothing
