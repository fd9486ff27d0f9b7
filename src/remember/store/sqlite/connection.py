"""One SQLite connection, shared safely by the threads of one process.

The MCP SDK runs tools in worker threads, so the connection is opened with
``check_same_thread=False`` and every use holds a lock. Across processes, WAL
mode lets readers run beside one writer, writers take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to ``BUSY_TIMEOUT_MS`` for it.

Two states make a database readable but not writable, and every write is then
refused with what to do (``StoreReadOnly``, ``StoreDamaged``):

- read-only: the file, its folder or the medium cannot be written (a backup on
  read-only media). It is opened with ``mode=ro``, or ``immutable=1`` where WAL's
  ``-shm`` file cannot be made beside it.
- damaged: a bounded ``PRAGMA quick_check`` at open, or the first "malformed"
  error of any statement, found the file damaged (``health.py`` says how to recover).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from remember.errors import StoreError, StoreReadOnly, StoreUnavailable
from remember.store.sqlite import health

BUSY_TIMEOUT_MS = 30_000
#: Write transactions after which ``PRAGMA optimize`` runs (besides at close and after bulk writes), so that a
#: server running for long does not plan on the statistics of a table a hundredth of its size; it analyzes only
#: a table whose statistics went stale and is otherwise a no-op.
OPTIMIZE_EVERY = 1_000


class Database:
    def __init__(self, path: str, *, check: bool = True) -> None:
        self.path = path
        self._lock = threading.RLock()
        self.damage: str | None = None  # what is wrong with the file, once known
        self.read_only: str | None = None  # why the database cannot be written, if it cannot
        self._origin: Database | None = None  # the database a companion reads beside (it shares the damage)
        self._conn, self.read_only = _connect(path)
        self._written = 0  # write transactions since the planner's statistics were last looked at
        if check and self._conn_is_file():
            self.damage = health.quick_check(self._conn)

    def companion(self) -> Database:
        """A second connection to the same file, for reads that run beside this one's (a search's
        vector side while its keyword side holds this connection); itself for an in-memory database.
        What it finds damaged is this database's damage too."""
        if not self._conn_is_file():
            return self
        other = Database(self.path, check=False)
        other._origin = self
        return other

    def close(self) -> None:
        with self._lock:
            if self.writable and self._origin is None:  # a companion leaves it to the database it reads beside
                with contextlib.suppress(sqlite3.Error):  # statistics for the query planner; best effort
                    self._conn.execute("PRAGMA optimize")
            self._conn.close()

    @property
    def writable(self) -> bool:
        return self.read_only is None and self.damage is None

    def optimize(self) -> None:
        """Refresh the query planner's statistics where they went stale (after bulk writes)."""
        with self._lock, self._translated():
            self._conn.execute("PRAGMA optimize")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs."""
        with self._lock, self._translated():
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._end("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed if the block ends, rolled back if it raises."""
        with self._lock:
            self.refuse_writes()
            with self._translated():
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                except BaseException as exc:
                    self._end("ROLLBACK")
                    self._release_log_on_full_disk(exc)
                    raise
                self._end("COMMIT")
                self._written += 1
                if self._written >= OPTIMIZE_EVERY:
                    self._written = 0
                    with contextlib.suppress(sqlite3.Error):  # best effort, as at close
                        self._conn.execute("PRAGMA optimize")

    def _release_log_on_full_disk(self, exc: BaseException) -> None:
        """On a full disk, give back the space the write-ahead log holds, so that a delete can then run."""
        if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def refuse_writes(self) -> None:
        """StoreDamaged or StoreReadOnly when this database must not be written."""
        if self.damage is not None:
            raise health.damaged(self.path, self.damage)
        if self.read_only is not None:
            raise StoreReadOnly(
                f"The database {self.path} is open read-only ({self.read_only}): reading works, writes are refused. "
                "To change it, copy the file to a writable place and point REMEMBER_DATABASE_URL (or --db) at the copy."
            )

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

    def _conn_is_file(self) -> bool:
        return self.path != ":memory:"

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Turn sqlite3's errors into the project's, with what to do about them."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if health.is_damage(exc):
                self.damage = str(exc)
                if self._origin is not None:
                    self._origin.damage = self.damage
                raise health.damaged(self.path, self.damage) from exc
            raise translated(self.path, exc) from exc

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for migrations at open time only."""
        return self._conn


def translated(path: str, exc: sqlite3.DatabaseError) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreUnavailable(
            f"The database {path} stayed locked by another process for {BUSY_TIMEOUT_MS // 1000} s; "
            "try again, and check for a stuck process holding it."
        )
    if "disk is full" in text or "database or disk is full" in text:
        return StoreError(
            f"The disk holding {path} is full, so nothing more can be written: free some space (or move the "
            "database to a larger disk) and try again. Reading and searching still work."
        )
    if "readonly" in text or "read-only" in text:
        return StoreReadOnly(
            f"The database {path} cannot be written ({text}): check that the file and its folder are writable."
        )
    return StoreError(f"The database {path} failed: {text}.")


def _connect(path: str) -> tuple[sqlite3.Connection, str | None]:
    """The connection, and why it is read-only (None when it can be written)."""
    if path == ":memory:":
        return _configured(sqlite3.connect(path, isolation_level=None, check_same_thread=False), writable=True), None
    reason = _why_read_only(path)
    if reason is None:
        _check_parent(path)
    try:
        if reason is None:
            return _configured(_open(path), writable=True), None
        return _read_only(path), reason
    except sqlite3.DatabaseError as exc:
        if health.is_damage(exc):
            raise health.unopenable(path, str(exc)) from exc
        raise StoreError(
            f"Cannot open the SQLite database at {path}: {exc}. Check that it is a remember database "
            "and that the file is readable, or set REMEMBER_DATABASE_URL to another file."
        ) from exc


def _open(target: str, *, uri: bool = False) -> sqlite3.Connection:
    return sqlite3.connect(
        target, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000, uri=uri
    )


def _configured(conn: sqlite3.Connection, *, writable: bool) -> sqlite3.Connection:
    conn.create_function("fold", 1, _fold, deterministic=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA temp_store = MEMORY")  # searching must not need disk space (a full disk still reads)
    if writable:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _read_only(path: str) -> sqlite3.Connection:
    """``mode=ro``; where WAL's shared-memory file cannot be made (an unwritable folder), ``immutable``."""
    location = "file:" + quote(str(Path(path).resolve()))
    conn = _configured(_open(f"{location}?mode=ro", uri=True), writable=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    # Nothing can change the file while the medium is read-only, so reading it as immutable is safe.
    return _configured(_open(f"{location}?immutable=1", uri=True), writable=False)


def _why_read_only(path: str) -> str | None:
    """Why ``path`` cannot be written (an existing file on a read-only medium, or without write permission)."""
    file = Path(path).expanduser()
    if not file.exists():
        return None
    if not os.access(file, os.W_OK):
        return "the file is not writable"
    folder = file.parent
    if not os.access(folder, os.W_OK):
        return "its folder is not writable"
    return None


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
