"""The float16 vectors beside an approximate index's graph (ann.py), by key, read a row at a time.

The graph holds one bit a dimension (its sign), enough to propose neighbours;
the candidates are then scored with these vectors. The file is
``magic | count | dimension | keys (uint64, ascending) | rows (float16)``: the
keys are read into memory (8 bytes a vector). The rows of a small file
(``IN_MEMORY_AT_MOST``) are read into memory too; those of a larger one are read
where they lie as a search asks for them (``os.pread``, in file order), so they
stay in the operating system's page cache, not in the server's memory.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remember.errors import StoreError

MAGIC = b"RMBVEC1\x00"
HEADER = len(MAGIC) + 16
CHUNK = 65_536  # rows copied at a time
# A file's rows up to this size are read into memory when it opens (one copy: a row then costs a
# lookup, not a read; 77 MB at 100,000 vectors of 384 dimensions); larger files are read a row at a time.
IN_MEMORY_AT_MOST = 128 * 2**20


class DamagedVectors(StoreError):
    """A vectors file no longer holds what its header promised (cut short, or unreadable)."""


class VectorFile:
    """Rows by key: read from a file, or from an array in memory (where no file could be written)."""

    def __init__(self, keys: Any, rows: Any = None, source: RowFile | None = None) -> None:
        self.keys = keys  # ascending uint64
        self._rows = rows  # float16, one row a key (in memory), or None: read from ``source``
        self._source = source

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @property
    def width(self) -> int:
        return self._source.width if self._source is not None else int(self._rows.shape[1])

    @classmethod
    def in_memory(cls, keys: Any, rows: Any) -> VectorFile:
        """From keys and their float rows (converted to float16, sorted by key; rows already in key
        order, as a build from the database mostly reads them, are not copied again)."""
        import numpy as np

        keys, rows = np.asarray(keys, dtype=np.uint64), np.asarray(rows, dtype=np.float16)
        if np.all(keys[:-1] < keys[1:]):
            return cls(keys, rows)
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], rows[order])

    def write(self, path: Path) -> None:
        """The rows as a file at ``path`` (the caller writes aside and renames)."""
        import numpy as np

        with path.open("wb") as out:
            out.write(MAGIC)
            out.write(np.asarray([len(self), self.width if len(self) else 0], dtype="<u8").tobytes())
            out.write(np.ascontiguousarray(self.keys, dtype="<u8").tobytes())
            for start in range(0, len(self), CHUNK):  # a chunk at a time: no second copy of every row
                out.write(np.ascontiguousarray(self.between(start, start + CHUNK), dtype="<f2").tobytes())

    @classmethod
    def opened(cls, path: Path, dimension: int) -> VectorFile | None:
        """The file opened (its keys read), or None if it is missing, damaged or of another dimension."""
        import numpy as np

        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return None
        source = RowFile(fd, str(path), 0, dimension)  # closes the descriptor however it is dropped
        try:
            head = source.read(HEADER, 0)
            count, width = (int(x) for x in np.frombuffer(head, dtype="<u8", count=2, offset=len(MAGIC)))
            whole = HEADER + count * 8 + count * width * 2
            valid = head[: len(MAGIC)] == MAGIC and width in (0, dimension) and os.fstat(fd).st_size == whole
            keys = np.frombuffer(source.read(count * 8, HEADER), dtype="<u8").astype(np.uint64) if valid else None
        except (OSError, StoreError):
            keys = None
        if keys is None:
            source.close()
            return None
        source.offset = HEADER + count * 8
        if count * width * 2 > IN_MEMORY_AT_MOST:
            return cls(keys, source=source)
        try:
            rows = source.between(0, count) if count else np.zeros((0, dimension), dtype=np.float16)
        except StoreError:
            return None
        finally:
            source.close()
        return cls(keys, rows)

    def get(self, keys: Sequence[int]) -> dict[int, Any]:
        """The float32 row of each of these keys that the file holds."""
        held, rows = self.rows_of(keys)
        return {int(k): row for k, row in zip(held, rows, strict=True)}

    def rows_of(self, keys: Any) -> tuple[Any, Any]:
        """(the keys the file holds, their float32 rows), in the order asked (``keys``: ints, or an array)."""
        import numpy as np

        if not len(keys) or not len(self):
            return np.zeros(0, dtype=np.uint64), np.zeros((0, self.width), dtype=np.float32)
        wanted = np.asarray(keys, dtype=np.uint64)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self) - 1)
        held = self.keys[at] == wanted
        return wanted[held], self._taken(at[held]).astype(np.float32)

    def between(self, start: int, end: int) -> Any:
        """The float16 rows at positions ``start`` to ``end`` (in key order)."""
        end = min(end, len(self))
        if self._source is not None:
            return self._source.between(start, end)
        return self._rows[start:end]

    def merged(self, dropped: set[int], keys: Any, rows: Any) -> VectorFile:
        """A new file in memory: these rows but ``dropped``, and ``keys`` with their float ``rows``.

        Filled in place a chunk at a time: at a million vectors the result's 768 MB are the only large
        allocation (a merge through intermediate copies held three times that)."""
        import numpy as np

        keep = ~np.isin(self.keys, np.fromiter(dropped, dtype=np.uint64, count=len(dropped)))
        kept = np.flatnonzero(keep)
        added = np.asarray(keys, dtype=np.uint64)
        every = np.concatenate([self.keys[kept], added])
        order = np.argsort(every, kind="stable")
        place = np.empty(len(every), dtype=np.int64)
        place[order] = np.arange(len(every))  # where each row of ``every`` goes
        out = np.empty((len(every), self.width), dtype=np.float16)
        done = 0
        for start in range(0, len(self), CHUNK):
            chosen = keep[start : start + CHUNK]
            taken = int(chosen.sum())
            out[place[done : done + taken]] = self.between(start, start + CHUNK)[chosen]
            done += taken
        if len(added):
            out[place[len(kept) :]] = np.asarray(rows, dtype=np.float16).reshape(len(added), self.width)
        return VectorFile(every[order], out)

    def close(self) -> None:
        if self._source is not None:
            self._source.close()

    def _taken(self, positions: Any) -> Any:
        """The float16 rows at these positions, in the order given."""
        if self._source is not None:
            return self._source.taken(positions)
        return self._rows[positions]


class RowFile:
    """The rows of an open vectors file, read where they lie (nothing mapped, nothing kept)."""

    def __init__(self, fd: int, name: str, offset: int, width: int) -> None:
        self.fd = fd
        self.name = name
        self.offset = offset  # where the first row starts
        self.width = width
        self._lock = threading.Lock()  # for systems without positioned reads
        self._closer = weakref.finalize(self, os.close, fd)

    def taken(self, positions: Any) -> Any:
        """The rows at these positions, in the order given; read in file order."""
        import numpy as np

        size = self.width * 2
        order = np.argsort(positions, kind="stable")
        data = self._gathered((self.offset + positions[order].astype(np.int64) * size).tolist(), size)
        rows = np.empty((len(positions), self.width), dtype=np.float16)
        rows[order] = np.frombuffer(data, dtype="<f2").reshape(len(positions), self.width)
        return rows

    def between(self, start: int, end: int) -> Any:
        import numpy as np

        size = self.width * 2
        data = self.read(max(0, end - start) * size, self.offset + start * size)
        return np.frombuffer(data, dtype="<f2").reshape(-1, self.width)

    def read(self, size: int, at: int) -> bytes:
        """``size`` bytes from ``at``; a StoreError if the file no longer holds them."""
        data = b""
        try:
            while len(data) < size:  # a single read returns at most ~2 GB
                part = self._read_at(size - len(data), at + len(data))
                if not part:
                    break
                data += part
        except OSError as exc:
            raise DamagedVectors(f"The vector index file {self.name} could not be read: {exc}.") from exc
        if len(data) != size:
            raise DamagedVectors(
                f"The vector index file {self.name} was cut short ({size} bytes expected at {at}, {len(data)} read); "
                "the index is rebuilt from the database."
            )
        return data

    def close(self) -> None:
        self._closer()

    def _gathered(self, offsets: list[int], size: int) -> bytes:
        """``size`` bytes at each offset, joined: one positioned read each, nothing else per row (an exact
        search over a selective filter reads thousands); if any comes up short, ``read``'s error."""
        if hasattr(os, "pread"):
            fd, pread = self.fd, os.pread
            try:
                data = b"".join([pread(fd, size, at) for at in offsets])
            except OSError:
                data = b""
            if len(data) == size * len(offsets):
                return data
        return b"".join(self.read(size, at) for at in offsets)  # row by row: says which read failed, and why

    def _read_at(self, size: int, at: int) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self.fd, size, at)
        with self._lock:
            os.lseek(self.fd, at, os.SEEK_SET)
            return os.read(self.fd, size)


def vectors_path(index_path: Path) -> Path:
    """The vectors file of an index file (``<stem>-<seq>.usearch`` -> ``<stem>-<seq>.f16``)."""
    return index_path.with_suffix(".f16")
