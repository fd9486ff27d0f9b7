"""Keyword search for users with many memories: a ranked index proposes, the database decides.

The index (tantivy_index.py) is caught up with the database before it answers, and
every memory it proposes is re-read from the database, so nothing deleted,
purged or of another user is returned. A user without a usable index gets one
built: within the search when they have at most ``BUILD_INLINE_AT`` memories,
else in the background while the database's own keyword search answers theirs
(``best`` returns None), as it does while many changed rows are caught up.
What the index reads of the database comes through a ``KeywordSource``, one per
backend (store/sqlite/keyword_source.py, store/postgres/keyword_source.py).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from remember.config import KEYWORD_INDEX_MIN
from remember.errors import StoreError
from remember.filters import Filter
from remember.models import Progress, Words
from remember.store.index_files.files import cores, ranked, user_stem
from remember.store.index_files.tantivy_index import (
    IndexBusy,
    IndexUnusable,
    KeywordRow,
    Stopped,
    UserKeywords,
    clear_abandoned,
    failure,
    remove_user,
)

BUILD_INLINE_AT = 20_000  # a user with more rows than this gets their index built in the background

CATCH_UP_INLINE = 2_000  # rows changed since the index's commit that a search applies itself
FIRST_REACH = 2  # hits asked of the index at first, per result asked for
WIDEN = 4  # each further round asks this many times more
MAX_REACH = 5_000  # past this, what passed is the answer
# A filtered search is answered by the index among the keys of the memories that pass the filter when at
# most FILTERED_AT_MOST pass and their count times the user's memories is at most the tables'
# ``filtered_work`` (the index's restriction to n keys took ~0.01 ms a key among a million memories,
# ~0.0003 among 100,000: docs/search.md); past it the database's own keyword search answers, with the
# filter in its query.
FILTERED_AT_MOST = 10_000
FILTERED_WORK = 2_000_000_000
RETRY_AFTER = 300.0  # seconds before a user's index that could not be written is tried again
# Seconds a write is given to commit (and the writes after it to join it) before the index catches up
# with it in the background, so that the next search does not wait for a commit (~15 ms).
CATCH_UP_AFTER = 0.05
IDLE_WORKER = 30.0  # seconds the catch-up thread waits for writes before it ends

_log = logging.getLogger(__name__)


class KeywordSource(Protocol):
    """What the ranked index reads of a database (all of it for one user). A memory's key is an integer
    the database gives it for good; its seq moves on whenever its keyword row or its trash state changes."""

    def rows(
        self, user_id: str, after_seq: int, until: Callable[[], bool] | None = None
    ) -> Generator[list[KeywordRow]]:
        """The keyword rows changed since ``after_seq`` (every row from 0), in seq order, in chunks; then
        (after 0 only) the rows that follow a changed one in its conversation, whose context is its text.
        Raises ``Stopped`` between chunks when ``until`` says so."""
        ...

    def max_seq(self, user_id: str) -> int:
        """The highest seq the user ever had (their rows', or a purged row's)."""
        ...

    def memory_at(self, user_id: str, seq: int) -> str | None:
        """The memory whose row has this seq now, if any."""
        ...

    def changed_count(self, user_id: str, after_seq: int, cap: int) -> int:
        """How many of the user's rows changed since ``after_seq``, counted up to ``cap``."""
        ...

    def owned(self, user_id: str, keys: Sequence[int]) -> dict[int, tuple[str, bool]]:
        """Key to (memory id, in the trash) of the user's memories among these keys."""
        ...

    def passing(self, user_id: str, filter: Filter, cap: int) -> list[int] | None:
        """The keys of the user's memories out of the trash that pass ``filter``; None when more than ``cap`` do."""
        ...

    def apart(self) -> AbstractContextManager[KeywordSource]:
        """The same database for a background build or catch-up (a connection of its own where the
        store's would otherwise be held for its length). Raises ``StoreError`` when it cannot be had."""
        ...


