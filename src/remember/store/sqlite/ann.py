"""Approximate nearest neighbours of one user's vectors (usearch HNSW over sign bits), on disk beside the database.

Used only for users with many memories (``SearchTables.vector_index_min``); below
that, exact search over an in-memory matrix is cheap and stays in use. The
database is the source of truth, and the index never decides what a search may
return:

- A user's index is two files ``<db>.vectors/<user hash>-<seq>.usearch`` and
  ``.f16``: the graph of every vector whose ``memory_index.seq`` is at most
  ``seq``, keyed by the ``memories`` rowid, over one bit a dimension (the sign:
  48 bytes a 384-dimension vector, Hamming distance), and the float16 vectors by
  key (vector_file.py). The graph proposes ``GRAPH_REACH`` times the candidates
  asked for and their float16 vectors choose among them. A process
  memory-maps the graph (``Index.view``) and reads the vectors a page at a time,
  so a fresh server holds only the graph's pages its searches touch.
- Rows whose seq moved past the file's (written since, by any process) are read
  from the database into a small in-memory delta, searched exactly; their keys
  are ignored in the file's answers. When the delta grows past ``FOLD_AT``, it
  is folded into a new file (written aside, then renamed into place).
- A missing, unreadable or impossible file (of another dimension or element
  type, such as the int8 and float16 graphs of earlier versions, without its
  vectors file, or of a seq the database never reached) is rebuilt from the database.
- The caller re-reads every candidate's owner and deletion state from the
  database, so a memory purged, deleted or moved since the file was written is
  never returned, and scores it with the vector kept here (``vectors``): the
  delta's float32 one, or the file's float16 copy, whose cosine is within
  2**-11 of the float32 one (cheaper than reading the float32 vectors back from
  the database).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remember.store.index_files.files import user_stem, writer_alive
from remember.store.sqlite.vector_file import VectorFile, vectors_path

if TYPE_CHECKING:
    from usearch.index import Index

FOLD_AT = 20_000  # rows changed since the file was written before a new file is written
BUILD_BATCH = 8_192
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 320
# The graph over sign bits (docs/search.md#vectors-at-scale): at a million vectors, 1,000 proposed and
# chosen by their float16 vectors find 0.98 of the exact top 10 (500: 0.95) in ~3 ms; the graph's file
# is 197 MB (with float16 vectors in it: 917 MB) and builds in 216 s (float16: 345-700 s).
ELEMENT = "b1"
METRIC = "hamming"
GRAPH_REACH = 5  # the graph proposes this many times the candidates asked for

# (memories rowid, seq, float32 vector bytes or None), in seq order
KeyedRows = Callable[[int], Iterable[Sequence[tuple[int, int, bytes | None]]]]


class UserIndex:
    """One user's approximate index: a memory-mapped file plus the rows changed since it was written."""

    def __init__(self, directory: Path, user_id: str, dimension: int) -> None:
        self.directory = directory
        self.stem = user_stem(user_id)
        self.dimension = dimension
        self.base: Index | None = None
        self.file: VectorFile | None = None  # the float16 vectors of the base's keys
        self.base_seq = 0
        self.seq = 0
        self.delta: dict[int, Any] = {}  # key -> float32 vector (or None: no vector)
        self._stacked: tuple[Any, Any] | None = None
        self._mapped = False  # the base is a memory-mapped file (else it lives in this process only)

    # keeping up with the database

    def refresh(self, read_rows: KeyedRows, max_seq: int) -> bool:
        """Open the newest usable file if none is open, then read the rows changed since; False when
        there is no usable file (``build`` makes one)."""
        if self.base is None or self.base_seq > max_seq:
            self._open(max_seq)
        if self.base is None:
            return False
        for chunk in read_rows(self.seq):
            self._apply(chunk)
        if len(self.delta) > FOLD_AT:
            self._fold()
        return True

    def discard(self) -> None:
        """Close and remove the user's files (a damaged vectors file): the next ``refresh`` finds none,
        so the index is built again from the database."""
        if self.file is not None:
            self.file.close()
        for path in self._files():
            with contextlib.suppress(OSError):  # another process may have removed it already
                path.unlink()
        self.base, self.file, self.base_seq, self.seq, self.delta, self._stacked = None, None, 0, 0, {}, None

    def _open(self, max_seq: int) -> None:
        self.base, self.file, self.base_seq, self.delta, self._stacked = None, None, 0, {}, None
        found = self._newest_file()
        if found is not None:
            path, seq = found
            index = _view(path, self.dimension) if seq <= max_seq else None
            rows = VectorFile.opened(vectors_path(path), self.dimension) if index is not None else None
            if index is not None and rows is not None and len(rows) == len(index):
                self.base, self.file, self.base_seq, self._mapped = index, rows, seq, True
        self.seq = self.base_seq

    def build(self, read_rows: KeyedRows, progress: Callable[[int], None] | None = None, *, threads: int = 1) -> None:
        """A new file from every row of the database, built in bulk and opened (``progress``: rows
        read so far; ``threads``: the cores full batches are added with). Where no file can be
        written (a read-only place) the index stays in memory."""
        import numpy as np

        index = _new_index(self.dimension)
        seq = done = 0
        all_keys: list[int] = []
        all_rows: list[Any] = []
        for chunk in read_rows(0):
            keys, vectors = [], []
            for key, row_seq, data in chunk:
                seq = max(seq, row_seq)
                if data is not None and len(data) == 4 * self.dimension:
                    keys.append(key)
                    vectors.append(np.frombuffer(data, dtype=np.float32))
            if keys:
                matrix = np.vstack(vectors)
                _add(index, keys, matrix, threads)
                all_keys += keys
                all_rows.append(matrix.astype(np.float16))
            done += len(chunk)
            if progress is not None:
                progress(done)
        stacked = _stacked_rows(all_rows, self.dimension)
        all_rows.clear()  # the chunks, now copied into ``stacked``
        rows = VectorFile.in_memory(np.asarray(all_keys, dtype=np.uint64), stacked)
        self.base, self.file = self._save(index, rows, seq)
        self.base_seq, self.seq, self.delta, self._stacked = seq, seq, {}, None

    def _fold(self) -> None:
        """Write the delta into a new file, so that the next process starts with it."""
        import numpy as np

        assert self.base is not None
        index = self.base if not self._mapped else _restore(self._path(self.base_seq))
        if index is None:  # another process replaced the file: open its newer one next time
            self.base = None
            return
        stale = [key for key in self.delta if index.contains(key)]
        if stale:
            index.remove(stale)
        fresh = [(key, v) for key, v in self.delta.items() if v is not None]
        if fresh:
            _add(index, [k for k, _ in fresh], np.vstack([v for _, v in fresh]))
        added = np.asarray([k for k, _ in fresh], dtype=np.uint64)
        vectors = _stacked_rows([v for _, v in fresh], self.dimension)
        if self.file is not None:
            rows = self.file.merged(set(self.delta), added, vectors)
        else:
            rows = VectorFile.in_memory(added, vectors)
        self.base, self.file = self._save(index, rows, self.seq)
        self.base_seq, self.delta, self._stacked = self.seq, {}, None

    def _apply(self, chunk: Sequence[tuple[int, int, bytes | None]]) -> None:
        import numpy as np

        for key, seq, data in chunk:
            ok = data is not None and len(data) == 4 * self.dimension
            self.delta[key] = np.frombuffer(data, dtype=np.float32) if ok and data is not None else None
            self.seq = max(self.seq, seq)
        if chunk:
            self._stacked = None

    # files

    def _files(self) -> list[Path]:
        """The user's graph and vectors files, of every seq."""
        return user_files(self.directory, self.stem)

    def _path(self, seq: int) -> Path:
        return self.directory / f"{self.stem}-{seq}.usearch"

    def _newest_file(self) -> tuple[Path, int] | None:
        best: tuple[Path, int] | None = None
        for path in self.directory.glob(f"{self.stem}-*.usearch"):
            seq = path.stem.rpartition("-")[2]
            if seq.isdigit() and (best is None or int(seq) > best[1]):
                best = (path, int(seq))
        return best

    def _save(self, index: Index, rows: VectorFile, seq: int) -> tuple[Index, VectorFile]:
        """Write ``rows`` and ``index`` as the files for ``seq`` (each aside first, then renamed; the vectors
        before the graph, so a graph found has its vectors), drop older files, map them."""
        final = self._path(seq)
        asides = [
            self.directory / f".{self.stem}-{seq}.{kind}.{os.getpid()}.{threading.get_ident()}.tmp"
            for kind in ("f16", "usearch")
        ]
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            rows.write(asides[0])
            os.replace(asides[0], vectors_path(final))
            index.save(str(asides[1]))
            os.replace(asides[1], final)
        except (OSError, RuntimeError):  # a read-only place: this process keeps the index in memory
            for aside in asides:
                with contextlib.suppress(OSError):
                    aside.unlink()
            self._mapped = False
            return index, rows
        for path in self._files():
            if path not in (final, vectors_path(final)):
                with contextlib.suppress(OSError):  # another process may have removed it already
                    path.unlink()
        for path in self.directory.glob(f".{self.stem}-*.tmp"):
            if not writer_alive(path):  # left by a process that died writing it (half a GB at 1M)
                with contextlib.suppress(OSError):
                    path.unlink()
        viewed = _view(final, self.dimension)
        opened = VectorFile.opened(vectors_path(final), self.dimension)
        self._mapped = viewed is not None and opened is not None
        return (viewed, opened) if viewed is not None and opened is not None else (index, rows)

    # searching

    def vectors(self, keys: Sequence[int]) -> dict[int, Any]:
        """The float32 vector of each of these keys that has one: the delta's, else the file's."""
        found: dict[int, Any] = {}
        in_file: list[int] = []
        for key in keys:
            if key in self.delta:
                row = self.delta[key]
                if row is not None:
                    found[key] = row
            else:
                in_file.append(key)
        if in_file and self.file is not None:
            found.update(self.file.get(in_file))
        return found

    def nearest(self, vector: bytes, count: int) -> dict[int, float]:
        """Up to ``count`` rows near ``vector``, key to cosine: the file's nearest by their float16
        vectors among those its graph proposes, and the delta's nearest (approximate order: the caller
        ranks the two together)."""
        import numpy as np

        query = np.frombuffer(vector, dtype=np.float32)
        found: dict[int, float] = {}
        if self.base is not None and len(self.base) > 0 and self.file is not None:
            wanted = count * GRAPH_REACH
            self.base.expansion_search = max(EXPANSION_SEARCH, wanted)  # type: ignore[misc]  # the stubs miss it
            proposed = np.asarray(self.base.search(_bits(query), wanted).keys, dtype=np.uint64)
            if self.delta:  # the file's answer for a changed row is stale
                proposed = proposed[~np.isin(proposed, np.fromiter(self.delta, dtype=np.uint64, count=len(self.delta)))]
            keys, rows = self.file.rows_of(proposed)
            found = _best(keys, rows @ query, count)
        stacked = self._delta_matrix()
        if stacked is not None:
            delta_keys, matrix = stacked
            found.update(_best(delta_keys, matrix @ query, count))
        return found

    def _delta_matrix(self) -> tuple[Any, Any] | None:
        import numpy as np

        if self._stacked is None:
            live = [(k, v) for k, v in self.delta.items() if v is not None]
            if not live:
                return None
            self._stacked = (np.array([k for k, _ in live]), np.vstack([v for _, v in live]))
        return self._stacked


