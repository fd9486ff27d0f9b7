"""One SQLite connection, shared safely by the threads of one process.

The MCP SDK runs tools in worker threads, so the connection is opened with
``check_same_thread=False`` and every use holds a lock. Across processes, WAL
mode lets readers run beside one writer, writers take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to ``BUSY_TIMEOUT_MS`` for it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from remember.errors import StoreError, StoreUnavailable

BUSY_TIMEOUT_MS = 30_000


class Database:
    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._conn = _connect(path)

    def close(self) -> None:
        with self._lock:
            with contextlib.suppress(sqlite3.Error):  # statistics for the query planner; best effort
                self._conn.execute("PRAGMA optimize")
            self._conn.close()

    def optimize(self) -> None:
        """Refresh the query planner's statistics where they went stale (after bulk writes)."""
        with self._lock, _translated(self.path):
            self._conn.execute("PRAGMA optimize")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs."""
        with self._lock, _translated(self.path):
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._end("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed if the block ends, rolled back if it raises."""
        with self._lock, _translated(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._end("ROLLBACK")
                raise
            self._end("COMMIT")

    def _end(self, statement: str) -> None:
        """End the transaction; if even that fails (disk full, I/O error), roll back so the
        shared connection is usable again, and report the failure."""
        try:
            self._conn.execute(statement)
        except sqlite3.Error:
            if self._conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for migrations at open time only."""
        return self._conn


def _connect(path: str) -> sqlite3.Connection:
    if path != ":memory:":
        _check_parent(path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
        conn.create_function("fold", 1, _fold, deterministic=True)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"Cannot open the SQLite database at {path}: {exc}. Check that it is a remember database "
            "and that the file is readable and writable, or set REMEMBER_DATABASE_URL to another file."
        ) from exc
    return conn


def _fold(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """Lower-case any text, Unicode included (SQL ``fold(x)``); other values pass through."""
    return value.lower() if isinstance(value, str) else value


def _check_parent(path: str) -> None:
    parent = Path(path).expanduser().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"Cannot create the folder {parent} for the database: {exc.strerror}. "
            "Set REMEMBER_HOME or REMEMBER_DATABASE_URL to a writable place."
        ) from exc


@contextmanager
def _translated(path: str) -> Iterator[None]:
    """Turn sqlite3's errors into the project's, with what to do about them."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise StoreUnavailable(
                f"The database {path} stayed locked by another process for {BUSY_TIMEOUT_MS // 1000} s; "
                "try again, and check for a stuck process holding it."
            ) from exc
        raise StoreError(f"The database {path} failed: {text}.") from exc
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"The database {path} failed: {exc}. It may be damaged; restore a backup.") from exc
