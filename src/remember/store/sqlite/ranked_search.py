"""Keyword search for users with many memories: a ranked index proposes, the database decides.

The index (ranked.py) is caught up with the database before it answers, and
every memory it proposes is re-read from the database, so nothing deleted,
purged or of another user is returned. A user without a usable index gets one
built: within the search when they have at most ``BUILD_INLINE_AT`` memories,
else in the background while FTS5 answers their searches (``best`` returns
None), as it does while many changed rows are caught up.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
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

    def best(self, user_id: str, terms: Sequence[str], limit: int, total: int) -> list[tuple[str, float]] | None:
        """The ``limit`` best of the user's live memories holding any of ``terms``, best first; None
        when the index cannot answer now (being built or caught up, or unusable): search with FTS5."""
        with self._lock:
            if self._building(user_id) or time.monotonic() - self._failed.get(user_id, -RETRY_AFTER) < RETRY_AFTER:
                return None
            index = self._user(user_id)
            try:
                if not self._caught_up(index, user_id, total):
                    return None
                return self._passing(index, user_id, terms, limit)
            except IndexBusy:
                return None
            except BaseException as exc:
                if not failure(exc):
                    raise
                _log.warning("The keyword index of a user cannot be used (%s); searching with FTS5 meanwhile.", exc)
                self._failed[user_id] = time.monotonic()
                return None

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
        """Stop background builds (their half-written directories are removed)."""
        self._closing.set()
        for thread in list(self._builders.values()):
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
            index.catch_up(keyword_rows(self.db, user_id, index.seq), self._still_gone(user_id, index.gone))
        return True

    def _still_gone(self, user_id: str, rowids: set[int]) -> set[int]:
        """Of these rowids found stale by a search, those that are still not the user's live memories
        (one restored since, or reused by a new memory, is indexed again by the rows that follow)."""
        found = owned(self.db, user_id, sorted(rowids))
        return {key for key in rowids if key not in found or found[key][1]}

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
            index.gone |= {key for key in hits if key not in found or found[key][1]}
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
                fresh.catch_up(keyword_rows(own, user_id, fresh.seq, closing), set())
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


def _counted(rows: Iterator[list[KeywordRow]], progress: Progress | None, total: int) -> Iterator[list[KeywordRow]]:
    done = 0
    for chunk in rows:
        yield chunk
        done += len(chunk)
        if progress is not None:
            progress(done, max(total, done))
