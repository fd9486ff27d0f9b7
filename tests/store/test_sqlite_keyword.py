"""The sole-user shortcut of SQLite keyword candidates answers exactly as the general query."""

from __future__ import annotations

from pathlib import Path

import pytest

from remember.caller import Caller
from remember.filters import parse_filter
from remember.models import DeletedMode
from remember.service import Services
from remember.store import Store, open_store
from remember.store.sqlite.store import SqliteBackend

ALWAYS = parse_filter({"weight": {"gte": 0}})  # true for every memory: forces the general query


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return Services.over(open_store(str(tmp_path / "kw.db")))


def _store(services: Services) -> Store:
    assert isinstance(services.store.backend, SqliteBackend)
    return services.store


def _fill(services: Services, user: str, count: int) -> list[str]:
    """Memories where 'guitar' weighs more the lower the number (shorter text, more repeats)."""
    made = services.memories.create_many(
        Caller(user), [{"content": "guitar " * (count - i) + "filler " * i} for i in range(count)]
    )
    return [m.id for m in made]


def _general(services: Services, user: str, deleted: DeletedMode, limit: int) -> list[str]:
    found = _store(services).index.keyword_candidates(user, ["guitar"], filter=ALWAYS, deleted=deleted, limit=limit)
    return [i for i, _ in found]


def _quick(services: Services, user: str, deleted: DeletedMode, limit: int) -> list[str]:
    found = _store(services).index.keyword_candidates(user, ["guitar"], filter=None, deleted=deleted, limit=limit)
    return [i for i, _ in found]


@pytest.mark.parametrize("deleted", ["exclude", "include", "only"])
def test_the_shortcut_and_the_general_query_agree(services: Services, deleted: DeletedMode) -> None:
    ids = _fill(services, "solo", 40)
    for memory_id in ids[:25]:  # the best-ranked ones are trashed: more than the shortcut's reach
        services.memories.delete(Caller("solo"), memory_id)
    for limit in (1, 5, 10, 30):
        quick = _quick(services, "solo", deleted, limit)
        assert quick == _general(services, "solo", deleted, limit)
        assert len(quick) == min(limit, {"exclude": 15, "include": 40, "only": 25}[deleted])


def test_the_shortcut_answers_when_it_can_be_sure_and_steps_aside_when_not(services: Services) -> None:
    ids = _fill(services, "solo", 40)
    store = _store(services)
    taken = store.index._best_ranked("solo", '"guitar"', 0, "exclude", 5)
    assert taken is not None and [i for i, _ in taken] == ids[:5]
    for memory_id in ids[:25]:
        services.memories.delete(Caller("solo"), memory_id)
    assert store.index._best_ranked("solo", '"guitar"', 0, "exclude", 5) is None  # its reach holds only trashed rows
    taken = store.index._best_ranked("solo", '"guitar"', 0, "exclude", 30)  # the reach covers every match: exact
    assert taken is not None and [i for i, _ in taken] == ids[25:]


def test_with_a_second_user_each_sees_only_their_own(services: Services) -> None:
    mine = _fill(services, "alice", 10)
    theirs = _fill(services, "bob", 10)
    for user, own in (("alice", mine), ("bob", theirs)):
        quick = _quick(services, user, "exclude", 20)
        assert quick == own and quick == _general(services, user, "exclude", 20)


@pytest.mark.parametrize("others", [False, True], ids=["sole user", "shared file"])
def test_past_the_reach_only_the_newest_memories_holding_a_common_term_are_ranked(
    services: Services, monkeypatch: pytest.MonkeyPatch, others: bool
) -> None:
    """A query whose rarest term is in more memories than KEYWORD_REACH ranks the newest of them only,
    exactly as it would rank them alone; below the reach, every memory holding a term is ranked."""
    from remember.store.sqlite import search

    ids = _fill(services, "solo", 60)  # the oldest rank best: 'guitar' is repeated more in them
    if others:
        _fill(services, "other", 30)
    everyone = _general(services, "solo", "exclude", 60)
    assert everyone[:3] == ids[:3]
    monkeypatch.setattr(search, "KEYWORD_REACH", 20)
    _store(services).index.term_stats.forget()  # counts made afresh
    newest = set(ids[-20:])
    for ranked in (_quick(services, "solo", "exclude", 10), _general(services, "solo", "exclude", 10)):
        assert set(ranked) <= newest
        assert ranked == [i for i in everyone if i in newest][:10]  # the same order the full ranking gives them
    monkeypatch.setattr(search, "KEYWORD_REACH", 60)
    _store(services).index.term_stats.forget()
    assert _quick(services, "solo", "exclude", 10) == everyone[:10]