def _best(keys: Any, scores: Any, count: int) -> dict[int, float]:
    """The ``count`` best-scored keys (in no particular order), key to score."""
    import numpy as np

    take = min(count, len(keys))
    if take == 0:
        return {}
    best = np.argpartition(-scores, take - 1)[:take]
    return dict(zip(keys[best].tolist(), scores[best].tolist(), strict=True))


def _index_class() -> type[Index]:
    """usearch's ``Index``, imported after ONNX Runtime: importing ONNX Runtime after usearch
    crashes the process (a segmentation fault, seen with usearch 2.26 and onnxruntime 1.32),
    and a server may search by a stored vector (find similar) before it first embeds a text."""
    with contextlib.suppress(ImportError):
        import onnxruntime  # type: ignore[import-untyped]  # noqa: F401
    from usearch.index import Index

    return Index


def _new_index(dimension: int) -> Index:
    Index = _index_class()

    return Index(
        ndim=dimension,
        metric=METRIC,
        dtype=ELEMENT,
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


def _add(index: Index, keys: list[int], vectors: Any, threads: int = 1) -> None:
    """Add full batches with ``threads``, smaller ones in one thread: usearch's threaded insertion
    built small graphs that lost true neighbours run to run (seen with 300 vectors, a shortlist of
    100 missing one of the best 10); batches of 8,192 onto 200,000 lost none (recall@10 0.99 with
    one thread or two) in 55 s instead of 130."""
    import numpy as np

    for start in range(0, len(keys), BUILD_BATCH):
        part = np.asarray(keys[start : start + BUILD_BATCH], dtype=np.uint64)
        bits = _bits(vectors[start : start + BUILD_BATCH])
        index.add(part, bits, threads=threads if len(part) == BUILD_BATCH else 1)


def _bits(vectors: Any) -> Any:
    """The sign of each dimension, packed eight to a byte (what the graph holds and compares)."""
    import numpy as np

    return np.packbits(np.asarray(vectors) > 0, axis=-1)


def _stacked_rows(parts: Sequence[Any], dimension: int) -> Any:
    """float16 rows from matrices and single rows, in order (none: an empty matrix)."""
    import numpy as np

    found = [np.asarray(p, dtype=np.float16).reshape(-1, dimension) for p in parts if len(p)]
    return np.vstack(found) if found else np.zeros((0, dimension), dtype=np.float16)


def _restore(path: Path) -> Index | None:
    """The file read into memory (to be changed), or None if it is gone or unreadable."""
    Index = _index_class()
    try:
        return Index.restore(str(path), view=False)
    except (RuntimeError, ValueError, OSError):
        return None


def _view(path: Path, dimension: int) -> Index | None:
    """The file memory-mapped, or None if it is unreadable, of another dimension or of another element type."""
    Index = _index_class()
    try:
        index = Index.restore(str(path), view=True)
    except (RuntimeError, ValueError, OSError):
        return None
    if index is None or index.ndim != dimension or str(index.dtype).rpartition(".")[2].lower() != ELEMENT:
        return None
    index.expansion_search = EXPANSION_SEARCH  # type: ignore[misc]  # a setter the stubs miss
    return index


def user_files(directory: Path, stem: str) -> list[Path]:
    """A user's graph and vectors files (``stem``: ``user_stem``), of every seq."""
    return [*directory.glob(f"{stem}-*.usearch"), *directory.glob(f"{stem}-*.f16")]


def remove_user_files(directory: Path, stem: str) -> None:
    """Remove a user's files, and any a build of theirs left half-written."""
    for path in [*user_files(directory, stem), *directory.glob(f".{stem}-*.tmp")]:
        with contextlib.suppress(OSError):  # another process may have removed it already
            path.unlink()
