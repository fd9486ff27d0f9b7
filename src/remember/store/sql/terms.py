"""Term statistics for keyword search, and the short-lived cache that owns them.

A search asks how many of the user's memories hold each query term, to keep
the rare terms and drop the ones that cost much and say little (the postings
budget, ``service/search.py``). Counting a common term reads thousands of index
rows, and a count only steers which terms a search keeps, so counts and totals
are reused for ``SECONDS``: one cache, whichever backend counts.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence

SECONDS = 5.0
# A total whose user's index has not moved since it was counted (the same newest seq) is kept this long:
# counting a user's million rows takes 60-70 ms, which a search after a pause would otherwise pay.
# A purge removes rows without moving the seq; such a total is counted again once this has passed.
UNMOVED_SECONDS = 60.0
SIZE = 100_000  # entries kept before the cache starts over

Key = tuple[str | None, str]


class TermStatistics:
    def __init__(self) -> None:
        self._totals: dict[str | None, tuple[float, int, int | None, float]] = {}  # (checked, total, seq, counted)
        self._counts: dict[Key, tuple[float, int, int]] = {}  # (user, term) -> (when, count, counted up to)
        self._lock = threading.Lock()

    def total(self, user_id: str | None, count: Callable[[], int], newest: Callable[[], int] | None = None) -> int:
        """How many memories the index holds for ``user_id`` (None: everyone), reused for a few seconds,
        and for up to ``UNMOVED_SECONDS`` while ``newest()`` (the index's newest seq) has not moved."""
        now = time.monotonic()
        with self._lock:
            cached = self._totals.get(user_id)
        if cached is not None and now - cached[0] < SECONDS:
            return cached[1]
        mark = newest() if newest is not None else None
        if cached is not None and mark is not None and cached[2] == mark and now - cached[3] < UNMOVED_SECONDS:
            with self._lock:
                self._totals[user_id] = (now, cached[1], mark, cached[3])
            return cached[1]
        total = count()
        with self._lock:
            if len(self._totals) > SIZE:
                self._totals.clear()
            self._totals[user_id] = (now, total, mark, now)
        return total

    def counts(
        self, user_id: str | None, terms: Sequence[str], cap: int, count: Callable[[list[str], int], list[int]]
    ) -> list[int]:
        """How many memories hold each term, up to ``cap`` (a count of ``cap``: at least that many).

        ``count(terms, cap)`` counts the terms not known fresh enough; a count made up to a
        lower cap that reached it is counted again.
        """
        now = time.monotonic()
        known = {term: self._cached(user_id, term, cap, now) for term in terms}
        missing = [term for term, n in known.items() if n is None]
        if missing:
            fresh = count(missing, cap)
            with self._lock:
                if len(self._counts) > SIZE:
                    self._counts.clear()
                for term, n in zip(missing, fresh, strict=True):
                    known[term] = n
                    self._counts[(user_id, term)] = (now, n, cap)
        return [min(int(known[term] or 0), cap) for term in terms]

    def forget(self) -> None:
        """As if the last search were more than ``SECONDS`` ago: the counts are made again, the totals
        checked again (a total whose index has not moved stays)."""
        with self._lock:
            self._totals = {k: (-math.inf, n, seq, counted) for k, (_, n, seq, counted) in self._totals.items()}
            self._counts.clear()

    def _cached(self, user_id: str | None, term: str, cap: int, now: float) -> int | None:
        with self._lock:
            cached = self._counts.get((user_id, term))
        if cached is None or now - cached[0] >= SECONDS:
            return None
        _, n, counted_to = cached
        return n if n < counted_to or counted_to >= cap else None
