"""What search does beyond fusion: conversations without ids, neighbours of strong hits, the time a query names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from remember.caller import Caller
from remember.search.expand import spread, strongest, together
from remember.search.fusion import Fused
from remember.service import Services
from remember.service.search import Recipe

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


CHAT = [
    "Caroline: I went to the pottery workshop on Saturday.",
    "Melanie: Nice! What did you make?",
    "Caroline: A blue bowl with a wavy rim.",
    "Melanie: My kids are learning to swim this summer.",
]


def chat(services: Services) -> list[str]:
    made = services.memories.create_many(
        Caller(ALICE), [{"content": t, "context": {"conversation_id": "s1"}} for t in CHAT]
    )
    return [m.id for m in made]


def test_neighbours_of_strong_hits_are_lifted(services: Services) -> None:
    ids = chat(services)
    assert ids[2] not in top(services, "pottery workshop", alpha=0.0)  # shares no word with the query
    services.search.recipe = Recipe(neighbours_of=1, neighbour_share=0.8)
    hits = services.search.search(Caller(ALICE), "pottery workshop", alpha=0.0).hits
    assert [h.memory.id for h in hits][:2] == [ids[0], ids[1]]  # the best hit, then its reply
    assert hits[1].score == round(0.8 * hits[0].score, 6)


def test_neighbours_respect_deletion_and_are_off_with_filters(services: Services) -> None:
    ids = chat(services)
    services.search.recipe = Recipe(neighbours_of=2, neighbour_share=0.8)
    services.memories.delete(Caller(ALICE), ids[1])
    assert ids[1] not in top(services, "pottery workshop", alpha=0.0)
    assert ids[1] in top(services, "pottery workshop", alpha=0.0, deleted="include")
    filtered = top(services, "pottery workshop", alpha=0.0, filters={"type": "note"})
    assert filtered == [ids[0]]  # no neighbours: they would come from outside the filter


def test_spread_keeps_a_better_own_score_and_adds_the_unseen() -> None:
    fused = [Fused("a", 1.0, 1.0, 1.0, 0.5), Fused("b", 0.9, 0.9, 0.9, 0.4), Fused("c", 0.1, 0.1, 0.1, 0.1)]
    assert strongest(fused, 2) == ["a", "b"]
    out = {f.memory_id: f.fused for f in spread(fused, {"a": ["b", "c", "x"], "b": ["c"]}, 0.5)}
    assert out == {"a": 1.0, "b": 0.9, "c": 0.5, "x": 0.5}


def test_memories_within_the_time_the_query_names_rank_higher(services: Services) -> None:
    # The clock of the services fixture starts on Sunday 1 March 2026: last week is 16-22 February.
    old = services.memories.create(
        Caller(ALICE), {"content": "Bought running shoes", "context": at("2025-11-20T10:00")}
    )
    recent = services.memories.create(
        Caller(ALICE), {"content": "Bought running shoes", "context": at("2026-02-18T10:00")}
    )
    services.search.recipe = Recipe(time_boost=0.2)
    hits = services.search.search(Caller(ALICE), "what shoes did I buy last week?", explain=True).hits
    assert [h.memory.id for h in hits] == [recent.id, old.id]
    assert hits[0].why is not None and hits[0].why["time_boost"] == 0.2
    assert hits[1].why is not None and hits[1].why["time_boost"] == 0.0
    assert top(services, "what shoes did I buy in November?")[0] == old.id
    untimed = services.search.search(Caller(ALICE), "what shoes did I buy?", alpha=0.0).hits  # no time named: a tie
    assert {h.memory.id for h in untimed} == {old.id, recent.id} and untimed[0].score == untimed[1].score


def test_the_time_pool_finds_memories_of_that_time_beyond_the_usual_candidates(services: Services) -> None:
    services.memories.create_many(
        Caller(ALICE), [{"content": f"gym {n}", "context": at("2025-06-01T08:00")} for n in range(60)]
    )
    then = services.memories.create(
        Caller(ALICE),
        {"content": "Lifted weights at the gym after a long day at work, tired but happy with it",
         "context": at("2026-02-18T08:00")},
    )  # fmt: skip
    services.search.recipe = Recipe(time_boost=1.0)
    assert top(services, "gym last week", limit=1) != [then.id]  # not among the usual candidates
    services.search.recipe = Recipe(time_boost=1.0, time_pool=5)
    assert top(services, "gym last week", limit=1) == [then.id]
    assert top(services, "gym last week", limit=1, filters={"tags": {"any": ["x"]}}) == []  # filters still apply


def test_together_lifts_by_the_best_other_hit_of_the_conversation() -> None:
    t0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
    items = [
        ("c1", t0, 1.0), ("c1", t0, 0.4), ("c1", t0, 0.4), ("c2", t0, 0.9),  # c2 alone: nothing to lift it
        (None, t0, 0.8), (None, t0 + timedelta(minutes=20), 0.3), (None, t0 + timedelta(hours=2), 0.7),
        ("c3", t0, -0.2), ("c3", t0, 0.5),  # a negative score lifts nothing
    ]  # fmt: skip
    assert together(items, 0.5) == [0.2, 0.5, 0.5, 0.0, 0.15, 0.4, 0.0, 0.25, 0.0]
    assert together([], 0.5) == []
    assert together([("c", t0, 0.3), ("c", t0, 0.3)], 1.0) == [0.3, 0.3]  # a tie: each the other's best


def test_hits_in_the_company_of_other_hits_are_lifted(services: Services) -> None:
    services.memories.create_many(
        Caller(ALICE),
        [{"content": "Caroline: the pottery class is on Saturday", "context": {"conversation_id": "s1"}},
         {"content": "Melanie: I loved the pottery bowl you made", "context": {"conversation_id": "s1"}},
         {"content": "Caroline: pottery glaze shopping list", "context": {"conversation_id": "s2"}},
         {"content": "Melanie: the weather is nice", "context": {"conversation_id": "s2"}}],
    )  # fmt: skip
    plain = services.search.search(Caller(ALICE), "pottery", alpha=0.0, explain=True).hits
    assert all(h.why is not None and "conversation_boost" not in h.why for h in plain)  # off by default
    services.search.recipe = Recipe(conversation_share=0.15)
    hits = services.search.search(Caller(ALICE), "pottery", alpha=0.0, explain=True).hits
    before = {h.memory.id: h.score for h in plain}
    for hit in hits:
        assert hit.why is not None
        same = [
            h for h in plain if h.memory.context.get("conversation_id") == hit.memory.context.get("conversation_id")
        ]
        others = [before[h.memory.id] for h in same if h.memory.id != hit.memory.id]
        lift = 0.15 * max(others) if others else 0.0
        assert hit.why["conversation_boost"] == pytest.approx(lift, abs=1e-6)
        assert hit.score == pytest.approx(before[hit.memory.id] + lift, abs=2e-6)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.memory.id for h in hits} == {h.memory.id for h in plain}  # a lift re-ranks, never adds
