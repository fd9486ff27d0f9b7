"""What the ranked keyword index (store/index_files/) reads of a PostgreSQL database.

Documents are keyed by ``memory_index.doc`` (migration 0012: a number each index
row gets once, never given again); their text is the row's ``body``, ``date`` and
``context``. Every user's index is kept in a directory of its own under the one
given for the database (``keyword_directory``).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from remember.filters import Filter
from remember.store.postgres import filtersql
from remember.store.postgres.connection import Connection
from remember.store.postgres.dialect import DIALECT
from remember.store.sql.keyword_source import ROW_CHUNK, SqlKeywords

# the user's highest seq ever: their rows', or the one a purge took away (recorded in index_settings)
SEQ_HIGH = (
    "greatest((SELECT coalesce(max(seq), 0) FROM memory_index WHERE user_id = %(u)s), "
    "(SELECT coalesce(max(value::bigint), 0) FROM index_settings WHERE key = 'purged_seq:' || %(u)s))"
)


def seq_high(conn: Connection, user_id: str) -> int:
    """The user's highest seq ever (``SEQ_HIGH``)."""
    row = conn.execute(f"SELECT {SEQ_HIGH}", {"u": user_id}).fetchone()
    return int(row[0]) if row else 0


def keyword_directory(parent: Path, location: str) -> Path:
    """The directory of one database's keyword indexes under ``parent`` (named from its location)."""
    return parent / hashlib.sha256(location.encode()).hexdigest()[:16]


class PostgresKeywords(SqlKeywords):
    """The ``KeywordSource`` of a PostgreSQL database."""

    dialect = DIALECT
    key = "mi.doc"
    texts = "mi.body, mi.date, mi.context"
    keyed = "memories m JOIN memory_index mi ON mi.user_id = m.user_id AND mi.memory_id = m.id"

    def _changed(self, user_id: str, after_seq: int) -> Generator[list[Any]]:
        """Through a server-side cursor, in one transaction (one snapshot)."""
        with self.db.read() as conn, conn.transaction(), conn.cursor(name="keyword_rows") as cursor:
            cursor.execute(
                f"{self.selected()}WHERE mi.user_id = %s AND mi.seq > %s ORDER BY mi.seq",
                (user_id, after_seq),
            )
            while rows := cursor.fetchmany(ROW_CHUNK):
                yield rows

    def owned(self, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
        """From ``memory_index`` alone (its ``deleted`` is written with the memory), through the covering
        index ``(user_id, doc) INCLUDE (memory_id, deleted)``."""
        if not keys:
            return {}
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT doc, memory_id, deleted FROM memory_index WHERE user_id = %s AND doc = ANY(%s)",
                (user_id, list(keys)),
            ).fetchall()
        return {int(key): (str(memory_id), bool(gone)) for key, memory_id, gone in rows}

    def _condition(self, filter: Filter, user_id: str, params: list[Any]) -> str:  # noqa: ARG002
        return filtersql.render(filter, params)

    def max_seq(self, user_id: str) -> int:
        with self.db.read() as conn:
            return seq_high(conn, user_id)

    @contextlib.contextmanager
    def apart(self) -> Iterator[PostgresKeywords]:
        """This source: each reading takes a connection of the pool of its own."""
        yield self