def _crowd(services: Services, user: str) -> tuple[list[str], list[str]]:
    """30 memories holding 'zither', 10 of them 'lesson' too; 30 holding 'lesson' alone; 150 holding
    neither. Each text its own length (no two scores tie), each its own conversation (no text is
    another's context)."""
    texts = ["zither" + " note" * i + (" lesson" if i % 3 == 0 else "") for i in range(30)]
    texts += ["lesson" + " chord" * i for i in range(30)] + [f"quiet day {i}" for i in range(150)]
    made = services.memories.create_many(
        Caller(user), [{"content": t, "context": {"conversation_id": f"c{i}"}} for i, t in enumerate(texts)]
    )
    ids = [m.id for m in made]
    return ids[:30], ids[30:60]


def _rounded(hits: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(i, round(score, 9)) for i, score in hits]


@pytest.mark.parametrize("others", [False, True], ids=["sole user", "shared file"])
def test_terms_that_only_score_rank_what_the_kept_terms_find_as_all_terms_would(
    services: Services, others: bool
) -> None:
    zither, lesson_alone = _crowd(services, "solo")
    if others:
        _crowd(services, "other")
    store = _store(services)
    everything = store.index.keyword_candidates("solo", ["zither", "lesson"], filter=None, deleted="exclude", limit=60)
    found = [hit for hit in everything if hit[0] in zither]  # the memories 'zither' finds, scored by both terms
    for filter in (None, ALWAYS):
        for limit in (3, 10, 30):
            scored = store.index.keyword_candidates(
                "solo", ["zither"], filter=filter, deleted="exclude", limit=limit, also=["lesson"]
            )
            assert _rounded(scored) == _rounded(found[:limit])
            assert not {i for i, _ in scored} & set(lesson_alone)  # 'lesson' finds nothing by itself
    plain = store.index.keyword_candidates("solo", ["zither"], filter=None, deleted="exclude", limit=10)
    assert [i for i, _ in plain] != [i for i, _ in found[:10]]  # without 'lesson', another order
    same_stem = store.index.keyword_candidates(
        "solo", ["zither"], filter=None, deleted="exclude", limit=10, also=["zithers"]
    )
    assert same_stem == plain  # a term the kept ones already hold (after stemming) is not counted twice


def test_a_search_keeps_the_rare_terms_to_find_and_the_common_ones_to_score(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.search import plan as search

    _crowd(services, "solo")  # of 210: zither 30, lesson 40, note 29, chord 29

    def pick(_: Caller, terms: list[str]) -> tuple[list[str], list[str]]:
        total, counts = services.store.index.term_document_counts("solo", terms, cap=search.POSTINGS_BUDGET + 1)
        chosen = search.select_terms(terms, total, counts)
        return chosen.find, chosen.score

    assert pick(Caller("solo"), ["zither", "lesson"]) == (["zither", "lesson"], [])  # within the budget: all find
    monkeypatch.setattr(search, "POSTINGS_BUDGET", 35)
    assert pick(Caller("solo"), ["lesson", "zither", "absent"]) == (["absent", "zither"], ["lesson"])
    monkeypatch.setattr(search, "ALSO_TERMS", 1)
    assert pick(Caller("solo"), ["lesson", "note", "zither"]) == (["note"], ["zither"])  # the rarest of the rest
    monkeypatch.setattr(search, "ALSO_REACH", 28)  # 'note' finds 29 memories: too many to score again
    assert pick(Caller("solo"), ["lesson", "note", "zither"]) == (["note"], [])
    monkeypatch.setattr(search, "ALSO_REACH", 29)
    assert pick(Caller("solo"), ["lesson", "note", "zither"]) == (["note"], ["zither"])
    monkeypatch.setattr(search, "GUARD_FLOOR", 10)
    monkeypatch.setattr(search, "MAX_DF_SHARE", 0.1)  # a ceiling of 21 of the 210: every term over it
    assert pick(Caller("solo"), ["lesson", "zither"]) == (["zither"], [])
