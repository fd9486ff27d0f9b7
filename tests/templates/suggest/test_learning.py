"""Learning: the adjustment moves with acceptance and recency and stays within its bounds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from remember.templates import builtin_templates
from remember.templates.suggest import MAX_ADJUSTMENT, TemplateStats, acceptance_rate, adjustment, score_templates

NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)  # a Wednesday evening


def test_no_history_means_no_shift() -> None:
    assert adjustment(TemplateStats(), NOW) == 0.0
    assert acceptance_rate(TemplateStats()) == 0.5


def test_one_decision_moves_a_little_and_many_move_more() -> None:
    one = adjustment(TemplateStats(shown=1, applied=1), NOW)
    many = adjustment(TemplateStats(shown=20, applied=20), NOW)
    assert 0 < one < 0.03 < many <= MAX_ADJUSTMENT
    assert adjustment(TemplateStats(shown=1, ignored=1), NOW) > -0.03
    assert adjustment(TemplateStats(shown=20, ignored=20), NOW) < -0.08


def test_unanswered_suggestions_count_as_half_an_ignore() -> None:
    unanswered = adjustment(TemplateStats(shown=10), NOW)
    ignored = adjustment(TemplateStats(shown=10, ignored=10), NOW)
    assert ignored < unanswered < 0


def test_recent_use_raises_and_fades() -> None:
    stats = TemplateStats(shown=4, applied=2, ignored=2)
    fresh = adjustment(TemplateStats(4, 2, 2, last_applied=NOW - timedelta(hours=1)), NOW)
    old = adjustment(TemplateStats(4, 2, 2, last_applied=NOW - timedelta(days=90)), NOW)
    assert fresh > old > adjustment(stats, NOW) - 1e-9
    assert old < 0.001


@given(
    shown=st.integers(0, 10_000), applied=st.integers(0, 10_000), ignored=st.integers(0, 10_000),
    days=st.floats(-10, 10_000),
)  # fmt: skip
def test_always_bounded(shown: int, applied: int, ignored: int, days: float) -> None:
    stats = TemplateStats(shown, applied, ignored, NOW - timedelta(days=days))
    assert -MAX_ADJUSTMENT <= adjustment(stats, NOW) <= MAX_ADJUSTMENT


def test_an_adjustment_moves_only_its_template_for_the_user_it_is_given_for() -> None:
    content = "Grabbed lunch downtown with Ana"
    alice = {"builtin:restaurant_review": adjustment(TemplateStats(30, 30, 0, NOW), NOW)}
    bob = {"builtin:restaurant_review": adjustment(TemplateStats(30, 0, 30), NOW)}
    plain = {s.definition.id: s.confidence for s in score_templates(content, builtin_templates(), now=NOW)}
    for shifts in (alice, bob):
        scored = {s.definition.id: s.confidence for s in score_templates(content, builtin_templates(), now=NOW,
                                                                          adjustments=shifts)}  # fmt: skip
        moved = {tid for tid in plain if scored[tid] != plain[tid]}
        assert moved == {"builtin:restaurant_review"}
    shifted = {name: {s.definition.id: s.confidence for s in score_templates(content, builtin_templates(), now=NOW,
                                                                              adjustments=shifts)}
               for name, shifts in (("alice", alice), ("bob", bob))}  # fmt: skip
    assert shifted["alice"]["builtin:restaurant_review"] > plain["builtin:restaurant_review"]
    assert shifted["bob"]["builtin:restaurant_review"] < plain["builtin:restaurant_review"]
