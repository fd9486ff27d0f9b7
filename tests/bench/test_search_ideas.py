"""The retrieval ideas of bench/search_ideas/ (none is in the product): neighbours of strong hits, the time a
question names, the company a hit keeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bench.search_ideas import Ranked, Recipe, search
from bench.search_ideas.expand import spread, strongest, together
from remember.caller import Caller
from remember.search.fusion import Fused
from remember.service import Services

ALICE = "alice"


def top(services: Services, query: str, **kwargs: Any) -> list[str]:
    return [h.memory.id for h in services.search.search(Caller(ALICE), query, **kwargs).hits]


def ranked(services: Services, query: str, recipe: Recipe, *, limit: int = 10, **options: Any) -> list[Ranked]:
    return search(services, Caller(ALICE), query, recipe, limit=limit, now=services.search.clock, **options)


def at(moment: str) -> dict[str, Any]:
    return {"timestamp": moment}


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
    hits = ranked(services, "pottery workshop", Recipe(neighbours_of=1, neighbour_share=0.8), alpha=0.0)
    assert [h.memory_id for h in hits][:2] == [ids[0], ids[1]]  # the best hit, then its reply
    assert hits[1].score == pytest.approx(0.8 * hits[0].score, abs=1e-6)


def test_neighbours_leave_out_what_is_deleted(services: Services) -> None:
    ids = chat(services)
    services.memories.delete(Caller(ALICE), ids[1])
    hits = ranked(services, "pottery workshop", Recipe(neighbours_of=2, neighbour_share=0.8), alpha=0.0)
    assert ids[1] not in [h.memory_id for h in hits]


def test_spread_keeps_a_better_own_score_and_adds_the_unseen() -> None:
    fused = [Fused(i, s, s, s, c, matched=True) for i, s, c in (("a", 1.0, 0.5), ("b", 0.9, 0.4), ("c", 0.1, 0.1))]
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
    boost = Recipe(time_boost=0.2)
    hits = ranked(services, "what shoes did I buy last week?", boost)
    assert [h.memory_id for h in hits] == [recent.id, old.id]
    assert hits[0].score == pytest.approx(hits[1].score + 0.2, abs=1e-6)
    assert ranked(services, "what shoes did I buy in November?", boost)[0].memory_id == old.id
    untimed = ranked(services, "what shoes did I buy?", boost, alpha=0.0)  # no time named: a tie
    assert {h.memory_id for h in untimed} == {old.id, recent.id} and untimed[0].score == untimed[1].score


def test_the_time_pool_finds_memories_of_that_time_beyond_the_usual_candidates(services: Services) -> None:
    services.memories.create_many(
        Caller(ALICE), [{"content": f"gym {n}", "context": at("2025-06-01T08:00")} for n in range(60)]
    )
    then = services.memories.create(
        Caller(ALICE),
        {"content": "Lifted weights at the gym after a long day at work, tired but happy with it",
         "context": at("2026-02-18T08:00")},
    )  # fmt: skip
    assert then.id not in [h.memory_id for h in ranked(services, "gym", Recipe(), limit=50, alpha=0.0)]
    pooled = Recipe(time_boost=1.0, time_pool=5)
    # The idea is measured against the plain blend it was built on (alpha 0.3), not the default's own choice.
    assert [h.memory_id for h in ranked(services, "gym last week", pooled, limit=1, alpha=0.3)] == [then.id]
    assert ranked(services, "gym last week", pooled, limit=1, alpha=0.3, filters={"tags": {"any": ["x"]}}) == []


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
    plain = services.search.search(Caller(ALICE), "pottery", alpha=0.0).hits
    hits = ranked(services, "pottery", Recipe(conversation_share=0.15), alpha=0.0)
    before = {h.memory.id: h for h in plain}
    for hit in hits:
        conversation = before[hit.memory_id].memory.context.get("conversation_id")
        same = [h for h in plain if h.memory.context.get("conversation_id") == conversation]
        others = [h.score for h in same if h.memory.id != hit.memory_id]
        lift = 0.15 * max(others) if others else 0.0
        assert hit.score == pytest.approx(before[hit.memory_id].score + lift, abs=2e-6)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.memory_id for h in hits} == set(before)  # a lift re-ranks, never adds
