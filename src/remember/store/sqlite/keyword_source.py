"""What the ranked keyword index (store/index_files/) reads of a SQLite database.

Documents are keyed by the ``memories`` rowid; their text is the memory's FTS5
row (content, date, context).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from remember.store.index_files.keywords import KeywordRow, Stopped, document_text
from remember.store.sqlite import approximate
from remember.store.sqlite.connection import Database

ROW_CHUNK = 4_096  # rows read from the database at a time

_COLUMNS = "m.rowid, mi.seq, mi.memory_id, m.deleted_at IS NULL, f.content, f.date, f.context"
_KEYWORD_ROW = "LEFT JOIN memory_fts f ON f.rowid = m.rowid "
_FOLLOWING = (
    f"SELECT {_COLUMNS} FROM memory_index mi JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id "
    f"{_KEYWORD_ROW}WHERE mi.user_id = ? AND mi.context_of IN ({{marks}})"
)


def keyword_directory(db: Database) -> Path | None:
    """Where a file database keeps its users' keyword indexes (None for an in-memory database)."""
    return None if db.path in ("", ":memory:") else Path(db.path + ".keywords")


class SqliteKeywords:
    """The ``KeywordSource`` of a SQLite database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def rows(
        self, user_id: str, after_seq: int, until: Callable[[], bool] | None = None
    ) -> Generator[list[KeywordRow]]:
        """The user's keyword rows changed since ``after_seq``, in seq order, ``ROW_CHUNK`` at a time, then
        the rows that follow a changed one in its conversation (their context is its text: an edit, a
        deletion or a restore changed it without moving their seq); ``until``: stop when it says so."""
        changed: list[str] = []
        with contextlib.closing(
            approximate.index_changes(self.db, user_id, after_seq, _COLUMNS, ROW_CHUNK, _KEYWORD_ROW)
        ) as changes:
            for rows in changes:
                if until is not None and until():
                    raise Stopped
                if after_seq:  # a build (from 0) reads every row already
                    changed += [str(r[2]) for r in rows]
                yield [_row(r) for r in rows]
        for start in range(0, len(changed), ROW_CHUNK):
            if until is not None and until():
                raise Stopped
            with self.db.read() as conn:
                part = changed[start : start + ROW_CHUNK]
                following = [_row(r) for r in approximate.among(conn, _FOLLOWING, user_id, part)]
            if following:
                yield following

    def max_seq(self, user_id: str) -> int:
        return approximate.max_seq(self.db, user_id)

    def memory_at(self, user_id: str, seq: int) -> str | None:
        """The memory whose index row has this seq now, if any."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT memory_id FROM memory_index WHERE user_id = ? AND seq = ?", (user_id, seq)
            ).fetchone()
        return None if row is None else str(row[0])

    def changed_count(self, user_id: str, after_seq: int, cap: int) -> int:
        """How many of the user's keyword rows changed since ``after_seq``, counted up to ``cap``."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM memory_index WHERE user_id = ? AND seq > ? LIMIT ?)",
                (user_id, after_seq, cap),
            ).fetchone()
        return int(row[0])

    def owned(self, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
        return approximate.owned(self.db, user_id, keys)

    @contextlib.contextmanager
    def apart(self) -> Iterator[SqliteKeywords]:
        """The same database on a connection of its own (a background build's: the store's stays free)."""
        own = Database(self.db.path)
        try:
            yield SqliteKeywords(own)
        finally:
            own.close()


def _row(r: Sequence[Any]) -> KeywordRow:
    return int(r[0]), int(r[1]), document_text(r[4:]) if r[3] and r[4] is not None else None, str(r[2])
