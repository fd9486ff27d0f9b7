"""Keyword search over more matching rows than PostgreSQL's ranking budget (store/postgres/keyword_budget.py).

A corpus where the budget must not change the answer: a rare term held by a few
memories, a common one by hundreds. The memories holding the rare term rank first
on both backends; on PostgreSQL, ranked within a budget far below the matching
rows, they are the exact ranking's, with its scores, and filters, the trash and
the trust level still decide what comes back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from remember.filters import Filter, parse_filter
from remember.models import DeletedMode, IndexEntry, Memory
from remember.store import Store, open_store
from remember.store.postgres import PostgresBackend, keyword_budget
from remember.store.sql import terms
from remember.store.sql.terms import TermStatistics

T0 = datetime(2026, 3, 1, tzinfo=UTC)
COMMON = 400  # memories holding "guitar"
RARE = range(0, COMMON, 25)  # 16 of them also hold "zither"
SPECIAL = range(3, COMMON, 40)  # 10 memories of type "special", none holding "zither"
SECRET = (0, 50)  # zither memories above a restricted caller's trust
TRASHED = (25, 75)  # zither memories in the trash
BUDGET = 60  # far below the 416 matching rows


def memory(i: int) -> tuple[Memory, IndexEntry]:
    at = T0 + timedelta(minutes=i)
    words = f"guitar lesson {i} with zither" if i in RARE else f"guitar lesson {i} at home"
    m = Memory(
        id=f"m{i:05d}", user_id="alice", content=words, type="special" if i in SPECIAL else "note",
        weight=0.5, trust=0.9 if i in SECRET else 0.5, created_at=at, updated_at=at, occurred_at=at,
        deleted_at=at if i in TRASHED else None,
    )  # fmt: skip
    return m, IndexEntry(words, "1 March 2026", None)


@pytest.fixture
def filled(store_url: str) -> Iterator[Store]:
    store = open_store(store_url)
    store.memories.insert_many([memory(i) for i in range(COMMON)])
    store.memories.insert_many([(replace(m, user_id="bob"), e) for m, e in (memory(i) for i in RARE)])
    if isinstance(store.backend, PostgresBackend):
        store.index.keyword_rank_budget = BUDGET
    yield store
    store.close()


def ranked(store: Store, filter: Filter | None = None, deleted: DeletedMode = "exclude", limit: int = 10) -> Any:
    return store.index.keyword_candidates("alice", ["zither", "guitar"], filter=filter, deleted=deleted, limit=limit)


def exact(store: Store, filter: Filter | None = None, deleted: DeletedMode = "exclude", limit: int = 10) -> Any:
    """The ranking of every matching row (PostgreSQL without a budget; SQLite as it is)."""
    budget = getattr(store, "keyword_rank_budget", None)
    if isinstance(store.backend, PostgresBackend):
        store.index.keyword_rank_budget = None
    try:
        return ranked(store, filter, deleted, limit)
    finally:
        if isinstance(store.backend, PostgresBackend):
            store.index.keyword_rank_budget = budget


def ids(found: list[tuple[str, float]]) -> set[str]:
    return {i for i, _ in found}


def zither(*leaving: tuple[int, ...]) -> set[str]:
    out = set(RARE).difference(*leaving)
    return {f"m{i:05d}" for i in out}


def test_the_memories_holding_the_rare_term_rank_first(filled: Store) -> None:
    found = ranked(filled, limit=14)
    assert ids(found) == zither(TRASHED)
    assert found == exact(filled, limit=14)
    assert all(i.startswith("m") for i in ids(ranked(filled, limit=50)))  # bob's never


def test_a_filter_holds_in_the_budget_and_reaches_memories_of_common_terms_alone(filled: Store) -> None:
    special = parse_filter({"type": "special"})
    found = ranked(filled, filter=special, limit=20)
    assert ids(found) == {f"m{i:05d}" for i in SPECIAL}  # none holds "zither"; all ten still come back
    assert found == exact(filled, filter=special, limit=20)


def test_the_trash_and_the_trust_level_hold(filled: Store) -> None:
    assert ids(ranked(filled, deleted="only", limit=10)) == {f"m{i:05d}" for i in TRASHED}
    assert ranked(filled, deleted="only") == exact(filled, deleted="only")
    restricted = parse_filter({"trust": {"lte": 0.5}})
    found = ranked(filled, filter=restricted, limit=12)
    assert ids(found) == zither(TRASHED, SECRET)
    assert found == exact(filled, filter=restricted, limit=12)


@pytest.mark.parametrize("odd", ["a & b", "!zither", "<->", "'", "guitar:*", "(x | y)", "\\", "%s"])
def test_any_term_is_only_text_in_the_budgeted_ranking(filled: Store, odd: str) -> None:
    found = filled.index.keyword_candidates(
        "alice", ["zither", odd, "guitar"], filter=None, deleted="exclude", limit=20
    )
    assert len(found) == 20 and ids(found) >= zither(TRASHED)


def test_the_budget_counts_terms_as_the_service_does_so_both_share_the_cached_counts() -> None:
    from remember.search import plan

    assert keyword_budget.COUNT_CAP == plan.POSTINGS_BUDGET + 1


@pytest.mark.postgres
def test_below_the_budget_every_matching_row_is_ranked(postgres_url: str) -> None:
    assert keyword_budget.plan(["a", "b"], [30, 30], 1_000, 60, 10) is None
    chosen = keyword_budget.plan(["common", "rare", "mid"], [500, 5, 40], 1_000, 60, 10)
    assert chosen is not None
    assert chosen.whole == ["rare", "mid"]
    assert chosen.sampled == [(("common",), 15)]  # what the budget leaves, at least the limit
    two = keyword_budget.plan(["cat", "dog", "owl"], [900, 800, 5], 1_000, 65, 10)
    assert two is not None  # memories holding both common terms are sought too
    assert two.whole == ["owl"]
    assert two.sampled == [(("dog",), 20), (("cat",), 20), (("dog", "cat"), 20)]
    many = keyword_budget.plan([f"t{i}" for i in range(10)], [1_500 + i for i in range(10)], 20_000, 1_000, 50)
    assert many is not None and len(many.sampled) == 10 + 6  # pairs of the four rarest only
    assert chosen.idf["rare"] > chosen.idf["mid"] > chosen.idf["common"] > 0
    store = open_store(postgres_url)
    try:
        store.memories.insert_many([memory(i) for i in range(40)])
        assert isinstance(store.backend, PostgresBackend)
        assert ranked(store, limit=50) == exact(store, limit=50)
    finally:
        store.close()


STEMMED = {"morning exercises": 3, "a universal remote": 2, "choose wisely": 4, "the film studios": 1}


def test_a_term_is_counted_as_the_index_stems_it(store: Store) -> None:
    # Counted by the stem itself, "exercises" (stem "exercis", stemmed again "exerci") held no memory:
    # a common word looked rare, was kept first, and ranked every memory holding it.
    rows = [text for text, times in STEMMED.items() for _ in range(times)]
    apart = [replace(memory(i)[0], content=text, occurred_at=T0 + timedelta(days=i)) for i, text in enumerate(rows)]
    store.memories.insert_many([(m, IndexEntry(m.content, "1 March 2026", None)) for m in apart])  # no context
    words = ["exercises", "exercise", "universal", "choose", "choosing", "studios", "absent"]
    assert store.index.term_document_counts("alice", words, cap=100) == (10, [3, 3, 2, 4, 4, 1, 0])
    assert store.index.term_document_counts("alice", words, cap=2) == (10, [2, 2, 2, 2, 2, 1, 0])


@pytest.mark.parametrize("neighbour", ["", "aaron", "zoe"])  # no one else; a user before alice, after her
def test_a_users_total_is_their_own_alone_or_not(store: Store, neighbour: str) -> None:
    store.memories.insert_many([memory(i) for i in range(7)])
    if neighbour:
        store.memories.insert_many([(replace(m, user_id=neighbour), e) for m, e in (memory(i) for i in range(3))])
    assert store.index.term_document_counts("alice", ["guitar"], cap=100) == (7, [7])
    if neighbour:
        assert store.index.term_document_counts(neighbour, ["guitar"], cap=100) == (3, [3])
    assert store.index.term_document_counts("nobody", ["guitar"], cap=100) == (0, [0])


def test_counts_and_totals_are_reused_until_forgotten() -> None:
    stats, asked = TermStatistics(), []

    def count(terms: list[str], cap: int) -> list[int]:
        asked.append(sorted(terms))
        return [len(t) for t in terms]

    assert stats.counts("alice", ["ab", "abc"], 10, count) == [2, 3]
    assert stats.counts("alice", ["abc"], 10, count) == [3] and asked == [["ab", "abc"]]  # reused
    assert stats.total("alice", lambda: 7) == 7 and stats.total("alice", lambda: 8) == 7
    stats.forget()  # as after a pause of a few seconds
    assert stats.counts("alice", ["abc"], 10, count) == [3] and asked == [["ab", "abc"], ["abc"]]
    assert stats.total("alice", lambda: 8) == 8


def test_a_total_stays_while_its_index_has_not_moved(monkeypatch: pytest.MonkeyPatch) -> None:
    stats, newest, counted = TermStatistics(), [10], []

    def count() -> int:
        counted.append(newest[0])
        return newest[0] * 2

    def total() -> int:
        return stats.total("alice", count, lambda: newest[0])

    assert total() == 20 and counted == [10]
    stats.forget()
    assert total() == 20 and counted == [10]  # checked, not counted: nothing new since
    newest[0] = 11
    stats.forget()
    assert total() == 22 and counted == [10, 11]  # a memory written: counted again
    monkeypatch.setattr(terms, "UNMOVED_SECONDS", 0.0)
    stats.forget()
    assert total() == 22 and counted == [10, 11, 11]  # kept unmoved too long (a purge moves no seq): counted again


def test_a_count_outlives_a_pause_while_few_memories_are_written() -> None:
    stats, newest, asked = TermStatistics(), [100], []

    def count(terms: list[str], cap: int) -> list[int]:
        asked.extend(terms)
        return [{"common": 200, "rare": 2, "none": 0}[t] for t in terms]

    def look(*words: str) -> list[int]:
        return stats.counts("alice", list(words), 1_000, count, lambda: newest[0])

    assert look("common", "rare", "none") == [200, 2, 0] and asked == ["common", "rare", "none"]
    stats.pause()
    assert look("common", "rare", "none") == [200, 2, 0] and len(asked) == 3  # nothing written: all kept
    newest[0] += int(terms.DRIFT * 200)  # as many writes as could move "common" by DRIFT
    stats.pause()
    assert look("common", "rare", "none") == [200, 2, 0] and asked[3:] == ["rare", "none"]
    newest[0] += 1
    stats.pause()
    assert look("common") == [200] and asked[5:] == ["common"]  # one write past DRIFT: counted again
    assert look("common") == [200] and asked[6:] == []  # within SECONDS of the count: no look at all


def test_a_count_is_counted_again_when_old_or_the_seq_went_back(monkeypatch: pytest.MonkeyPatch) -> None:
    stats, newest, asked = TermStatistics(), [100], []

    def look() -> list[int]:
        return stats.counts("alice", ["common"], 1_000, lambda t, _: asked.append(t) or [200], lambda: newest[0])

    look()
    newest[0] = 99  # the newest memory purged: the seq goes back
    stats.pause()
    look()
    assert len(asked) == 2
    monkeypatch.setattr(terms, "KEPT_SECONDS", 0.0)  # a purge moves no seq: old counts go
    stats.pause()
    look()
    assert len(asked) == 3
    assert stats.counts("alice", ["common"], 1_000, lambda t, _: asked.append(t) or [200]) == [200]
    stats.pause()
    assert stats.counts("alice", ["common"], 1_000, lambda t, _: asked.append(t) or [200]) == [200]
    assert len(asked) == 4  # without the newest seq, nothing outlives SECONDS


def test_a_stores_counts_outlive_a_pause_until_enough_is_written(store: Store) -> None:
    stats = store.index.term_stats  # type: ignore[attr-defined]

    def look() -> tuple[int, list[int]]:
        return store.index.term_document_counts("alice", ["guitar", "zither"], cap=100)

    store.memories.insert_many([memory(i) for i in range(40)])
    (_, (guitar, zither)) = look()
    assert guitar == 40 and zither > 0
    store.memories.insert_many([memory(i) for i in range(40, 42)])  # 2 writes: within DRIFT of 40, not of zither's
    stats.pause()
    assert look() == (42, [40, zither])  # the total and zither's count looked at again, guitar's kept
    store.memories.insert_many([memory(i) for i in range(42, 51)])  # zither in memory 50
    stats.pause()
    total, (guitar, more) = look()
    assert (total, guitar) == (51, 51) and more > zither  # 11 writes since guitar's count: counted again
    stats.forget()
    assert look() == (51, [51, more])


def test_a_memory_written_moves_the_total_at_the_next_look(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.memories.insert_many([memory(i) for i in range(5)])
    assert store.index.term_document_counts("alice", ["guitar"], cap=100)[0] == 5
    monkeypatch.setattr(terms, "SECONDS", 0.0)  # every look is after a pause
    assert store.index.term_document_counts("alice", ["guitar"], cap=100)[0] == 5
    store.memories.insert_many([memory(i) for i in range(5, 8)])
    assert store.index.term_document_counts("alice", ["guitar"], cap=100)[0] == 8


def scoring_corpus(store: Store) -> set[str]:
    """Of 210 memories, 30 hold 'zither' (10 'lesson' too), 30 'lesson' alone; the ids holding 'zither'
    in their text (the next memory holds it as its context). Each text its own length: no two scores tie."""
    texts = ["zither" + " note" * i + (" lesson" if i % 3 == 0 else "") for i in range(30)]
    texts += ["lesson" + " chord" * i for i in range(30)] + [f"quiet day {i}" for i in range(150)]
    rows = [(replace(memory(i)[0], content=t), IndexEntry(t, "1 March 2026", None)) for i, t in enumerate(texts)]
    store.memories.insert_many(rows)
    return {f"m{i:05d}" for i in range(30)}


def _rounded(hits: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(i, round(score, 6)) for i, score in hits]


def test_terms_that_only_score_rank_what_the_found_ones_find_as_all_terms_would(store: Store) -> None:
    scoring_corpus(store)
    everything = store.index.keyword_candidates("alice", ["zither", "lesson"], filter=None, deleted="exclude", limit=90)
    holding = {
        i for i, _ in store.index.keyword_candidates("alice", ["zither"], filter=None, deleted="exclude", limit=90)
    }
    found = [hit for hit in everything if hit[0] in holding]  # what 'zither' finds, scored by both terms
    assert len(found) >= 29
    for filter in (None, parse_filter({"weight": {"gte": 0}})):
        for limit in (3, 30):
            scored = store.index.keyword_candidates(
                "alice", ["zither"], filter=filter, deleted="exclude", limit=limit, also=["lesson", "zithers"]
            )
            assert _rounded(scored) == _rounded(found[:limit])  # 'zithers' is 'zither': not counted twice
    plain = store.index.keyword_candidates("alice", ["zither"], filter=None, deleted="exclude", limit=10)
    assert [i for i, _ in plain] != [i for i, _ in found[:10]]


def test_terms_that_only_score_weigh_in_within_the_budget(postgres_url: str) -> None:
    store = open_store(postgres_url)
    assert isinstance(store.backend, PostgresBackend)
    try:
        zither = scoring_corpus(store)
        exact = dict(
            store.index.keyword_candidates("alice", ["zither", "lesson"], filter=None, deleted="exclude", limit=60)
        )
        store.index.keyword_rank_budget = 10  # 30 memories hold 'zither': ranked within the budget
        scored = store.index.keyword_candidates(
            "alice", ["zither"], filter=None, deleted="exclude", limit=10, also=["lesson"]
        )
        assert scored and {i for i, _ in scored} <= zither
        assert all(round(score, 6) == round(exact[i], 6) for i, score in scored)  # every picked row, both terms
    finally:
        store.close()
