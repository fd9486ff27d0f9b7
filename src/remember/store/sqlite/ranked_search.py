"""Keyword search for users with many memories: a ranked index proposes, the database decides.

The index (ranked.py) is caught up with the database before it answers, and
every memory it proposes is re-read from the database, so nothing deleted,
purged or of another user is returned. A user without a usable index gets one
built: within the search when they have at most ``BUILD_INLINE_AT`` memories,
else in the background while FTS5 answers their searches (``best`` returns
None), as it does while many changed rows are caught up.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Generator, Iterable, Mapping, Sequence
from pathlib import Path

from remember.errors import StoreError
from remember.models import Progress
from remember.store.sqlite.approximate import BUILD_INLINE_AT, cores, max_seq, owned, ranked
from remember.store.sqlite.connection import Database
from remember.store.sqlite.ranked import (
    IndexBusy,
    IndexUnusable,
    KeywordRow,
    Stopped,
    UserKeywords,
    changed_count,
    clear_abandoned,
    failure,
    keyword_rows,
    memory_at,
)

CATCH_UP_INLINE = 2_000  # rows changed since the index's commit that a search applies itself
FIRST_REACH = 2  # hits asked of the index at first, per result asked for
WIDEN = 4  # each further round asks this many times more
MAX_REACH = 5_000  # past this, what passed is the answer
RETRY_AFTER = 300.0  # seconds before a user's index that could not be written is tried again
# Seconds a write is given to commit (and the writes after it to join it) before the index catches up
# with it in the background, so that the next search does not wait for a commit (~15 ms).
CATCH_UP_AFTER = 0.05
IDLE_WORKER = 30.0  # seconds the catch-up thread waits for writes before it ends

_log = logging.getLogger(__name__)


def keyword_directory(db: Database) -> Path | None:
    """Where a file database keeps its users' keyword indexes (None for an in-memory database)."""
    return None if db.path in ("", ":memory:") else Path(db.path + ".keywords")


