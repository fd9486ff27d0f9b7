"""How many memories hold a common query term, read from PostgreSQL's own statistics instead of counted.

Counting the memories that hold a term, even stopped at 10,001, reads that many
table rows through the GIN index: for a common term at a million memories, most
of a search's time (docs/postgres.md). ``ANALYZE`` keeps the most common lexemes of ``memory_index.keywords``
with the share of its sample holding each (``pg_stats``); a term whose lexeme is
among them, in at least ``ESTIMATED_FROM`` memories, is taken to be in that share
of the user's memories (up to the count's cap) without reading a row. This holds
for a user's own memories only when the table is (nearly) all theirs, so it is
used only then: a user holding nine in ten of the indexed memories. Rarer terms,
and every term of other users, are counted exactly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from remember.store.postgres.connection import Connection

OWN_SHARE = 0.9  # of the indexed memories a user must hold for the table's statistics to be theirs
SECONDS = 60.0  # statistics change only when the table is analyzed: read them again after this
# Terms in fewer of the user's memories are counted (cheap, and a sample's share of them is least sure).
ESTIMATED_FROM = 1_000


class CommonTerms:
    """The table's most common lexemes and their frequencies, read at most once a minute."""

    def __init__(self) -> None:
        self._read_at = -SECONDS
        self._rows = 0.0
        self._frequency: dict[str, float] = {}
        self._lock = threading.Lock()

    def estimated(self, conn: Connection, user_total: int, terms: Sequence[str], cap: int) -> dict[str, int]:
        """The terms the statistics put in at least ``ESTIMATED_FROM`` of the user's memories, with
        that many (``cap`` at most); none unless the table is the user's (``OWN_SHARE``)."""
        rows, frequency = self._statistics(conn)
        if not frequency or rows <= 0 or user_total < OWN_SHARE * rows:
            return {}
        lexemes = conn.execute(
            "SELECT w.t, tsvector_to_array(to_tsvector('english', w.t)) FROM unnest(%s::text[]) AS w(t)",
            (list(terms),),
        ).fetchall()
        shares = {term: frequency.get(found[0], 0.0) for term, found in lexemes if len(found) == 1}
        return {
            term: min(cap, round(share * user_total))
            for term, share in shares.items()
            if share * user_total >= min(ESTIMATED_FROM, cap)
        }

    def _statistics(self, conn: Connection) -> tuple[float, dict[str, float]]:
        now = time.monotonic()
        with self._lock:
            if now - self._read_at < SECONDS:
                return self._rows, self._frequency
        row = conn.execute(
            "SELECT c.reltuples, s.most_common_elems::text::text[], s.most_common_elem_freqs "
            "FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() "
            "AND s.tablename = 'memory_index' AND s.attname = 'keywords' "
            "WHERE c.oid = to_regclass('memory_index')"
        ).fetchone()
        rows, frequency = 0.0, {}
        if row is not None and row[1] is not None and row[2] is not None:
            rows = float(row[0])
            frequency = dict(zip(row[1], row[2][: len(row[1])], strict=True))
        with self._lock:
            self._read_at, self._rows, self._frequency = now, rows, frequency
        return rows, frequency
