"""The first places of a ranking spread over conversations: a conversation's fourth and fifth hits give
way to another conversation's close match, not to a far one, and the rest keeps its order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from remember.search.spread import FIRST_PLACES, YIELD, Placed, conversation_keys, spread, widest

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def hits(*scored: tuple[float, str | None]) -> list[Placed]:
    return [Placed(score, conversation, T0) for score, conversation in scored]


def test_a_close_match_of_another_conversation_takes_the_fourth_place() -> None:
    ranked = hits((0.9, "a"), (0.85, "a"), (0.8, "a"), (0.78, "a"), (0.75, "b"), (0.7, "a"))
    order, gave = spread(ranked)
    assert order == [0, 1, 2, 4, 3, 5]
    assert gave[3] == pytest.approx(YIELD)  # a's fourth hit, placed fifth, gave way by one step
    assert [gave[i] for i in (0, 1, 2, 4, 5)] == [0.0] * 5


def test_a_far_match_does_not_move() -> None:
    ranked = hits((0.9, "a"), (0.85, "a"), (0.8, "a"), (0.78, "a"), (0.70, "b"))
    assert spread(ranked)[0] == [0, 1, 2, 3, 4]


def test_three_hits_of_one_conversation_are_placed_at_their_own_score() -> None:
    ranked = hits((0.9, "a"), (0.89, "a"), (0.88, "a"), (0.87, "b"), (0.86, "b"), (0.85, "c"))
    assert spread(ranked)[0] == [0, 1, 2, 3, 4, 5]


def test_past_the_first_places_the_order_is_kept() -> None:
    ranked = hits(*[(1.0 - n / 100, "a") for n in range(9)], (0.5, "b"))
    order, _ = spread(ranked)
    assert order[:FIRST_PLACES] == [0, 1, 2, 3, 4] and order[FIRST_PLACES:] == [5, 6, 7, 8, 9]
    assert widest() == pytest.approx(2 * YIELD)  # the fifth place's hit can have given way twice


def test_memories_without_a_conversation_id_are_one_conversation_while_close_in_time() -> None:
    times = [T0, T0 + timedelta(minutes=20), T0 + timedelta(minutes=45), T0 + timedelta(hours=3)]
    loose = [Placed(0.5, None, t) for t in times] + [Placed(0.5, "x", T0)]
    keys = conversation_keys(loose)
    assert keys[0] == keys[1] == keys[2]  # each within 30 minutes of the one before
    assert len({keys[2], keys[3], keys[4]}) == 3  # three hours later; and one with an id


def test_a_spread_of_loose_memories_follows_their_time() -> None:
    same_evening = [Placed(0.9 - n / 100, None, T0 + timedelta(minutes=5 * n)) for n in range(4)]
    other_day = Placed(0.84, None, T0 + timedelta(days=2))
    order, _ = spread([*same_evening, other_day])
    assert order == [0, 1, 2, 4, 3]


def test_a_hit_too_far_down_to_be_placed_first_changes_nothing_above_it() -> None:
    early = [Placed(0.9 - n / 100, None, T0) for n in range(4)]  # one evening's conversation
    later = Placed(0.85, None, T0 + timedelta(minutes=50))  # another: more than 30 minutes after
    bridge = Placed(0.1, None, T0 + timedelta(minutes=25))  # would join the two, but cannot be placed first
    assert spread([*early, later])[0] == [0, 1, 2, 4, 3]
    assert spread([*early, later, bridge])[0] == [0, 1, 2, 4, 3, 5]
