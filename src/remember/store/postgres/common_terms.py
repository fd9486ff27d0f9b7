"""Which query terms are common, read from PostgreSQL's own statistics instead of counted row by row.

Counting the memories that hold a common term, even stopped at 10,001, reads that
many table rows through the GIN index: at a million memories 30-75 ms a term,
most of a search (measured: 166 of 237 ms). ``ANALYZE`` keeps the most common
lexemes of ``memory_index.keywords`` with their frequencies (``pg_stats``); a
term whose lexeme is among them, often enough to reach the count's cap, is known
to be that common without reading a row. This holds for a user's own memories
only when the table is (nearly) all theirs, so it is used only then: a user
holding nine in ten of the indexed memories. Others are counted exactly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from remember.store.postgres.connection import Connection

OWN_SHARE = 0.9  # of the indexed memories a user must hold for the table's statistics to be theirs
SECONDS = 60.0  # statistics change only when the table is analyzed: read them again after this


class CommonTerms:
    """The table's most common lexemes and their frequencies, read at most once a minute."""

    def __init__(self) -> None:
        self._read_at = -SECONDS
        self._rows = 0.0
        self._frequency: dict[str, float] = {}
        self._lock = threading.Lock()

    def at_cap(self, conn: Connection, user_total: int, terms: Sequence[str], cap: int) -> set[str]:
        """The terms the statistics put in at least ``cap`` of the user's memories (none unless the
        table is the user's: ``OWN_SHARE``)."""
        rows, frequency = self._statistics(conn)
        if not frequency or rows <= 0 or user_total < OWN_SHARE * rows:
            return set()
        lexemes = conn.execute(
            "SELECT w.t, tsvector_to_array(to_tsvector('english', w.t)) FROM unnest(%s::text[]) AS w(t)",
            (list(terms),),
        ).fetchall()
        return {term for term, found in lexemes if len(found) == 1 and frequency.get(found[0], 0.0) * user_total >= cap}

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