class RankedKeywords:
    """The ranked keyword path of a backend's search tables: one ``UserKeywords`` per user."""

    def __init__(self, source: KeywordSource, directory: Path) -> None:
        self.source = source
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

    def best(
        self, user_id: str, terms: Sequence[str], limit: int, total: int, among: Sequence[int] | None = None
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` best of the user's live memories holding any of ``terms`` (only those keyed ``among``
        these, when given), best first; None when the index cannot answer now (being built or caught up, or
        unusable): the database searches."""
        with self._lock:
            if self._resting(user_id):
                return None
            index = self._user(user_id)
            try:
                if not self._caught_up(index, user_id, total):
                    return None
                return self._passing(index, user_id, terms, limit, among)
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
        """After the index failed (called under the lock): the database answers; another process's writer is
        passing, anything else is logged and waits ``RETRY_AFTER``. An interrupt is raised again."""
        if not failure(exc):
            raise exc
        if isinstance(exc, IndexBusy):
            return
        _log.warning("The keyword index of a user cannot be used (%s); the database searches meanwhile.", exc)
        self._failed[user_id] = time.monotonic()

    def build(self, user_id: str, progress: Progress | None = None, total: int = 0) -> bool:
        """Build the user's index from the database now, in bulk (on two cores), and open it; False (said
        in the log) where it cannot be written: the database answers then."""
        fresh = UserKeywords(self.directory, user_id)
        counted = _counted(self.source.rows(user_id, 0), progress, total)
        try:
            fresh.build(counted, threads=min(cores(), 2))
        except IndexUnusable as exc:
            _log.warning("The keyword index of a user could not be built (%s); the database searches.", exc)
            return False
        with self._lock:
            self._users[user_id] = fresh
            self._failed.pop(user_id, None)
        return True

    def forget(self, user_id: str) -> None:
        """Close and remove the user's index (an owner none of whose memories is left: a deleted space), once
        a build or catch-up of theirs running in the background has ended."""
        with self._lock:
            running = self._builders.get(user_id)
        if running is not None:
            running.join()
        with self._lock:
            index = self._users.pop(user_id, None)
            if index is not None:
                index.discard()
            self._failed.pop(user_id, None)
            remove_user(self.directory, user_stem(user_id))

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
        if not _refreshed(index, self.source, user_id):
            if total > BUILD_INLINE_AT:
                self._aside(user_id)
                return False
            index.build(self.source.rows(user_id, 0), threads=1)
            return True
        changed = self.source.changed_count(user_id, index.seq, CATCH_UP_INLINE + 1)
        if changed > CATCH_UP_INLINE:
            self._aside(user_id)
            return False
        if changed or index.gone:
            checked = set(index.gone)
            index.catch_up(self.source.rows(user_id, index.seq), self._still_gone(user_id, checked), checked)
        return True

    def _still_gone(self, user_id: str, keys: set[int]) -> set[int]:
        """Of these keys found stale by a search, those that are still not the user's live memories
        (one restored since, or reused by a new memory, is indexed again by the rows that follow)."""
        return _stale(keys, self.source.owned(user_id, sorted(keys)))

    def _passing(
        self, index: UserKeywords, user_id: str, terms: Sequence[str], limit: int, among: Sequence[int] | None
    ) -> list[tuple[str, float]]:
        """The index's best that are the user's live memories; the others are dropped from it at the next catch-up."""
        reach = max(FIRST_REACH * limit, limit + 10)
        while True:
            try:
                hits = dict(index.best(terms, reach, among))
            except IndexUnusable:
                index.discard()
                raise
            found = self.source.owned(user_id, list(hits))
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
        """A build or a long catch-up, reading the database apart: the store's connection stays free."""
        try:
            with self.source.apart() as own:
                self._brought_up(own, user_id)
        except StoreError:
            return  # the database answers; the next search tries again

    def _brought_up(self, own: KeywordSource, user_id: str) -> None:
        fresh = UserKeywords(self.directory, user_id)
        closing = self._closing.is_set
        try:
            if _refreshed(fresh, own, user_id):
                fresh.catch_up(own.rows(user_id, fresh.seq, closing), set(), set())
            else:
                fresh.build(own.rows(user_id, 0, closing), threads=min(cores(), 2))
        except Stopped:
            return
        except BaseException as exc:
            if not failure(exc):
                raise
            _log.warning("The keyword index of a user could not be written (%s); the database searches.", exc)
            with self._lock:
                self._failed[user_id] = time.monotonic()
            return
        with self._lock:
            self._users[user_id] = fresh


def _refreshed(index: UserKeywords, source: KeywordSource, user_id: str) -> bool:
    return index.refresh(lambda: source.max_seq(user_id), lambda seq: source.memory_at(user_id, seq))


def _stale(keys: Iterable[int], found: Mapping[int, tuple[str, bool]]) -> set[int]:
    """Of these keys, those that are not (as ``owned`` found them) the user's live memories."""
    return {key for key in keys if key not in found or found[key][1]}


def _counted(rows: Generator[list[KeywordRow]], progress: Progress | None, total: int) -> Generator[list[KeywordRow]]:
    done = 0
    with contextlib.closing(rows):  # the reading holds the database's lock while suspended
        for chunk in rows:
            yield chunk
            done += len(chunk)
            if progress is not None:
                progress(done, max(total, done))


class RankedKeywordTables:
    """The ranked keyword path of a backend's search tables: a user with at least ``keyword_index_min``
    indexed memories has their unfiltered keyword searches answered by a ranked index, when the backend
    gives one (``_new_ranked_index``); a write tells it (``_keywords_changed``)."""

    keyword_index_min: int | None = KEYWORD_INDEX_MIN
    filtered_work = FILTERED_WORK  # see FILTERED_AT_MOST
    _ranked_index: RankedKeywords | None = None

    def _new_ranked_index(self) -> RankedKeywords | None:
        """The backend's ranked path (None: it keeps none, e.g. an in-memory database)."""
        raise NotImplementedError

    def _indexed_total(self, user_id: str) -> int:
        """How many of the user's memories are indexed (a recent count)."""
        raise NotImplementedError

    def _count_indexed(self, user_id: str) -> int:
        """How many of the user's memories are indexed, counted now."""
        raise NotImplementedError

    def ranked_keyword_candidates(
        self, user_id: str, terms: Words, *, limit: int, filter: Filter | None = None
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` best of the user's live memories holding any of ``terms`` (and passing ``filter``),
        from the ranked index (BM25 over every term, no postings budget); None when the user has none (too
        few memories, or it is being built) or too many memories pass the filter (``FILTERED_AT_MOST``):
        ``keyword_candidates`` answers."""
        ranked = self._ranked_for(user_id)
        if ranked is None or not terms:
            return None
        total = self._indexed_total(user_id)
        among = None
        if filter is not None:
            among = ranked.source.passing(user_id, filter, min(FILTERED_AT_MOST, self.filtered_work // max(1, total)))
            if among is None:
                return None
        return ranked.best(user_id, terms, limit, total, among)

    def build_keyword_index(self, user_id: str, progress: Progress | None = None) -> bool:
        """Build the user's ranked keyword index now, in bulk, if their searches will use one; False if not."""
        total = self._count_indexed(user_id)
        ranked = self._ranked_for(user_id, total)
        if ranked is None:
            return False
        return ranked.build(user_id, progress, total)

    def _ranked_for(self, user_id: str, total: int | None = None) -> RankedKeywords | None:
        """The ranked keyword path, when the user has enough memories and the backend keeps one."""
        if not self._sized_for(self.keyword_index_min, user_id, total):
            return None
        if self._ranked_index is None:
            self._ranked_index = self._new_ranked_index()
        return self._ranked_index

    def _sized_for(self, minimum: int | None, user_id: str, total: int | None) -> bool:
        """Whether the user has at least ``minimum`` memories (``total``, else the recent count); never for None."""
        return minimum is not None and (self._indexed_total(user_id) if total is None else total) >= minimum

    def _keywords_changed(self, user_id: str) -> None:
        """A write of the user's: their ranked keyword index, if open, catches up once it is committed."""
        if self._ranked_index is not None:
            self._ranked_index.changed(user_id)

    def _forget_ranked(self, user_id: str) -> None:
        """Remove the user's ranked keyword index, opened or not."""
        if self._ranked_index is None:
            self._ranked_index = self._new_ranked_index()
        if self._ranked_index is not None:
            self._ranked_index.forget(user_id)

    def _close_ranked(self) -> None:
        if self._ranked_index is not None:
            self._ranked_index.close()
