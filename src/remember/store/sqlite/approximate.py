"""Semantic search for users with many memories: an approximate index proposes, the database decides.

Every candidate the index proposes is re-read from the database (its owner and
its deletion state), so nothing filtered out, deleted or purged is returned, and
scored with the vector the index keeps (its float16 copy: within 2**-11 of
exact search's cosine; ann.py). A filter that selects few memories
(``EXACT_AT_MOST``) is answered by exact search over exactly those memories; a
broad one takes the index's nearest and widens the reach until enough pass,
falling back to exact search over the filtered ids.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Collection, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from remember.errors import StoreError
from remember.filters import best_passing
from remember.models import DeletedMode
from remember.store.index_files.files import cores, ranked, user_stem
from remember.store.sqlite.ann import UserIndex, remove_user_files
from remember.store.sqlite.connection import Database
from remember.store.sqlite.vector_file import DamagedVectors

EXACT_AT_MOST = 20_000  # allowed memories searched exactly rather than through the index
FIRST_REACH = 200  # candidates asked of the index at first, at the least
WIDEN = 4  # each further round asks this many times more
SHORTLIST = 4  # candidates asked of the index at first, per result asked for
MAX_REACH = 20_000  # past this, exact search over the allowed memories
ID_CHUNK = 500  # ids per IN (...) list
KEY_CHUNK = 8_192  # rows read at a time when an index is built or caught up
BUILD_INLINE_AT = 20_000  # a user with more rows than this gets their index built in the background

_log = logging.getLogger(__name__)
T = TypeVar("T")


def index_directory(db: Database) -> Path | None:
    """Where a file database keeps its users' index files (None for an in-memory database)."""
    return None if db.path in ("", ":memory:") else Path(db.path + ".vectors")


