"""The best full-text matches of several owners at once, each owner's exactly as its own query ranks them.

A query per owner joins every matching row of the database to ``memories`` to learn whose it is, and
most rows are other owners'. Here the matches are ranked once from the full-text index alone (bm25's
statistics are the table's, so a row scores the same in every query), and rows are then read best
first, a chunk at a time, until every owner has its ``limit`` best and no row left can tie with them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing

from remember.models import DeletedMode
from remember.store.sql.base import IN_TRASH

CHUNK = 500  # ranked rows whose owner is read at a time


def best_of_owners(
    conn: sqlite3.Connection, owners: Sequence[str], match: str, deleted: DeletedMode, limit: int, weights: str
) -> dict[str, list[tuple[str, float]]]:
    """The ``limit`` best of each owner's memories matching ``match`` (id, bm25 negated: higher is better),
    best first, ties by id."""
    sql = f"SELECT rowid, bm25(memory_fts, {weights}) AS score FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score"
    found: dict[str, list[tuple[str, float]]] = {owner: [] for owner in owners}
    enough: dict[str, float] = {}  # an owner's limit-th rank: past it, none of its rows can enter
    with closing(conn.execute(sql, (match,))) as ranked:
        while chunk := ranked.fetchmany(CHUNK):
            if len(enough) == len(found) and chunk[0][1] > max(enough.values()):
                break
            whose = _owners(conn, [rowid for rowid, _ in chunk], list(found), deleted)
            for rowid, rank in chunk:
                if rowid in whose:
                    owner, memory_id = whose[rowid]
                    found[owner].append((memory_id, rank))
                    if len(found[owner]) == limit:
                        enough[owner] = rank
    return {
        owner: [(i, -rank) for i, rank in sorted(rows, key=lambda r: (r[1], r[0]))[:limit]]
        for owner, rows in found.items()
    }


def _owners(
    conn: sqlite3.Connection, rowids: list[int], owners: list[str], deleted: DeletedMode
) -> dict[int, tuple[str, str]]:
    """Which of these rows are memories of ``owners`` (in the trash or not, as ``deleted`` says): rowid to
    (owner, id)."""
    rows = conn.execute(
        f"SELECT m.rowid, m.user_id, m.id FROM memories m WHERE m.rowid IN ({', '.join('?' for _ in rowids)}) "
        f"AND m.user_id IN ({', '.join('?' for _ in owners)}) AND {IN_TRASH[deleted]}",
        [*rowids, *owners],
    ).fetchall()
    return {rowid: (owner, memory_id) for rowid, owner, memory_id in rows}
