"""What differs between the SQL of SQLite and PostgreSQL, and nothing else.

Shared statements are written with ``?`` placeholders and only portable syntax
(``ON CONFLICT … DO UPDATE``, ``count(*) FILTER (WHERE …)``, ``<>``); a dialect
turns them into its own parameter style and encodes values for its columns
(JSON as text or ``jsonb``, moments as text or ``timestamptz``, lists of texts
as JSON text or ``text[]``).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any


class Dialect(ABC):
    """One backend's SQL flavour. Stateless: one instance serves every connection."""

    #: the exception a violated unique constraint raises on this backend's driver
    unique_violation: type[BaseException]
    #: appended to a SELECT that reads rows about to be changed (a row lock where there are any)
    for_update: str = ""
    #: the column type of a stored moment
    moment_type: str

    def statement(self, text: str) -> str:
        """``text`` (``?`` placeholders) in this backend's parameter style."""
        return text

    @abstractmethod
    def any_of(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        """A condition that ``column`` is one of ``values``; appends what it binds to ``params``."""

    @abstractmethod
    def savepoint(self, conn: Any) -> AbstractContextManager[None]:
        """A savepoint inside the open transaction: rolled back to if the block raises."""

    @abstractmethod
    def executemany(self, conn: Any, text: str, rows: Iterable[Sequence[Any]]) -> None: ...

    @abstractmethod
    def time_bucket(self, column: str, unit: str) -> str:
        """An expression naming the ``unit`` (day, week, month, year; weeks start on Monday) that the moment in
        ``column`` falls in: its first day in UTC, as a date or its ISO 8601 text (``2026-03-02``)."""

    def lock_users(self, conn: Any, user_ids: Iterable[str]) -> None:  # noqa: B027 - most backends need none
        """Order the index writes of these users against concurrent transactions (if the backend needs to)."""

    def lock_named(self, conn: Any, name: str) -> None:  # noqa: B027 - SQLite's one writer needs none
        """Order this transaction after every other that took the lock ``name`` (if the backend needs to):
        a count and the insert it allows stay together (the authorization server's bounds)."""

    # value codecs: Python value -> parameter, column value -> Python value

    @abstractmethod
    def json(self, value: Any) -> Any: ...

    @abstractmethod
    def from_json(self, value: Any) -> Any: ...

    @abstractmethod
    def moment(self, value: datetime) -> Any: ...

    @abstractmethod
    def from_moment(self, value: Any) -> datetime: ...

    @abstractmethod
    def texts(self, values: Sequence[str]) -> Any: ...

    @abstractmethod
    def from_texts(self, value: Any) -> tuple[str, ...]: ...

    def flag(self, value: bool | None) -> Any:
        return value

    def from_flag(self, value: Any) -> bool | None:
        return None if value is None else bool(value)

    def optional_json(self, value: Any) -> Any:
        return None if value is None else self.json(value)

    def from_optional_json(self, value: Any) -> Any:
        return None if value is None else self.from_json(value)

    def optional_moment(self, value: datetime | None) -> Any:
        return None if value is None else self.moment(value)

    def from_optional_moment(self, value: Any) -> datetime | None:
        return None if value is None else self.from_moment(value)


@functools.lru_cache(maxsize=1024)
def format_style(text: str) -> str:
    """``?`` placeholders as ``%s`` (psycopg's style), a literal ``%`` doubled.

    Shared statements never hold ``?`` in a literal or as an operator, so every
    ``?`` is a placeholder.
    """
    return text.replace("%", "%%").replace("?", "%s")


def chunks(values: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]
