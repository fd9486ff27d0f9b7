"""Rows numbered 1, 2, 3… per user (preference history, suggestion events), without a sequence.

The next numbers are read inside the writing transaction. On SQLite the writer
is alone; on PostgreSQL two concurrent writers of one user may read the same
last number: the primary key lets one in, and the other retries in a savepoint
with the next. No sequence and no lock outside the rows, so the tables shard
by user as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from remember.errors import Conflict
from remember.store.sql.session import Session

ATTEMPTS = 20


def append_numbered(
    s: Session, table: str, user_id: str, insert: str, rows: Sequence[Sequence[Any]], *, what: str
) -> None:
    """Insert ``rows`` as ``(user_id, seq, *row)``, numbered on from the user's last ``seq`` in ``table``."""
    if not rows:
        return
    for _ in range(ATTEMPTS):
        try:
            with s.savepoint():
                last = int(s.value(f"SELECT coalesce(max(seq), 0) FROM {table} WHERE user_id = ?", (user_id,)))
                s.many(insert, [(user_id, last + i + 1, *row) for i, row in enumerate(rows)])
            return
        except s.dialect.unique_violation:
            continue
    raise Conflict(f"Too many {what} for {user_id} at once; try again.")
