"""PostgreSQL's side of the shared SQL: ``%s`` parameters, ``jsonb``, ``timestamptz``, ``text[]``, row locks.

Moments come back in UTC whatever the session's time zone; ``jsonb`` objects come
back with their keys sorted (``connection.py``), as SQLite's JSON text keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from psycopg import errors as pgerrors
from psycopg.types.json import Jsonb

from remember.store.postgres.connection import Connection
from remember.store.sql.dialect import Dialect, format_style
from remember.store.sql.rows import dump

# advisory lock class of a user's index writes (two-key form: its own key space); "rem" in ASCII
USER_LOCK_CLASS = 0x72656D
# advisory lock class of the named locks (lock_named); "nam" in ASCII
NAMED_LOCK_CLASS = 0x6E616D


class PostgresDialect(Dialect):
    unique_violation = pgerrors.UniqueViolation
    for_update = " FOR UPDATE"
    moment_type = "timestamptz"

    def statement(self, text: str) -> str:
        return format_style(text)

    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        params.append(list(values))
        return f"{column} = ANY(?)"

    def time_bucket(self, column: str, unit: str) -> str:
        if unit not in ("day", "week", "month", "year"):
            raise KeyError(unit)
        return f"date_trunc('{unit}', {column} AT TIME ZONE 'UTC')::date"

    def savepoint(self, conn: Connection) -> AbstractContextManager[Any]:
        return conn.transaction()

    def executemany(self, conn: Connection, text: str, rows: Iterable[Sequence[Any]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(text, rows)

    def lock_users(self, conn: Connection, user_ids: Iterable[str]) -> None:
        lock_users(conn, user_ids)

    def lock_named(self, conn: Connection, name: str) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (NAMED_LOCK_CLASS, name))

    def json(self, value: Any) -> Jsonb:
        return Jsonb(value, dumps=dump)

    def from_json(self, value: Any) -> Any:
        return value

    def moment(self, value: datetime) -> datetime:
        return value

    def from_moment(self, value: Any) -> datetime:
        return utc(value)

    def texts(self, values: Sequence[str]) -> list[str]:
        return list(values)

    def from_texts(self, value: Any) -> tuple[str, ...]:
        return tuple(value)


def utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def lock_users(conn: Connection, user_ids: Iterable[str]) -> None:
    """Take each user's index-write lock, in one order (no two transactions can deadlock on them).

    The lock orders a user's index writes as SQLite's single writer does: sequence
    numbers stay unique per user, and the context of a conversation's next memory is
    read after its predecessor's text is committed.
    """
    for user_id in sorted(set(user_ids)):
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (USER_LOCK_CLASS, user_id))


DIALECT = PostgresDialect()
