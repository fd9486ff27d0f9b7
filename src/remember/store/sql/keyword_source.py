"""What a ranked keyword index (store/index_files/) reads of either database, written once.

A backend names the column that keys a memory's document (``key``), where its
keyword row's texts are (``texts``, ``joins``), and gives the reading of a long
run of changed rows (``_changed``, in one snapshot), the user's highest seq and a
reading apart for a background build.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from remember.filters import Filter
from remember.store.index_files.tantivy_index import KeywordRow, Stopped, document_text
from remember.store.sql.base import Database, SqlBase

ROW_CHUNK = 4_096  # rows read from the database at a time


class SqlKeywords(SqlBase):
    """The ``KeywordSource`` (store/index_files/ranked_keywords.py) of a database."""

    key = ""  # the column (of ``mi``, memory_index, or ``m``, memories) that keys a memory's document
    texts = ""  # the columns of its keyword row's content, date and context
    joins = ""  # what ``texts`` needs joined
    keyed = "memories m"  # the memories ``m`` with what ``key`` needs joined

    def __init__(self, db: Database) -> None:
        self.db = db

    def rows(
        self, user_id: str, after_seq: int, until: Callable[[], bool] | None = None
    ) -> Generator[list[KeywordRow]]:
        """The user's keyword rows changed since ``after_seq``, in seq order, ``ROW_CHUNK`` at a time, then
        the rows that follow a changed one in its conversation (their context is its text: an edit, a
        deletion or a restore changed it without moving their seq); ``until``: stop when it says so."""
        changed: list[str] = []
        with contextlib.closing(self._changed(user_id, after_seq)) as changes:
            for rows in changes:
                if until is not None and until():
                    raise Stopped
                if after_seq:  # a build (from 0) reads every row already
                    changed += [str(r[2]) for r in rows]
                yield [_row(r) for r in rows]
        for start in range(0, len(changed), ROW_CHUNK):
            if until is not None and until():
                raise Stopped
            with self.reading() as s:
                params: list[Any] = [user_id]
                where = s.any_of("mi.context_of", changed[start : start + ROW_CHUNK], params)
                following = [_row(r) for r in s.all(f"{self.selected()}WHERE mi.user_id = ? AND {where}", params)]
            if following:
                yield following

    def selected(self) -> str:
        """The select of keyword rows (key, seq, memory id, live, content, date, context), up to its WHERE."""
        return (
            f"SELECT {self.key}, mi.seq, mi.memory_id, m.deleted_at IS NULL, {self.texts} FROM memory_index mi "
            f"JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id {self.joins}"
        )

    def memory_at(self, user_id: str, seq: int) -> str | None:
        """The memory whose index row has this seq now, if any."""
        with self.reading() as s:
            found = s.value("SELECT memory_id FROM memory_index WHERE user_id = ? AND seq = ?", (user_id, seq))
        return None if found is None else str(found)

    def changed_count(self, user_id: str, after_seq: int, cap: int) -> int:
        """How many of the user's keyword rows changed since ``after_seq``, counted up to ``cap``."""
        with self.reading() as s:
            return int(
                s.value(
                    "SELECT count(*) FROM (SELECT 1 FROM memory_index WHERE user_id = ? AND seq > ? LIMIT ?) x",
                    (user_id, after_seq, cap),
                )
            )

    def owned(self, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
        """Key to (memory id, in the trash) of the user's memories among these keys."""
        raise NotImplementedError

    def passing(self, user_id: str, filter: Filter, cap: int) -> list[int] | None:
        """The keys of the user's memories out of the trash that pass ``filter``; None when more than ``cap`` do."""
        params: list[Any] = [user_id]
        head = self.dialect.statement(
            f"SELECT {self.key} FROM {self.keyed} WHERE m.user_id = ? AND m.deleted_at IS NULL AND "
        )
        condition = self._condition(filter, user_id, params)  # in the backend's own parameter style
        with self.reading() as s:
            rows = s.raw.execute(f"{head}{condition} LIMIT {int(cap) + 1}", params).fetchall()
        return None if len(rows) > cap else [int(r[0]) for r in rows]

    def _condition(self, filter: Filter, user_id: str, params: list[Any]) -> str:
        """``filter`` as SQL over the memory ``m`` (the backend's renderer); appends its parameters."""
        raise NotImplementedError

    def _changed(self, user_id: str, after_seq: int) -> Generator[list[Any]]:
        """The rows of ``selected`` changed since ``after_seq``, in seq order, in one snapshot, in chunks."""
        raise NotImplementedError

    def max_seq(self, user_id: str) -> int:
        """The highest seq the user ever had (their rows', or a purged row's)."""
        raise NotImplementedError

    def apart(self) -> AbstractContextManager[SqlKeywords]:
        raise NotImplementedError


def _row(r: Sequence[Any]) -> KeywordRow:
    return int(r[0]), int(r[1]), document_text(r[4:]) if r[3] and r[4] is not None else None, str(r[2])
