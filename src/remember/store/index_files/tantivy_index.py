"""A ranked keyword index of one user's memories (tantivy's BM25), on disk beside the database.

Used only for users with many memories (``keyword_index_min`` of either
backend's search tables) and for searches without a filter: FTS5's ``bm25``
and PostgreSQL's ``ts_rank`` score every memory a query's terms find (or a
budget of them), where this index's block-max WAND skips the memories that
cannot reach the best (docs/search.md#a-ranked-keyword-index). The database stays the
source of truth, read through a ``KeywordSource`` (``ranked_keywords.py``):

- A user's index is a directory ``<directory>/<user hash>-<generation>``
  holding the memories whose ``memory_index.seq`` is at most the ``seq`` of its
  ``state.json``; one document a live memory, its keyword row's three texts
  (content, date, context) in one field, keyed by an integer the backend gives
  each memory for good (SQLite: the ``memories`` rowid; PostgreSQL:
  ``memory_index.doc``).
- Rows changed since (by any process) are applied before a search answers:
  each changed row's document is replaced, or removed when the memory is in the
  trash. Past ``CATCH_UP_INLINE`` changed rows, the index catches up in the
  background while the database's own keyword search answers.
- Every hit is re-read from the database (its owner and its deletion state): a
  purged memory, which leaves no changed row behind, is never returned, and
  its document is removed at the next catch-up.
- A missing, unreadable or impossible index (of another format, or of a seq
  the database never reached) is built again from the database.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from typing import Any

import tantivy

from remember.store.index_files.files import user_stem, writer_alive

FORMAT = 1  # the documents' layout; an index of another is built again
TOKENIZER = "remember"
STATE = "state.json"
CATCH_UP_HEAP = 32_000_000  # bytes the writer of a catch-up may hold
BUILD_HEAP = 128_000_000  # and of a build (split between its threads)
LONGEST = 1_000  # bytes of the longest word indexed (a hash, a long identifier, a run of CJK text)

# (the memory's key, seq, the keyword row's texts or None when the memory is in the trash, the memory's id)
KeywordRow = tuple[int, int, str | None, str]


class IndexUnusable(Exception):
    """The index cannot be read or written now (damaged, or another process writes it)."""


class IndexBusy(IndexUnusable):
    """Another process writes the index now: the database answers this search, the next one tries again."""


def failure(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure of the index to fall back from: any error, or a panic of tantivy's
    Rust code (over damaged files), which is raised as a BaseException; not an interrupt."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class Stopped(Exception):
    """The store is closing: a background build or catch-up stops."""


def _analyzer() -> tantivy.TextAnalyzer:
    """Words as FTS5's ``unicode61`` splits them (letters and digits, accents folded), lower-cased and stemmed."""

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(LONGEST))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", tokenizer_name=TOKENIZER, index_option="freq")
    builder.add_integer_field("rid", indexed=True, fast=True)
    return builder.build()


