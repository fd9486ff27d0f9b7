"""Memories inserted together are indexed exactly as if they were inserted one at a time, on both backends.

A batch (an import's part) works out each memory's predecessor in its conversation
and its sequence number itself, then writes the index rows together; these tests
compare every index row it writes with those of the same memories written one by one.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import numpy as np

from remember.models import IndexEntry, Memory
from remember.store import Store

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _memories(user: str) -> list[tuple[Memory, IndexEntry]]:
    """Two conversations interleaved, memories without one close in time and far apart, a deleted one."""
    rng = np.random.default_rng(3)
    plan = [("a", 0), ("b", 1), (None, 2), ("a", 3), (None, 10), (None, 200), ("b", 201), (None, 205), ("a", 206)]
    out = []
    for n, (conversation, minutes) in enumerate(plan):
        at = T0 + timedelta(minutes=minutes)
        context = {"conversation_id": conversation} if conversation else {}
        memory = Memory(
            id=f"m{n}", user_id=user, content=f"turn {n} of {conversation or 'nothing'}", type="note", weight=0.5,
            trust=0.5, context=context, created_at=at, updated_at=at, occurred_at=at,
            deleted_at=at if n == 4 else None,
        )  # fmt: skip
        vector = rng.standard_normal(8).astype("<f4")
        out.append((memory, IndexEntry(memory.content, f"{at.day} January 2026", vector.tobytes())))
    return out


def _as(user: str, rows: list[tuple[Memory, IndexEntry]]) -> list[tuple[Memory, IndexEntry]]:
    return [(dataclasses.replace(m, user_id=user), e) for m, e in rows]


def _index_rows(store: Store, user: str) -> list[tuple[object, ...]]:
    with store.sql.reading() as s:
        return [
            tuple(r)
            for r in s.all(
                "SELECT memory_id, seq, conversation_id, context_of FROM memory_index WHERE user_id = ? ORDER BY seq",
                (user,),
            )
        ]


def test_a_batch_is_indexed_as_one_memory_at_a_time_would_be(store: Store) -> None:
    rows = _memories("x")
    first, second = rows[:5], rows[5:]
    for memory, entry in _as("alone", first) + _as("alone", second):
        store.memories.insert(memory, entry)
    store.memories.insert_many(_as("together", first))
    store.memories.insert_many(_as("together", second))  # predecessors found in the database, across batches
    alone, together = _index_rows(store, "alone"), _index_rows(store, "together")
    assert together == alone
    assert [r[3] for r in alone] == [None, None, None, "m0", "m2", None, "m1", "m5", "m3"]
    for memory, _ in rows:
        assert store.index.get_vector("together", memory.id) == store.index.get_vector("alone", memory.id)
    assert store.index.adjacent("together", ["m3"]) == store.index.adjacent("alone", ["m3"]) == {"m3": ["m0", "m8"]}


def test_the_context_of_a_batched_memory_is_its_predecessor_text(store: Store) -> None:
    """Found by the words of the turn before it, as a memory written alone is (a deleted predecessor's
    text is left out)."""
    store.memories.insert_many(_memories("x"))
    found = dict(store.index.keyword_candidates("x", ["turn", "3"], filter=None, deleted="exclude", limit=20))
    assert "m8" in found  # its context is turn 3's text
    hidden = dict(store.index.keyword_candidates("x", ["4"], filter=None, deleted="include", limit=20))
    assert set(hidden) == {"m4"}  # m5 follows deleted m4 too far apart; nothing carries m4's text
