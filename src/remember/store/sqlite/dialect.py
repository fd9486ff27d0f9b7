"""SQLite's side of the shared SQL: ``?`` parameters, JSON and moments stored as text."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from remember.clock import from_text, to_text
from remember.store.sql.dialect import Dialect
from remember.store.sql.rows import dump


class SqliteDialect(Dialect):
    unique_violation = sqlite3.IntegrityError
    moment_type = "TEXT"

    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        params.extend(values)
        return f"{column} IN ({', '.join('?' for _ in values)})"

    def time_bucket(self, column: str, unit: str) -> str:
        # Moments are fixed-width ISO text (remember.clock), so a day, month or year is a prefix of it.
        day = f"substr({column}, 1, 10)"
        return {
            "day": day,
            "week": f"date({day}, 'weekday 0', '-6 days')",
            "month": f"substr({column}, 1, 7) || '-01'",
            "year": f"substr({column}, 1, 4) || '-01-01'",
        }[unit]

    @contextmanager
    def savepoint(self, conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("SAVEPOINT numbered")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK TO numbered")
            conn.execute("RELEASE numbered")
            raise
        conn.execute("RELEASE numbered")

    def executemany(self, conn: sqlite3.Connection, text: str, rows: Iterable[Sequence[Any]]) -> None:
        conn.executemany(text, rows)

    def json(self, value: Any) -> str:
        return dump(value)

    def from_json(self, value: Any) -> Any:
        return json.loads(value)

    def moment(self, value: datetime) -> str:
        return to_text(value)

    def from_moment(self, value: Any) -> datetime:
        return from_text(value)

    def texts(self, values: Sequence[str]) -> str:
        return dump(list(values))

    def from_texts(self, value: Any) -> tuple[str, ...]:
        return tuple(json.loads(value))

    def flag(self, value: bool | None) -> int | None:
        return None if value is None else int(value)


DIALECT = SqliteDialect()
