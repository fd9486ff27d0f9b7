"""One connection, inside one transaction or snapshot, speaking the shared SQL.

``Session`` translates each shared statement into its backend's style and hands
out the raw connection (``raw``) to the backend's own code (search, filters).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from remember.errors import Conflict, NotFound
from remember.store.sql.dialect import Dialect

Row = Sequence[Any]


class Session:
    __slots__ = ("dialect", "raw")

    def __init__(self, raw: Any, dialect: Dialect) -> None:
        self.raw = raw
        self.dialect = dialect

    def run(self, text: str, params: Sequence[Any] = ()) -> Any:
        """Execute one statement; its cursor (``rowcount``, ``fetchall``)."""
        return self.raw.execute(self.dialect.statement(text), params)

    def one(self, text: str, params: Sequence[Any] = ()) -> Row | None:
        row: Row | None = self.run(text, params).fetchone()
        return row

    def all(self, text: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(self.run(text, params).fetchall())

    def value(self, text: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row (None when there is no row)."""
        row = self.one(text, params)
        return row[0] if row else None

    def many(self, text: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            self.dialect.executemany(self.raw, self.dialect.statement(text), rows)

    def savepoint(self) -> AbstractContextManager[None]:
        return self.dialect.savepoint(self.raw)

    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        return self.dialect.any_of(column, values, params)

    def lock_users(self, user_ids: Iterable[str]) -> None:
        self.dialect.lock_users(self.raw, user_ids)

    def lock_named(self, name: str) -> None:
        self.dialect.lock_named(self.raw, name)


def check_version(s: Session, table: str, noun: str, user_id: str, row_id: str, expected: int) -> None:
    """Lock the row (``FOR UPDATE`` where the backend has it) and make sure it is still at ``expected``:
    a concurrent writer waits here, then sees the version written before it."""
    row = s.one(f"SELECT version FROM {table} WHERE user_id = ? AND id = ?{s.dialect.for_update}", (user_id, row_id))
    if row is None:
        raise NotFound(f"{noun} {row_id} no longer exists.")
    if row[0] != expected:
        raise Conflict(
            f"{noun} {row_id} was changed by someone else (now version {row[0]}, "
            f"expected {expected}); fetch it again and reapply your change."
        )