class ApproximateSearch:
    """The approximate path of ``SearchTables``: one ``UserIndex`` per user, caught up on every search.

    A user without a usable index file gets one built: within the search when they have at most
    ``BUILD_INLINE_AT`` rows, else by a background thread while their searches are answered
    exactly (``nearest`` returns None), so no search waits minutes for a build. ``build`` makes
    one in the foreground, as an import does once it has written.
    """

    def __init__(self, db: Database, directory: Path) -> None:
        self.db = db
        self.directory = directory
        self._indexes: dict[tuple[str, int], UserIndex] = {}
        self._lock = threading.Lock()
        self._builders: dict[tuple[str, int], threading.Thread] = {}
        self._closing = threading.Event()

    def nearest(
        self,
        user_id: str,
        vector: bytes,
        allowed: Mapping[str, int] | None,
        deleted: DeletedMode,
        limit: int,
        total: int,
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` memories closest to ``vector`` among ``allowed`` (None: any; else memory id to
        rowid) in the ``deleted`` mode; None while the user's index is being built, or when its vectors file
        proved damaged (it is then built again): search exactly meanwhile."""
        if allowed is not None and len(allowed) <= EXACT_AT_MOST:
            return self.exact(user_id, vector, allowed, limit)
        reach = max(FIRST_REACH, SHORTLIST * limit)
        while True:
            proposed = self._proposed(user_id, vector, reach, total)
            if proposed is None:
                return None
            best = _best_if_all_pass(self.db, user_id, proposed, limit, deleted, allowed)
            if best is not None:
                return best
            passing = [
                (memory_id, score)
                for memory_id, score, is_deleted in rescored(self.db, user_id, proposed)
                if _keeps(deleted, is_deleted) and (allowed is None or memory_id in allowed)
            ]
            if len(passing) >= limit or len(proposed) < reach or reach >= total:
                return ranked(passing, limit)
            reach *= WIDEN
            if reach > MAX_REACH:
                return self.exact(user_id, vector, allowed or selected(self.db, user_id, deleted), limit)

    def nearest_passing(
        self,
        user_id: str,
        vector: bytes,
        passes: Callable[[list[str]], set[str]],
        deleted: DeletedMode,
        limit: int,
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` closest of the index's first proposals that ``passes`` keeps (of the memories
        given, those that pass a filter), when they hold that many: a filter most memories pass, answered
        without listing them all; None otherwise, or when the user's index is not written yet (this
        check never builds it: a filter few memories pass is answered exactly without it)."""
        reach = max(FIRST_REACH, SHORTLIST * limit)
        with self._lock:
            index = self._index(user_id, len(vector) // 4)
            proposed = _nearest(index, vector, reach) if _refreshed(index, self.db, user_id) else None
        if proposed is None:
            return None
        live = [
            (memory_id, score)
            for memory_id, score, gone in rescored(self.db, user_id, proposed)
            if _keeps(deleted, gone)
        ]
        kept = passes([memory_id for memory_id, _ in live])
        return best_passing(ranked(live, len(live)), kept, limit, len(proposed) < reach)

    def exact(self, user_id: str, vector: bytes, allowed: Mapping[str, int], limit: int) -> list[tuple[str, float]]:
        """Exact search over the ``allowed`` memories only (memory id to rowid): every one scored with
        the vector the index keeps, those it has none of (its file is being built) with the database's."""
        import numpy as np

        query = np.frombuffer(vector, dtype=np.float32)
        ids = {rowid: memory_id for memory_id, rowid in allowed.items()}
        dimension = len(vector) // 4
        with self._lock:
            index = self._index(user_id, dimension)
            found = _held(index, list(ids)) if _refreshed(index, self.db, user_id) else {}
        best: list[tuple[str, float]] = []
        if found:
            keys = list(found)
            scores = np.vstack([found[key] for key in keys]) @ query
            if len(keys) > limit:  # the best ``limit``, and any tied with the last of them (``ranked`` decides)
                kept = np.nonzero(scores >= np.partition(scores, len(keys) - limit)[len(keys) - limit])[0]
            else:
                kept = np.arange(len(keys))
            best = [(ids[keys[i]], float(scores[i])) for i in kept]
        missing = [memory_id for key, memory_id in ids.items() if key not in found]
        return ranked([*best, *(stored_exact(self.db, user_id, vector, missing, limit) if missing else [])], limit)

    def cosines(self, user_id: str, vector: bytes, memory_ids: Collection[str]) -> dict[str, float]:
        """The cosine of each of these memories that has a vector: scored from the user's index where
        it is open, else (while it is built) from the database."""
        import numpy as np

        query = np.frombuffer(vector, dtype=np.float32)
        keys = rowids(self.db, user_id, memory_ids)
        with self._lock:
            index = self._indexes.get((user_id, len(vector) // 4))
            found = {} if index is None else _held(index, list(keys))
        scores = {memory_id: float(found[key] @ query) for key, memory_id in keys.items() if key in found}
        missing = [memory_id for memory_id in memory_ids if memory_id not in scores]
        return scores | (stored_cosines(self.db, user_id, vector, missing) if missing else {})

    def build(self, user_id: str, dimension: int, progress: Callable[[int], None] | None = None) -> None:
        """Build the user's index from the database now, in bulk (on every core), and open it."""
        fresh = UserIndex(self.directory, user_id, dimension)
        fresh.build(lambda seq: keyed_rows(self.db, user_id, seq), progress, threads=cores())
        with self._lock:
            self._indexes[user_id, dimension] = fresh

    def forget(self, user_id: str) -> None:
        """Close and remove the user's index files (an owner none of whose memories is left: a deleted space),
        once a build of theirs running in the background has ended."""
        with self._lock:
            running = [thread for (user, _), thread in self._builders.items() if user == user_id]
        for thread in running:
            thread.join()
        with self._lock:
            for key in [key for key in self._indexes if key[0] == user_id]:
                self._indexes.pop(key).discard()
            remove_user_files(self.directory, user_stem(user_id))

    def close(self) -> None:
        """Stop background builds (their half-built graphs are dropped, nothing is written)."""
        self._closing.set()
        for thread in list(self._builders.values()):
            thread.join()

    def _proposed(self, user_id: str, vector: bytes, count: int, total: int) -> dict[int, float] | None:
        """The index's nearest keys, and their cosines; None while the index is built in the background."""
        dimension = len(vector) // 4
        with self._lock:
            index = self._index(user_id, dimension)
            if _refreshed(index, self.db, user_id):
                return _nearest(index, vector, count)
            if total > BUILD_INLINE_AT:
                self._build_aside(user_id, dimension)
                return None
        self.build(user_id, dimension)
        with self._lock:
            index = self._index(user_id, dimension)
            _refreshed(index, self.db, user_id)
            return _nearest(index, vector, count)

    def _index(self, user_id: str, dimension: int) -> UserIndex:
        """The user's ``UserIndex`` (called under the lock)."""
        index = self._indexes.get((user_id, dimension))
        if index is None:
            index = self._indexes[user_id, dimension] = UserIndex(self.directory, user_id, dimension)
        return index

    def _build_aside(self, user_id: str, dimension: int) -> None:
        """Start a background build of the user's index, unless one is running (called under the lock)."""
        key = (user_id, dimension)
        running = self._builders.get(key)
        if (running is not None and running.is_alive()) or self._closing.is_set():
            return
        thread = threading.Thread(
            target=self._build_apart, args=(user_id, dimension), name=f"vector-index-{len(self._builders)}", daemon=True
        )
        self._builders[key] = thread
        thread.start()

    def _build_apart(self, user_id: str, dimension: int) -> None:
        """A build on a connection of its own: the store's connection stays free for searches and writes."""
        try:
            own = Database(self.db.path)
        except StoreError:
            return  # searches stay exact; the next one tries again
        try:
            fresh = UserIndex(self.directory, user_id, dimension)
            fresh.build(lambda seq: self._until_closed(keyed_rows(own, user_id, seq)))
        except (StoreError, _Closing):
            return
        finally:
            own.close()
        with self._lock:
            self._indexes[user_id, dimension] = fresh

    def _until_closed(self, rows: Iterator[list[tuple[int, int, bytes | None]]]) -> Iterator[list[Any]]:
        for chunk in rows:
            if self._closing.is_set():
                raise _Closing
            yield chunk


class _Closing(Exception):
    """The store is closing: a background build stops."""


def _refreshed(index: UserIndex, db: Database, user_id: str) -> bool:
    """The index caught up with the database; False when it has no usable file (none yet, or a damaged one)."""
    return _guarded(index, lambda: index.refresh(lambda seq: keyed_rows(db, user_id, seq), max_seq(db, user_id)), False)


def _nearest(index: UserIndex, vector: bytes, count: int) -> dict[int, float] | None:
    """The index's nearest (key to cosine); None if its vectors file proved damaged (search exactly meanwhile)."""
    return _guarded(index, lambda: index.nearest(vector, count), None)


def _held(index: UserIndex, keys: list[int]) -> dict[int, Any]:
    """The index's vectors of these keys; none if its vectors file proved damaged (the database's are read)."""
    return _guarded(index, lambda: index.vectors(keys), {})


def _guarded(index: UserIndex, read: Callable[[], T], otherwise: T) -> T:
    """``read()`` from the index, or ``otherwise`` if its vectors file proves damaged: then the index is
    discarded, with a warning, to be built again."""
    try:
        return read()
    except DamagedVectors as exc:
        _log.warning("%s Searching exactly meanwhile.", exc.message)
        index.discard()
        return otherwise


def _best_if_all_pass(
    db: Database,
    user_id: str,
    proposed: Mapping[int, float],
    limit: int,
    deleted: DeletedMode,
    allowed: Mapping[str, int] | None,
) -> list[tuple[str, float]] | None:
    """The ``limit`` best of ``proposed`` when every one of them (and any tied with the last) passes: then
    no other can be among the best, so only their owners are read (50 rowids, not the 200 proposed);
    None when one does not pass (the caller reads them all)."""
    order = sorted(proposed, key=lambda key: -proposed[key])
    cut = min(limit, len(order))
    while 0 < cut < len(order) and proposed[order[cut]] == proposed[order[cut - 1]]:
        cut += 1
    head = order[:cut]
    found = owned(db, user_id, head)
    passing = [(memory_id, proposed[key]) for key, (memory_id, is_deleted) in found.items()
               if _keeps(deleted, is_deleted) and (allowed is None or memory_id in allowed)]  # fmt: skip
    return ranked(passing, limit) if len(passing) == len(head) else None


def _keeps(deleted: DeletedMode, is_deleted: bool) -> bool:
    return deleted == "include" or is_deleted == (deleted == "only")


def rescored(db: Database, user_id: str, scores: Mapping[int, float]) -> list[tuple[str, float, bool]]:
    """(memory id, cosine, deleted) of the user's memories among these rowids (key to cosine)."""
    return [(memory_id, scores[key], gone) for key, (memory_id, gone) in owned(db, user_id, list(scores)).items()]


def owned(db: Database, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
    """Rowid to (memory id, deleted) of the user's memories among these rowids."""
    sql = "SELECT rowid, id, deleted_at IS NOT NULL FROM memories WHERE user_id = ? AND rowid IN ({marks})"
    with db.read() as conn:
        return {key: (memory_id, bool(gone)) for key, memory_id, gone in _among(conn, sql, user_id, keys)}


def rowids(db: Database, user_id: str, memory_ids: Collection[str]) -> dict[int, str]:
    """The ``memories`` rowid (the index's key) of each of these memories of the user."""
    sql = "SELECT rowid, id FROM memories WHERE user_id = ? AND id IN ({marks})"
    with db.read() as conn:
        return dict(_among(conn, sql, user_id, list(memory_ids)))


def stored_cosines(db: Database, user_id: str, vector: bytes, memory_ids: Collection[str]) -> dict[str, float]:
    """The exact cosine of each of these memories that has a vector, read from the database."""
    import numpy as np

    query = np.frombuffer(vector, dtype=np.float32)
    return {memory_id: float(np.frombuffer(data, dtype=np.float32) @ query)
            for memory_id, data in vectors_of(db, user_id, memory_ids)
            if data is not None and len(data) == len(vector)}  # fmt: skip


def stored_exact(
    db: Database, user_id: str, vector: bytes, memory_ids: Collection[str], limit: int
) -> list[tuple[str, float]]:
    """Exact search over these memories only, with the vectors the database holds."""
    import numpy as np

    best: list[tuple[str, float]] = []
    query = np.frombuffer(vector, dtype=np.float32)
    ids: list[str] = []
    rows: list[Any] = []
    for memory_id, data in vectors_of(db, user_id, memory_ids):
        if data is not None and len(data) == len(vector):
            ids.append(memory_id)
            rows.append(np.frombuffer(data, dtype=np.float32))
        if len(rows) >= KEY_CHUNK:
            best = ranked([*best, *_scored(ids, rows, query)], limit)
            ids, rows = [], []
    return ranked([*best, *_scored(ids, rows, query)], limit) if rows else best


def _scored(ids: list[str], rows: list[Any], query: Any) -> list[tuple[str, float]]:
    import numpy as np

    scores = np.vstack(rows) @ query
    return [(memory_id, float(score)) for memory_id, score in zip(ids, scores, strict=True)]


def vectors_of(db: Database, user_id: str, memory_ids: Collection[str]) -> Iterator[tuple[str, bytes | None]]:
    sql = "SELECT memory_id, vector FROM memory_index WHERE user_id = ? AND memory_id IN ({marks})"
    with db.read() as conn:
        yield from _among(conn, sql, user_id, list(memory_ids))


def _among(conn: sqlite3.Connection, sql: str, user_id: str, keys: Sequence[Any]) -> Iterator[Any]:
    """The rows of ``sql`` for these keys, ``ID_CHUNK`` at a time: its ``{marks}`` are the ``IN`` list's
    places, its first parameter the user."""
    for start in range(0, len(keys), ID_CHUNK):
        part = keys[start : start + ID_CHUNK]
        yield from conn.execute(sql.format(marks=",".join("?" * len(part))), [user_id, *part])


def selected(db: Database, user_id: str, deleted: DeletedMode) -> dict[str, int]:
    """The ids (and rowids) of the user's memories in the ``deleted`` mode."""
    where = {"exclude": "deleted_at IS NULL", "include": "1", "only": "deleted_at IS NOT NULL"}[deleted]
    with db.read() as conn:
        return dict(conn.execute(f"SELECT id, rowid FROM memories WHERE user_id = ? AND {where}", (user_id,)))


def keyed_rows(db: Database, user_id: str, after_seq: int) -> Iterator[list[tuple[int, int, bytes | None]]]:
    """The user's index rows changed since ``after_seq`` as (memories rowid, seq, vector), in seq order."""
    for rows in index_changes(db, user_id, after_seq, "m.rowid, mi.seq, mi.vector", KEY_CHUNK):
        yield [(int(r[0]), int(r[1]), r[2]) for r in rows]


def index_changes(
    db: Database, user_id: str, after_seq: int, columns: str, chunk: int, joins: str = ""
) -> Generator[list[Any]]:
    """``columns`` (of ``mi``, memory_index, ``m``, memories, and what ``joins`` adds) of the user's index
    rows changed since ``after_seq`` (all of them from 0), in seq order, ``chunk`` rows at a time: a first
    load never holds every row twice."""
    with db.read() as conn:
        cursor = conn.execute(
            f"SELECT {columns} FROM memory_index mi JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id "
            f"{joins}WHERE mi.user_id = ? AND mi.seq > ? ORDER BY mi.seq",
            (user_id, after_seq),
        )
        while rows := cursor.fetchmany(chunk):
            yield rows


def max_seq(db: Database, user_id: str) -> int:
    """The highest index seq the user ever had (their rows', or a purged row's)."""
    with db.read() as conn:
        return seq_high(conn, user_id)


def seq_high(conn: sqlite3.Connection, user_id: str) -> int:
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE user_id = ?), 0), "
        "coalesce((SELECT CAST(value AS INTEGER) FROM index_settings WHERE key = ?), 0))",
        (user_id, seq_key(user_id)),
    ).fetchone()
    return int(row[0])


def seq_key(user_id: str) -> str:
    """The ``index_settings`` key of the highest seq a purge took away from the user."""
    return f"purged_seq:{user_id}"