class UserKeywords:
    """One user's ranked keyword index: the newest usable directory, and the seq it holds."""

    def __init__(self, directory: Path, user_id: str) -> None:
        self.directory = directory
        self.stem = user_stem(user_id)
        self.path: Path | None = None
        self.seq = 0
        self.memory: str | None = None  # the memory whose change gave ``seq``
        self.gone: set[int] = set()  # keys found stale by a search, removed at the next catch-up
        self._index: Any = None
        self._searcher: Any = None
        self._analyzer: Any = None
        self._seen: tuple[int, int] | None = None  # (directory listing, state file) change times

    # opening

    def refresh(self, max_seq: Callable[[], int], memory_at: Callable[[int], str | None]) -> bool:
        """Open the newest usable directory, again when it or its state changed (another process wrote);
        False when there is none usable (``build`` makes one). An index of another database, or of this
        one before it was restored from a copy, is removed: its seq is past the database's highest
        (``max_seq``, read after the state), or the database gives that seq to another memory (``memory_at``)."""
        stamps = self._stamps()
        if self._index is None or stamps != self._seen:
            self._close()
            self._open_newest()
            self._seen = self._stamps()
            if self._index is not None and self._foreign(max_seq(), memory_at):
                self.discard()
        return self._index is not None

    def _foreign(self, max_seq: int, memory_at: Callable[[int], str | None]) -> bool:
        if self.seq > max_seq:
            return True
        holder = memory_at(self.seq) if self.memory is not None else None
        return holder is not None and holder != self.memory

    def _open_newest(self) -> None:
        """Open the newest directory; one that cannot be opened twice (not a passing race) is removed."""
        for attempt in range(2):
            newest = self._newest()
            if newest is None:
                return
            try:
                self._open(newest)
                return
            except IndexUnusable:
                if attempt:
                    _remove(newest)

    def _stamps(self) -> tuple[int, int]:
        """When the user's directories and the open one's state last changed (0: gone)."""
        return _mtime(self.directory), _mtime(self.path / STATE) if self.path is not None else -1

    def _open(self, path: Path) -> None:
        state = _state(path)
        if state is None:
            raise IndexUnusable(f"{path} has no state of format {FORMAT}")

        try:
            index = tantivy.Index.open(str(path))
            index.config_reader("Manual")  # reloaded by hand, after a catch-up or when the state changed
            index.register_tokenizer(TOKENIZER, _analyzer())
            index.reload()
            searcher = index.searcher()
        except (ValueError, OSError, RuntimeError) as exc:
            raise IndexUnusable(str(exc)) from exc
        self._index, self._searcher, self.path = index, searcher, path
        self.seq, self.memory = state

    def _close(self) -> None:
        self._index = self._searcher = self.path = None
        self.seq, self.memory = 0, None

    def _newest(self) -> Path | None:
        """The user's newest complete directory (one with a state file); older ones are removed."""
        found = sorted(
            (int(p.name.rpartition("-")[2]), p)
            for p in _listing(self.directory, f"{self.stem}-*")
            if p.name.rpartition("-")[2].isdigit() and (p / STATE).is_file()
        )
        for _, older in found[:-1]:
            _remove(older)
        return found[-1][1] if found else None

    # keeping up with the database

    def catch_up(self, rows: Generator[Sequence[KeywordRow]], gone: set[int], checked: set[int]) -> None:
        """Drop the ``gone`` keys (of the ``checked`` marks, those the database, read just before, says
        are still stale) and apply the rows changed since ``seq`` (read after), in one commit; the writer
        waits for the merges it started. Every checked mark is cleared."""
        if self._index is None or self.path is None:
            raise IndexUnusable("no index is open")
        try:
            writer = self._index.writer(heap_size=CATCH_UP_HEAP, num_threads=1)
        except ValueError as exc:  # another process holds the writer's lock
            rows.close()  # its reading holds the database's lock while suspended
            raise IndexBusy(str(exc)) from exc
        try:
            with contextlib.closing(rows):  # however the reading ends, the database's lock goes with it
                for key in gone:
                    writer.delete_documents_by_term("rid", key)
                seq, memory = _written(writer, rows, (self.seq, self.memory))
            writer.commit()
            writer.wait_merging_threads()  # else the merges a commit starts are dropped with the writer
            _write_state(self.path, seq, memory)
        except (ValueError, OSError, RuntimeError) as exc:
            with contextlib.suppress(ValueError, RuntimeError):
                writer.rollback()
            self._seen = None
            raise IndexUnusable(str(exc)) from exc
        finally:
            del writer  # releases the lock
        self.gone -= gone | checked
        self.seq, self.memory = seq, memory
        self._reload()
        self._seen = self._stamps()

    def build(self, rows: Generator[Sequence[KeywordRow]], threads: int) -> None:
        """A new directory from every row of the database, written aside, then renamed into place and opened."""
        generation = time.time_ns()
        aside = self.directory / f".{self.stem}-{generation}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            clear_abandoned(self.directory, self.stem)
            aside.mkdir()
        except OSError as exc:  # a read-only place
            raise IndexUnusable(f"cannot write {self.directory}: {exc.strerror or exc}") from exc
        try:
            index = tantivy.Index(_schema(), path=str(aside))
            index.register_tokenizer(TOKENIZER, _analyzer())
            writer = index.writer(heap_size=BUILD_HEAP, num_threads=threads)
            with contextlib.closing(rows):
                seq, memory = _written(writer, rows, (0, None), replace=False)
            writer.commit()
            writer.wait_merging_threads()
            _write_state(aside, seq, memory)
            final = self.directory / f"{self.stem}-{generation}"
            os.replace(aside, final)
        except (ValueError, OSError, RuntimeError) as exc:
            _remove(aside)
            raise IndexUnusable(str(exc)) from exc
        except BaseException:
            _remove(aside)
            raise
        self.gone.clear()
        self._open_newest()  # this one, unless another process built a newer one meanwhile
        self._seen = self._stamps()

    def _reload(self) -> None:
        try:
            self._index.reload()
            self._searcher = self._index.searcher()
        except (ValueError, OSError, RuntimeError) as exc:
            raise IndexUnusable(str(exc)) from exc

    def discard(self) -> None:
        """Close and remove the open directory (found damaged): the next search builds it again."""
        if self.path is not None:
            _remove(self.path)
        self._close()
        self._seen = None

    # searching

    def best(self, terms: Sequence[str], limit: int, among: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """Up to ``limit`` keys holding any of ``terms`` (stemmed here), best BM25 first; only keys ``among``
        these when given (the statistics stay the whole index's, so a score is the same either way)."""
        if self._searcher is None:
            raise IndexUnusable("no index is open")
        if self._analyzer is None:
            self._analyzer = _analyzer()

        schema = self._index.schema
        stems = sorted({token for term in terms for token in self._analyzer.analyze(term)})
        if not stems:
            return []
        should = tantivy.Occur.Should
        query = tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(schema, "text", stem, index_option="freq")) for stem in stems]
        )
        if among is not None:
            if not among:
                return []
            keys = tantivy.Query.const_score_query(tantivy.Query.term_set_query(schema, "rid", list(among)), 0.0)
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, keys)])
        try:
            hits = self._searcher.search(query, limit, count=False).hits
            keys = self._searcher.fast_field_values("rid", [address for _, address in hits])
        except (ValueError, OSError, RuntimeError) as exc:
            raise IndexUnusable(str(exc)) from exc
        return [(int(key), float(score)) for (score, _), key in zip(hits, keys, strict=True) if key is not None]


