"""Scoring a template's ``trigger_context`` against the situation of the utterance.

Supported ``trigger_context`` keys of a template, and what each is compared with:

=========================  ==========================================================
``location_present: true``  the caller's ``location`` / ``location_present``, or a
                            named place in the content ("at Nobu", "in Lisbon")
``participants_present``    the caller's ``participants`` / ``participants_present``,
                            or a person named in the content ("with Sarah")
``time_of_day: [...]``      the caller's ``time_of_day``, or the hour of ``local_time``
``day_of_week: [...]``      the caller's ``day_of_week``, or the day of ``local_time``;
                            ``weekday`` and ``weekend`` are accepted as groups
``conversation_type``       the caller's ``conversation_type`` (text or list of texts)
=========================  ==========================================================

Each key the template declares counts +1 when it holds, -1 when the caller's
context says it does not, and 0 when nothing is known (a place not mentioned is
not evidence that there was none). The score is the sum over the number of keys
declared, so it lies in -1..1. Other keys are ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from remember.templates.suggest.people import mentions_people
from remember.templates.suggest.places import mentions_place

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY_GROUPS = {"weekday": frozenset(DAYS[:5]), "weekend": frozenset(DAYS[5:])}
# Upper bounds (exclusive) of local hours, in order: 5-11 morning, 11-14 lunch...
HOURS = ((5, "night"), (11, "morning"), (14, "lunch"), (17, "afternoon"), (21, "dinner"), (23, "evening"))
# The verdict of a key the template gives in a form the engine does not read.
_IGNORED: Any = object()
SUPPORTED_KEYS = ("location_present", "participants_present", "time_of_day", "day_of_week", "conversation_type")


@dataclass(frozen=True)
class ContextMatch:
    """The context evidence: -1..1, and the reasons that held ("mentions a place")."""

    score: float
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Situation:
    """What is known about the utterance; None where nothing is known."""

    location: bool | None
    participants: bool | None
    time_of_day: str | None
    day_of_week: str | None
    conversation_type: str | None

    @classmethod
    def read(cls, content: str, context: Mapping[str, Any] | None) -> Situation:
        given = context or {}
        moment = _local_time(given.get("local_time"))
        return cls(
            location=_flag(given, "location", "location_present", lambda: mentions_place(content)),
            participants=_flag(given, "participants", "participants_present", lambda: mentions_people(content)),
            time_of_day=_text(given.get("time_of_day")) or (_time_of_day(moment.hour) if moment else None),
            day_of_week=_text(given.get("day_of_week")) or (DAYS[moment.weekday()] if moment else None),
            conversation_type=_text(given.get("conversation_type")),
        )


def score_context(trigger: Mapping[str, Any], situation: Situation) -> ContextMatch:
    """The evidence of ``trigger`` (a template's ``trigger_context``) in this situation."""
    checks = [
        ("location_present", _expects(trigger, "location_present", situation.location), "mentions a place"),
        ("participants_present", _expects(trigger, "participants_present", situation.participants), "mentions people"),
        ("time_of_day", _one_of(trigger.get("time_of_day"), situation.time_of_day, {}), "fits the time of day"),
        ("day_of_week", _one_of(trigger.get("day_of_week"), situation.day_of_week, DAY_GROUPS), "fits the day"),
        ("conversation_type", _one_of(trigger.get("conversation_type"), situation.conversation_type, {}),
         "fits the conversation"),
    ]  # fmt: skip
    declared = [(verdict, reason) for key, verdict, reason in checks if key in trigger and verdict is not _IGNORED]
    if not declared:
        return ContextMatch(0.0, ())
    total = sum(verdict for verdict, _ in declared if isinstance(verdict, int))
    reasons = tuple(reason for verdict, reason in declared if verdict == 1)
    return ContextMatch(total / len(declared), reasons)


def _expects(trigger: Mapping[str, Any], key: str, known: bool | None) -> int | Any:
    wanted = trigger.get(key)
    if not isinstance(wanted, bool):
        return _IGNORED
    if known is None:
        return 0
    return 1 if known == wanted else -1


def _one_of(wanted: object, known: str | None, groups: Mapping[str, frozenset[str]]) -> int | Any:
    values = [wanted] if isinstance(wanted, str) else wanted
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return _IGNORED
    if known is None:
        return 0
    allowed: set[str] = set()
    for value in values:
        allowed |= groups.get(value.lower(), {value.lower()})
    return 1 if known.lower() in allowed else -1


def _flag(given: Mapping[str, Any], thing: str, flag: str, in_content: Callable[[], bool]) -> bool | None:
    """The caller's flag, else whether it gave the thing, else True if the content shows it, else unknown."""
    if isinstance(given.get(flag), bool):
        return bool(given[flag])
    if given.get(thing) is not None:
        return bool(given[thing])
    return True if in_content() else None


def _text(value: object) -> str | None:
    return value.strip().lower() if isinstance(value, str) and value.strip() else None


def _local_time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def _time_of_day(hour: int) -> str:
    for bound, name in HOURS:
        if hour < bound:
            return name
    return "night"