class RankedKeywords:
    """The ranked keyword path of ``SearchTables``: one ``UserKeywords`` per user."""

    def __init__(self, db: Database, directory: Path) -> None:
        self.db = db
        self.directory = directory
        clear_abandoned(directory)
        self._users: dict[str, UserKeywords] = {}
        self._lock = threading.Lock()
        self._builders: dict[str, threading.Thread] = {}
        self._failed: dict[str, float] = {}  # user -> when their index last could not be built
        self._closing = threading.Event()
        self._pending: set[str] = set()  # users written to since the catch-up thread last ran
        self._wake = threading.Condition()
        self._worker: threading.Thread | None = None

    def best(self, user_id: str, terms: Sequence[str], limit: int, total: int) -> list[tuple[str, float]] | None:
        """The ``limit`` best of the user's live memories holding any of ``terms``, best first; None
        when the index cannot answer now (being built or caught up, or unusable): search with FTS5."""
        with self._lock:
            if self._resting(user_id):
                return None
            index = self._user(user_id)
            try:
                if not self._caught_up(index, user_id, total):
                    return None
                return self._passing(index, user_id, terms, limit)
            except BaseException as exc:
                self._failing(user_id, exc)
                return None

    def changed(self, user_id: str) -> None:
        """The user's memories were written: their open index catches up in the background shortly."""
        if user_id not in self._users or self._closing.is_set():
            return
        with self._wake:
            self._pending.add(user_id)
            if self._worker is None or not self._worker.is_alive():
                worker = threading.Thread(target=self._catching_up, name="keyword-catch-up", daemon=True)
                try:
                    worker.start()
                except RuntimeError:  # no thread to be had (the interpreter ending): the next search catches up
                    return
                self._worker = worker
            self._wake.notify()

    def _catching_up(self) -> None:
        """The catch-up thread: after each burst of writes, bring the written users' indexes up to date."""
        while True:
            with self._wake:
                if not self._pending and not self._closing.is_set():
                    self._wake.wait(IDLE_WORKER)
                if not self._pending or self._closing.is_set():
                    self._worker = None
                    return
            if self._closing.wait(CATCH_UP_AFTER):
                return
            with self._wake:
                users, self._pending = self._pending, set()
            for user_id in users:
                self._prepare(user_id)

    def _prepare(self, user_id: str) -> None:
        """Catch the user's open index up now (one gone meanwhile is built again in the background)."""
        with self._lock:
            index = self._users.get(user_id)
            if index is None or index.path is None or self._resting(user_id):
                return
            try:
                self._caught_up(index, user_id, BUILD_INLINE_AT + 1)
            except BaseException as exc:
                self._failing(user_id, exc)

    def _resting(self, user_id: str) -> bool:
        """Whether the user's index is being built, or failed lately (called under the lock)."""
        return self._building(user_id) or time.monotonic() - self._failed.get(user_id, -RETRY_AFTER) < RETRY_AFTER

    def _failing(self, user_id: str, exc: BaseException) -> None:
        """After the index failed (called under the lock): FTS5 answers; another process's writer is
        passing, anything else is logged and waits ``RETRY_AFTER``. An interrupt is raised again."""
        if not failure(exc):
            raise exc
        if isinstance(exc, IndexBusy):
            return
        _log.warning("The keyword index of a user cannot be used (%s); searching with FTS5 meanwhile.", exc)
        self._failed[user_id] = time.monotonic()

    def build(self, user_id: str, progress: Progress | None = None, total: int = 0) -> bool:
        """Build the user's index from the database now, in bulk (on two cores), and open it; False (said
        in the log) where it cannot be written: FTS5 answers then."""
        fresh = UserKeywords(self.directory, user_id)
        counted = _counted(keyword_rows(self.db, user_id, 0), progress, total)
        try:
            fresh.build(counted, threads=min(cores(), 2))
        except IndexUnusable as exc:
            _log.warning("The keyword index of a user could not be built (%s); FTS5 answers their searches.", exc)
            return False
        with self._lock:
            self._users[user_id] = fresh
            self._failed.pop(user_id, None)
        return True

    def close(self) -> None:
        """Stop background builds (their half-written directories are removed) and catch-ups."""
        with self._lock:
            self._closing.set()
            builders = list(self._builders.values())
        with self._wake:
            self._wake.notify_all()
            worker = self._worker
        for thread in [*builders, *([worker] if worker is not None else [])]:
            thread.join()

    def _caught_up(self, index: UserKeywords, user_id: str, total: int) -> bool:
        """The index holds every change of the database (called under the lock); False while that is
        done in the background."""
        if not index.refresh(lambda: max_seq(self.db, user_id), lambda seq: memory_at(self.db, user_id, seq)):
            if total > BUILD_INLINE_AT:
                self._aside(user_id)
                return False
            index.build(keyword_rows(self.db, user_id, 0), threads=1)
            return True
        changed = changed_count(self.db, user_id, index.seq, CATCH_UP_INLINE + 1)
        if changed > CATCH_UP_INLINE:
            self._aside(user_id)
            return False
        if changed or index.gone:
            checked = set(index.gone)
            index.catch_up(keyword_rows(self.db, user_id, index.seq), self._still_gone(user_id, checked), checked)
        return True

    def _still_gone(self, user_id: str, rowids: set[int]) -> set[int]:
        """Of these rowids found stale by a search, those that are still not the user's live memories
        (one restored since, or reused by a new memory, is indexed again by the rows that follow)."""
        return _stale(rowids, owned(self.db, user_id, sorted(rowids)))

    def _passing(self, index: UserKeywords, user_id: str, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """The index's best that are the user's live memories; the others are dropped from it at the next catch-up."""
        reach = max(FIRST_REACH * limit, limit + 10)
        while True:
            try:
                hits = dict(index.best(terms, reach))
            except IndexUnusable:
                index.discard()
                raise
            found = owned(self.db, user_id, list(hits))
            live = [(memory_id, hits[key]) for key, (memory_id, deleted) in found.items() if not deleted]
            index.gone |= _stale(hits, found)
            if len(live) >= limit or len(hits) < reach or reach >= MAX_REACH:
                return ranked(live, limit)
            reach *= WIDEN

    def _user(self, user_id: str) -> UserKeywords:
        index = self._users.get(user_id)
        if index is None:
            index = self._users[user_id] = UserKeywords(self.directory, user_id)
        return index

    def _building(self, user_id: str) -> bool:
        running = self._builders.get(user_id)
        return running is not None and running.is_alive()

    def _aside(self, user_id: str) -> None:
        """Start bringing the user's index up to date in the background (called under the lock)."""
        if self._building(user_id) or self._closing.is_set():
            return
        thread = threading.Thread(target=self._apart, args=(user_id,), name="keyword-index", daemon=True)
        self._builders[user_id] = thread
        thread.start()

    def _apart(self, user_id: str) -> None:
        """A build or a long catch-up on a connection of its own: the store's stays free for searches."""
        try:
            own = Database(self.db.path)
        except StoreError:
            return  # FTS5 answers; the next search tries again
        fresh = UserKeywords(self.directory, user_id)
        closing = self._closing.is_set
        try:
            if fresh.refresh(lambda: max_seq(own, user_id), lambda seq: memory_at(own, user_id, seq)):
                fresh.catch_up(keyword_rows(own, user_id, fresh.seq, closing), set(), set())
            else:
                fresh.build(keyword_rows(own, user_id, 0, closing), threads=min(cores(), 2))
        except Stopped:
            return
        except BaseException as exc:
            if not failure(exc):
                raise
            _log.warning("The keyword index of a user could not be written (%s); searching with FTS5.", exc)
            with self._lock:
                self._failed[user_id] = time.monotonic()
            return
        finally:
            own.close()
        with self._lock:
            self._users[user_id] = fresh


def _stale(keys: Iterable[int], found: Mapping[int, tuple[str, bool]]) -> set[int]:
    """Of these rowids, those that are not (as ``owned`` found them) the user's live memories."""
    return {key for key in keys if key not in found or found[key][1]}


def _counted(rows: Generator[list[KeywordRow]], progress: Progress | None, total: int) -> Generator[list[KeywordRow]]:
    done = 0
    with contextlib.closing(rows):  # the reading holds the database's lock while suspended
        for chunk in rows:
            yield chunk
            done += len(chunk)
            if progress is not None:
                progress(done, max(total, done))
