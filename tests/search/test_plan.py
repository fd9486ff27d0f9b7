"""The search plan: which sides run, by which route, how a filter applies, which terms find memories."""

from __future__ import annotations

import pytest

from remember.search.plan import (
    FILTER_CHECKED_FIRST,
    GUARD_FLOOR,
    POOL,
    plan_search,
    select_terms,
)
from remember.store.sides import Capabilities

SMALL = Capabilities(100, ranked_keywords=False, approximate_vectors=False, vector_filter="exact")
LARGE = Capabilities(500_000, ranked_keywords=True, approximate_vectors=True, vector_filter="proposals")


@pytest.mark.parametrize(
    ("alpha", "keyword", "vector"),
    [(0.0, "full text", None), (1.0, None, "exact"), (0.3, "full text", "exact"), (None, "full text", "exact")],
)
def test_a_side_runs_only_when_alpha_gives_it_weight(
    alpha: float | None, keyword: str | None, vector: str | None
) -> None:
    plan = plan_search(alpha=alpha, pool=11, filtered=False, deleted="exclude", capabilities=SMALL)
    assert (plan.keyword, plan.vector, plan.pool) == (keyword, vector, POOL)


def test_a_large_user_is_searched_through_the_indexes_the_engine_has() -> None:
    plan = plan_search(alpha=0.3, pool=120, filtered=False, deleted="exclude", capabilities=LARGE)
    assert (plan.keyword, plan.vector, plan.pool) == ("ranked index", "approximate", 120)


@pytest.mark.parametrize("deleted", ["include", "only"])
def test_the_trash_is_searched_by_full_text(deleted: str) -> None:
    plan = plan_search(alpha=0.3, pool=1, filtered=False, deleted=deleted, capabilities=LARGE)  # type: ignore[arg-type]
    assert plan.keyword == "full text"  # the ranked index holds live memories only


def test_the_plan_says_how_a_filter_applies_and_what_each_side_ran() -> None:
    plan = plan_search(alpha=0.3, pool=1, filtered=True, deleted="exclude", capabilities=LARGE)
    said = plan.explained({"keyword": {"ran": "ranked index"}, "vector": {"ran": "approximate index"}}, 0.3)
    assert said["keyword"] == {"route": "ranked index", "ran": "ranked index", "filter": FILTER_CHECKED_FIRST}
    assert said["vector"] == {"route": "approximate", "ran": "approximate index", "filter": "proposals"}
    assert (said["alpha"], said["alpha_chosen"], said["pool"], said["indexed_memories"]) == (
        0.3,
        "given",
        POOL,
        500_000,
    )
    keyword_only = plan_search(alpha=0.0, pool=1, filtered=True, deleted="exclude", capabilities=LARGE)
    assert keyword_only.explained({}, 0.0)["vector"] == {"route": "off"}
    auto = plan_search(alpha=None, pool=1, filtered=False, deleted="exclude", capabilities=LARGE)
    assert auto.explained({}, 0.42)["alpha"] == 0.42
    assert auto.explained({}, 0.42)["alpha_chosen"] == "from the candidates"


def test_the_rarest_terms_find_within_the_budget_and_the_next_ones_score() -> None:
    chosen = select_terms(["common", "rare", "middle"], 100_000, [60_000, 5, 9_000])
    assert (chosen.find, chosen.score, chosen.left_out) == (["rare", "middle"], [], ["common"])
    few = select_terms(["a", "b", "c"], 200, [30, 40, 29])
    assert (few.find, few.score, few.left_out) == (["c", "a", "b"], [], [])


def test_a_question_of_common_words_still_searches_by_its_rarest() -> None:
    chosen = select_terms(["the", "and"], 100_000, [90_000, 95_000])
    assert chosen.find == ["the"] and chosen.left_out == ["and"]
    assert select_terms([], 10, []).find == []


def test_terms_past_the_budget_score_what_the_rarest_find() -> None:
    chosen = select_terms(["x", "y", "z"], 1_000_000, [9_000, 8_000, GUARD_FLOOR * 5])
    assert chosen.find == ["z"]  # 5,000: adding 8,000 would pass the budget of postings
    assert chosen.score == ["y", "x"] and chosen.left_out == []
