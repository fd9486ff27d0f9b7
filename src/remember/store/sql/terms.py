"""Term statistics for keyword search, and the short-lived cache that owns them.

A search asks how many of the user's memories hold each query term, to keep
the rare terms and drop the ones that cost much and say little (the postings
budget, ``service/search.py``). Counting a common term reads thousands of index
rows, and a count only steers which terms a search keeps (and, on PostgreSQL,
its weight), so counts and totals are reused for ``SECONDS``: one cache,
whichever backend counts.

Past those seconds a count or total is kept while the user's index has barely
moved since it was made: each memory written moves the index's newest seq by
one and any count by at most one, so a count ``n`` is kept while at most
``DRIFT * n`` memories have been written since (a common term's count, the
costly one, survives hundreds of writes; a rare term's, none), for up to
``KEPT_SECONDS`` (a purge removes rows without moving the seq).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

SECONDS = 5.0
# A total whose user's index has not moved since it was counted (the same newest seq) is kept this long:
# counting a user's million rows takes 60-70 ms, which a search after a pause would otherwise pay.
# A purge removes rows without moving the seq; such a total is counted again once this has passed.
UNMOVED_SECONDS = 60.0
DRIFT = 0.05  # a count is kept while the memories written since it was made are at most this share of it
KEPT_SECONDS = 600.0  # ... and for this long at most
SIZE = 100_000  # entries kept before the cache starts over

Key = tuple[str | None, str]


@dataclass(frozen=True, slots=True)
class _Count:
    """A cached count (of a term's memories, or a user's total)."""

    checked: float  # when last found fresh (reused without a look within SECONDS of it)
    n: int
    counted_to: int  # the cap it was counted up to: n == counted_to means "at least n" (a total: n)
    seq: int | None  # the user's newest seq when counted (None: not known)
    counted: float  # when counted

    def holds(self, mark: int | None, now: float, drift: float, seconds: float) -> bool:
        """Whether it still holds past SECONDS: at most ``drift`` of it written since (``mark``, the
        newest seq now, against ``seq``), and counted less than ``seconds`` ago."""
        if self.seq is None or mark is None or now - self.counted >= seconds:
            return False
        return 0 <= mark - self.seq <= drift * self.n


class TermStatistics:
    def __init__(self) -> None:
        self._totals: dict[str | None, _Count] = {}
        self._counts: dict[Key, _Count] = {}
        self._lock = threading.Lock()

    def total(self, user_id: str | None, count: Callable[[], int], newest: Callable[[], int] | None = None) -> int:
        """How many memories the index holds for ``user_id`` (None: everyone), reused for a few seconds,
        and for up to ``UNMOVED_SECONDS`` while ``newest()`` (the index's newest seq) has not moved."""
        now = time.monotonic()
        with self._lock:
            cached = self._totals.get(user_id)
        if cached is not None and now - cached.checked < SECONDS:
            return cached.n
        mark = newest() if newest is not None else None
        if cached is not None and cached.holds(mark, now, 0.0, UNMOVED_SECONDS):
            with self._lock:
                self._totals[user_id] = replace(cached, checked=now)
            return cached.n
        total = count()
        with self._lock:
            if len(self._totals) > SIZE:
                self._totals.clear()
            self._totals[user_id] = _Count(now, total, total, mark, now)
        return total

    def counts(
        self,
        user_id: str | None,
        terms: Sequence[str],
        cap: int,
        count: Callable[[list[str], int], list[int]],
        newest: Callable[[], int] | None = None,
    ) -> list[int]:
        """How many memories hold each term, up to ``cap`` (a count of ``cap``: at least that many).

        ``count(terms, cap)`` counts the terms not known fresh enough; a count made up to a
        lower cap that reached it is counted again. ``newest()``, the user's newest seq, lets a
        count outlive ``SECONDS`` while few memories have been written since (``DRIFT``).
        """
        now = time.monotonic()
        with self._lock:
            cached = {term: self._counts.get((user_id, term)) for term in terms}
        usable = {t: c for t, c in cached.items() if c is not None and (c.n < c.counted_to or c.counted_to >= cap)}
        known = {t: c.n for t, c in usable.items() if now - c.checked < SECONDS}
        unsure = [term for term in dict.fromkeys(terms) if term not in known]
        mark = newest() if unsure and newest is not None else None  # before counting: a write meanwhile is seen
        settled = {t: c for t, c in usable.items() if t in unsure and c.holds(mark, now, DRIFT, KEPT_SECONDS)}
        known |= {t: c.n for t, c in settled.items()}
        missing = [term for term in unsure if term not in known]
        fresh = count(missing, cap) if missing else []
        with self._lock:
            if len(self._counts) > SIZE:
                self._counts.clear()
            for term, c in settled.items():
                self._counts[(user_id, term)] = replace(c, checked=now)
            for term, n in zip(missing, fresh, strict=True):
                known[term] = n
                self._counts[(user_id, term)] = _Count(now, n, cap, mark, now)
        return [min(known[term], cap) for term in terms]

    def forget(self) -> None:
        """As if the last search were more than ``SECONDS`` ago: the totals are checked again (one whose
        index has not moved stays) and the counts made again."""
        self.pause()
        with self._lock:
            self._counts.clear()

    def pause(self) -> None:
        """As if the last search were more than ``SECONDS`` ago, the terms searched for before: totals
        and counts are checked against the index's newest seq, and kept if it has barely moved."""
        with self._lock:
            self._totals = {k: replace(c, checked=-math.inf) for k, c in self._totals.items()}
            self._counts = {k: replace(c, checked=-math.inf) for k, c in self._counts.items()}
