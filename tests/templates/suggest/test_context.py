"""trigger_context: every supported key, matching, mismatching and unknown."""

from __future__ import annotations

import pytest

from remember.templates.suggest.situation import Situation, score_context


def situation(content: str = "", **context: object) -> Situation:
    return Situation.read(content, context)


def test_location_from_the_content_or_the_caller() -> None:
    trigger = {"location_present": True}
    assert score_context(trigger, situation("Had sushi at Nobu")).score == 1.0
    assert score_context(trigger, situation("Had sushi")).score == 0.0  # unknown, not a mismatch
    assert score_context(trigger, situation("Had sushi", location="Nobu, Soho")).score == 1.0
    assert score_context(trigger, situation("Had sushi at Nobu", location_present=False)).score == -1.0
    assert score_context(trigger, situation("at Nobu")).reasons == ("mentions a place",)


def test_participants_from_the_content_or_the_caller() -> None:
    trigger = {"participants_present": True}
    assert score_context(trigger, situation("Coffee with Maria Lopez")).score == 1.0
    assert score_context(trigger, situation("coffee with the team")).score == 0.0
    assert score_context(trigger, situation("", participants=["ana"])).score == 1.0
    assert score_context(trigger, situation("", participants=[])).score == -1.0


@pytest.mark.parametrize(
    ("given", "expected"),
    [({"time_of_day": "dinner"}, 1.0), ({"time_of_day": "morning"}, -1.0), ({}, 0.0),
     ({"local_time": "2026-02-11T19:30:00-05:00"}, 1.0), ({"local_time": "2026-02-11T08:00:00"}, -1.0)],
)  # fmt: skip
def test_time_of_day(given: dict[str, object], expected: float) -> None:
    assert score_context({"time_of_day": ["lunch", "dinner"]}, situation(**given)).score == expected


def test_day_of_week_with_groups() -> None:
    trigger = {"day_of_week": ["weekend"]}
    assert score_context(trigger, situation(day_of_week="Saturday")).score == 1.0
    assert score_context(trigger, situation(local_time="2026-02-11T10:00:00")).score == -1.0  # a Wednesday


def test_conversation_type_as_text_or_list() -> None:
    assert score_context({"conversation_type": "work"}, situation(conversation_type="work")).score == 1.0
    assert score_context({"conversation_type": ["work", "chat"]}, situation(conversation_type="food")).score == -1.0


def test_the_score_is_averaged_over_declared_keys_and_unknown_keys_are_ignored() -> None:
    trigger = {"location_present": True, "time_of_day": ["dinner"], "colour": "blue"}
    assert score_context(trigger, situation("at Nobu", time_of_day="lunch")).score == 0.0
    assert score_context(trigger, situation("at Nobu", time_of_day="dinner")).score == 1.0
    assert score_context({}, situation("at Nobu")).score == 0.0
