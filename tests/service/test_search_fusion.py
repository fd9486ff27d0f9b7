"""How a search fuses its two sides: an alpha given (per search or as ``search.default_alpha``) is used
exactly; without one, a long text's keywords count for less, alpha follows the candidates, and the
first places hold more than one conversation when another's match is close."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.search.spread import FIRST_PLACES, YIELD
from remember.service import Services

ALICE = Caller("alice")
SHORT = "I keep my old running sneakers in a box under the bed."
# An essay that names sneakers often, and is not about where the user keeps theirs.
LONG = " ".join(
    f"Sneakers part {n}: running sneakers need cushioning, old sneakers lose it, and sneakers for trails "
    "need grip; choose sneakers by the shape of your foot and the ground you run on."
    for n in range(16)
)


def hybrid(services: Services, query: str, **options: Any) -> list[Any]:
    return services.search.search(ALICE, query, explain=True, min_score=-1.0, **options).hits


@pytest.mark.parametrize("given", ["search", "preference"])
def test_an_alpha_given_is_used_exactly(services: Services, given: str) -> None:
    services.memories.create_many(ALICE, [{"content": SHORT}, {"content": LONG}, {"content": "Bought new sneakers"}])
    if given == "preference":
        services.preferences.update(ALICE, "search.default_alpha", 0.3)
        found = services.search.search(ALICE, "where are my old sneakers", explain=True, min_score=-1.0)
    else:
        found = services.search.search(ALICE, "where are my old sneakers", alpha=0.3, explain=True, min_score=-1.0)
    assert found.alpha == 0.3 and found.plan is not None and found.plan["alpha_chosen"] == "given"
    for hit in found.hits:
        why = hit.why
        assert why is not None and why["long_text"] == 1.0 and "gave_way" not in why
        assert why["fused"] == pytest.approx(0.3 * why["semantic"] + 0.7 * why["keyword"], abs=2e-6)
        assert hit.score == pytest.approx(why["fused"] + why["weight_boost"] + why["recency_boost"], abs=2e-6)
    assert [h.score for h in found.hits] == sorted((h.score for h in found.hits), reverse=True)


def test_without_an_alpha_a_long_text_needs_more_than_its_keywords(services: Services) -> None:
    short, long = (m.id for m in services.memories.create_many(ALICE, [{"content": SHORT}, {"content": LONG}]))
    by_keywords = hybrid(services, "old sneakers", alpha=0.0)
    assert [h.memory.id for h in by_keywords] == [long, short]  # the essay holds the words more often
    chosen = {h.memory.id: h for h in hybrid(services, "old sneakers")}
    assert chosen[long].why["long_text"] == pytest.approx((600 / len(LONG)) ** 0.5, abs=1e-6)
    assert chosen[short].why["long_text"] == 1.0
    assert chosen[short].why["keyword"] == 1.0 and chosen[short].score > chosen[long].score


ELSEWHERE = ["Dentist appointment moved to Tuesday.", "The tax forms are due in April.", "Bought oat milk and eggs."]
WALK = "a walk in the hills"  # no word of it in the notes: meaning alone ranks them


def conversations(services: Services) -> str:
    """Five like notes of one conversation, one more of another (its id), and a few on other things."""
    services.memories.create_many(ALICE, [{"content": t, "context": {"conversation_id": t}} for t in ELSEWHERE])
    tam = [
        {"content": f"Hiking at Mount Tam today (note {n}).", "context": {"conversation_id": "tam"}} for n in range(5)
    ]
    services.memories.create_many(ALICE, tam)
    return services.memories.create(
        ALICE, {"content": "Hiking at Mount Tam today (note 5).", "context": {"conversation_id": "may"}}
    ).id


def test_without_an_alpha_another_conversation_s_close_match_moves_up(services: Services) -> None:
    other = conversations(services)
    by_score = [h.memory.id for h in hybrid(services, WALK, alpha=1.0)]
    assert by_score.index(other) == FIRST_PLACES  # sixth on its own score, after the five of "tam"
    chosen = hybrid(services, WALK)
    assert [h.memory.id for h in chosen].index(other) == 3  # after three of "tam": a close match
    assert [h.why["gave_way"] for h in chosen[:FIRST_PLACES]] == [0.0, 0.0, 0.0, 0.0, YIELD]
    assert chosen[4].score > chosen[3].score  # the fourth of "tam" gave way


def test_with_an_alpha_given_the_ranking_is_by_score_alone(services: Services) -> None:
    conversations(services)
    found = hybrid(services, WALK, alpha=0.5)
    assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)


def test_pages_of_a_spread_ranking_follow_each_other(services: Services) -> None:
    conversations(services)
    whole = [h.memory.id for h in services.search.search(ALICE, WALK, limit=6).hits]
    pages = [
        h.memory.id for offset in (0, 2, 4) for h in services.search.search(ALICE, WALK, limit=2, offset=offset).hits
    ]
    assert pages == whole
