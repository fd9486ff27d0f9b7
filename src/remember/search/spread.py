"""Spreading the first places of a ranking over several conversations.

A question about several conversations ("how many times did I go hiking this year?") needs a
hit from each, and the best matches of one conversation can fill the first places on their own:
its turns share its words and its topic. So in the first ``FIRST_PLACES`` places, a conversation's
hits after its first ``FREE_PLACES`` give way to another conversation's next hit when that one
scores within ``YIELD`` of them for each of their conversation's hits placed past ``FREE_PLACES``.
A close match of another conversation moves up; a far one does not, and the rest of the ranking
keeps its order. Memories with no conversation id are one conversation while they happened within
``IMPLICIT_GAP`` of each other (as the keyword index chains them).

Measured on LoCoMo and LongMemEval (bench/fusion.py): this pays on questions spread over sessions
and costs little where the answer is one conversation's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from remember.models import IMPLICIT_GAP

FIRST_PLACES = 5
FREE_PLACES = 3  # a conversation's hits placed in the first places at their own score
YIELD = 0.05  # what each further hit of that conversation gives way by


@dataclass(frozen=True)
class Placed:
    """A hit to place: its score (higher first) and where it belongs."""

    score: float
    conversation: str | None
    occurred_at: datetime


def widest() -> float:
    """The most a hit can give way by: a hit ranked below the first places by more than this stays there."""
    return YIELD * (FIRST_PLACES - FREE_PLACES)


def spread(hits: Sequence[Placed]) -> tuple[list[int], list[float]]:
    """The order of ``hits`` (given best first) with the first places spread, and what each hit gave
    way by where it was placed (0 for most). Only the hits that can take a first place (within
    ``widest()`` of the last one's score) are weighed, so the first places are the same whatever
    else the ranking holds (a page of it, or all of it)."""
    reach = reachable(hits)
    keys = conversation_keys(hits[:reach])
    waiting = list(range(reach))
    placed: dict[str, int] = {}
    order: list[int] = []
    gave = [0.0] * len(hits)
    while waiting and len(order) < FIRST_PLACES:
        best = max(waiting, key=lambda i: (round(hits[i].score - _yield(placed.get(keys[i], 0)), 6), -i))
        gave[best] = _yield(placed.get(keys[best], 0))
        placed[keys[best]] = placed.get(keys[best], 0) + 1
        order.append(best)
        waiting.remove(best)
    return order + waiting + list(range(reach, len(hits))), gave


def reachable(hits: Sequence[Placed]) -> int:
    """How many of ``hits`` (best first) can take one of the first places."""
    if len(hits) <= FIRST_PLACES:
        return len(hits)
    lowest = hits[FIRST_PLACES - 1].score - widest()
    return sum(1 for h in hits if h.score >= lowest)


def _yield(already: int) -> float:
    return YIELD * max(0, already - FREE_PLACES + 1)


def conversation_keys(hits: Sequence[Placed]) -> list[str]:
    """A key per hit, the same for the hits of one conversation: its id, or for hits without one, the
    first of a run of such hits each within ``IMPLICIT_GAP`` of the one before."""
    keys = [f"id:{h.conversation}" if h.conversation is not None else "" for h in hits]
    loose = sorted((h.occurred_at, i) for i, h in enumerate(hits) if h.conversation is None)
    run, last = "", None
    for when, i in loose:
        if last is None or when - last > IMPLICIT_GAP:
            run = f"near:{i}"
        keys[i], last = run, when
    return keys