def _written(
    writer: Any, rows: Iterable[Sequence[KeywordRow]], mark: tuple[int, str | None], *, replace: bool = True
) -> tuple[int, str | None]:
    """Add (``replace``: in place of the key's earlier document) every row's document; the highest seq
    seen and its memory (rows come in seq order), else ``mark``."""
    for chunk in rows:
        for key, row_seq, text, memory_id in chunk:
            if row_seq > mark[0]:
                mark = (row_seq, memory_id)
            if replace:
                writer.delete_documents_by_term("rid", key)
            if text is not None:
                document = tantivy.Document()
                document.add_text("text", text)
                document.add_integer("rid", key)
                writer.add_document(document)
    return mark


def document_text(texts: Sequence[str | None]) -> str:
    """The keyword row's content, date and context, one to a line."""
    return "\n".join(text or "" for text in texts)


def _state(path: Path) -> tuple[int, str | None] | None:
    """The seq the index holds and the memory whose change gave it; None for a state of another format."""
    try:
        state = json.loads((path / STATE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or state.get("format") != FORMAT or not isinstance(state.get("seq"), int):
        return None
    memory = state.get("memory")
    return int(state["seq"]), memory if isinstance(memory, str) else None


def _write_state(path: Path, seq: int, memory: str | None) -> None:
    aside = path / f".{STATE}.{os.getpid()}.{threading.get_ident()}.tmp"
    aside.write_text(json.dumps({"format": FORMAT, "seq": seq, "memory": memory}))
    os.replace(aside, path / STATE)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _listing(directory: Path, pattern: str) -> list[Path]:
    try:
        return list(directory.glob(pattern))
    except OSError:
        return []


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)  # another process may have removed it already


def remove_user(directory: Path, stem: str) -> None:
    """Remove every directory of a user's (``stem``: ``user_stem``), those being written included."""
    for path in [*_listing(directory, f"{stem}-*"), *_listing(directory, f".{stem}*.tmp")]:
        _remove(path)


def clear_abandoned(directory: Path, stem: str = "") -> None:
    """Remove directories a process that died while building left behind (of one user's ``stem``, or all)."""
    for aside in _listing(directory, f".{stem}*.tmp"):
        if not writer_alive(aside):
            _remove(aside)
