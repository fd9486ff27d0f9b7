"""Learning from what a user does with suggestions: a bounded shift of a template's confidence.

For one user and one template, from the counts the service logs:

    decided   = applied + ignored
    rate      = (applied + PRIOR_RATE * PRIOR_WEIGHT) / (decided + PRIOR_WEIGHT)
    acceptance = ACCEPTANCE_SPAN * (rate - PRIOR_RATE) / max(PRIOR_RATE, 1 - PRIOR_RATE)
    recency   = RECENCY_BONUS * 0.5 ** (days since last applied / RECENCY_HALF_LIFE_DAYS)
    adjustment = clamp(acceptance + recency, -MAX_ADJUSTMENT, MAX_ADJUSTMENT)

The prior (Bayesian smoothing: PRIOR_WEIGHT imaginary decisions at PRIOR_RATE)
keeps one acceptance or one dismissal from dominating: with no history the
shift is 0, one acceptance moves it by about +0.02, and only a long record
reaches the bounds. Suggestions shown but neither applied nor ignored count as
half an ignore each. The recency bonus rewards a template used lately and fades
with a half-life of RECENCY_HALF_LIFE_DAYS days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

PRIOR_RATE = 0.5
PRIOR_WEIGHT = 6.0
ACCEPTANCE_SPAN = 0.12
RECENCY_BONUS = 0.04
RECENCY_HALF_LIFE_DAYS = 14.0
MAX_ADJUSTMENT = 0.15
UNANSWERED_WEIGHT = 0.5


@dataclass(frozen=True)
class TemplateStats:
    """What one user did with one template's suggestions."""

    shown: int = 0
    applied: int = 0
    ignored: int = 0
    last_applied: datetime | None = None


def acceptance_rate(stats: TemplateStats) -> float:
    """The smoothed share of decisions that applied the template (PRIOR_RATE with no history)."""
    unanswered = max(0, stats.shown - stats.applied - stats.ignored)
    decided = stats.applied + stats.ignored + UNANSWERED_WEIGHT * unanswered
    return (stats.applied + PRIOR_RATE * PRIOR_WEIGHT) / (decided + PRIOR_WEIGHT)


def adjustment(stats: TemplateStats, now: datetime) -> float:
    """The shift added to the template's confidence for this user, within ±MAX_ADJUSTMENT."""
    rate = acceptance_rate(stats)
    acceptance = ACCEPTANCE_SPAN * (rate - PRIOR_RATE) / max(PRIOR_RATE, 1 - PRIOR_RATE)
    recency = 0.0
    if stats.last_applied is not None and stats.applied > 0:
        days = max(0.0, (_utc(now) - _utc(stats.last_applied)).total_seconds() / 86400)
        recency = RECENCY_BONUS * 0.5 ** (days / RECENCY_HALF_LIFE_DAYS)
    return round(max(-MAX_ADJUSTMENT, min(MAX_ADJUSTMENT, acceptance + recency)), 4)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
