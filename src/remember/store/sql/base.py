"""The base every shared table class builds on: sessions over the backend's database, and its hooks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from remember.models import IndexEntry, Memory
from remember.store.sql.dialect import Dialect
from remember.store.sql.session import Session

# A memory ``m``'s trash state as each ``deleted`` mode of a search or a listing wants it.
IN_TRASH = {"exclude": "m.deleted_at IS NULL", "include": "1 = 1", "only": "m.deleted_at IS NOT NULL"}


class Database(Protocol):
    """A backend's connection handling: a snapshot to read in, a transaction to write in."""

    def read(self) -> AbstractContextManager[Any]: ...

    def write(self) -> AbstractContextManager[Any]: ...


class Sql:
    """A backend's database and its dialect: the sessions every table group reads and writes in."""

    def __init__(self, db: Database, dialect: Dialect) -> None:
        self.db = db
        self.dialect = dialect

    def reading(self) -> AbstractContextManager[Session]:
        return session(self.db, self.dialect, write=False)

    def writing(self) -> AbstractContextManager[Session]:
        return session(self.db, self.dialect, write=True)


@contextmanager
def session(db: Database, dialect: Dialect, *, write: bool) -> Iterator[Session]:
    """A session over one connection of ``db``: a snapshot to read in, or a transaction to write in."""
    with db.write() if write else db.read() as raw:
        yield Session(raw, dialect)


class SqlBase:
    """Sessions, and the places where a backend's own index joins a shared write.

    The hooks run inside the transaction that writes the memory, so a memory and
    its index never disagree.
    """

    db: Database
    dialect: Dialect

    def reading(self) -> AbstractContextManager[Session]:
        return session(self.db, self.dialect, write=False)

    def writing(self) -> AbstractContextManager[Session]:
        return session(self.db, self.dialect, write=True)

    def write_index(self, s: Session, memory: Memory, entry: IndexEntry) -> None:
        """(Re)index one memory."""
        raise NotImplementedError

    def write_new_index(self, s: Session, batch: Sequence[tuple[Memory, IndexEntry]]) -> None:
        """Index memories inserted in this transaction, in this order (a backend may send them together)."""
        for memory, entry in batch:
            self.write_index(s, memory, entry)

    def touch_index(self, s: Session, memory: Memory) -> None:
        """A memory changed without a new index entry (soft delete, restore, compliance)."""
        raise NotImplementedError

    def forget_index(self, s: Session, user_id: str, memory_id: str) -> None:
        """A memory is about to be purged."""
        raise NotImplementedError

    def write_fields(self, s: Session, memory: Memory) -> None:
        """A memory's structured content was written (a backend may keep a value index of it)."""
