"""The float16 vectors beside an approximate index's graph (ann.py), by key, read a page at a time.

The graph holds one bit a dimension (its sign), enough to propose neighbours;
the candidates are then scored with these vectors. The file is
``magic | count | dimension | keys (uint64, ascending) | rows (float16)``: the
keys are read into memory (8 bytes a vector), the rows are memory-mapped and,
after each read, the mapping's pages are released again (``MADV_DONTNEED``:
they stay in the page cache, not in the process), so a server's resident
memory does not grow by the rows its searches have touched.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MAGIC = b"RMBVEC1\x00"
HEADER = len(MAGIC) + 16
CHUNK = 65_536  # rows copied at a time


class VectorFile:
    """Rows by key: from a mapped file, or from arrays in memory (where no file could be written)."""

    def __init__(self, keys: Any, rows: Any, mapping: mmap.mmap | None = None) -> None:
        self.keys = keys  # ascending uint64
        self.rows = rows  # float16, one row a key
        self._mapping = mapping

    def __len__(self) -> int:
        return int(self.keys.shape[0])

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
            out.write(np.asarray([len(self), self.rows.shape[1] if len(self) else 0], dtype="<u8").tobytes())
            out.write(np.ascontiguousarray(self.keys, dtype="<u8").tobytes())
            for start in range(0, len(self), CHUNK):  # a chunk at a time: no second copy of every row
                out.write(np.ascontiguousarray(self.rows[start : start + CHUNK], dtype="<f2").tobytes())

    @classmethod
    def opened(cls, path: Path, dimension: int) -> VectorFile | None:
        """The file mapped, or None if it is missing, damaged or of another dimension."""
        import numpy as np

        try:
            with path.open("rb") as f:
                mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # missing, unreadable or empty
            return None
        if len(mapping) < HEADER or mapping[: len(MAGIC)] != MAGIC:
            mapping.close()
            return None
        count, width = (int(x) for x in np.frombuffer(mapping, dtype="<u8", count=2, offset=len(MAGIC)))
        if width not in (0, dimension) or len(mapping) != HEADER + count * 8 + count * width * 2:
            mapping.close()
            return None
        keys = np.frombuffer(mapping, dtype="<u8", count=count, offset=HEADER).copy()
        rows = np.frombuffer(mapping, dtype="<f2", count=count * width, offset=HEADER + count * 8)
        found = cls(keys, rows.reshape(count, width) if count else rows.reshape(0, dimension), mapping)
        found.release()
        return found

    def get(self, keys: Sequence[int]) -> dict[int, Any]:
        """The float32 row of each of these keys that the file holds."""
        held, rows = self.rows_of(keys)
        return {int(k): row for k, row in zip(held, rows, strict=True)}

    def rows_of(self, keys: Sequence[int]) -> tuple[Any, Any]:
        """(the keys the file holds, their float32 rows), in the order asked."""
        import numpy as np

        if not len(keys) or not len(self):
            return np.zeros(0, dtype=np.uint64), np.zeros((0, self.rows.shape[1]), dtype=np.float32)
        wanted = np.asarray(keys, dtype=np.uint64)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self) - 1)
        held = self.keys[at] == wanted
        rows = self.rows[at[held]].astype(np.float32)
        self.release()
        return wanted[held], rows

    def merged(self, dropped: set[int], keys: Any, rows: Any) -> VectorFile:
        """A new file in memory: these rows but ``dropped``, and ``keys`` with their float ``rows``.

        Filled in place a chunk at a time: at a million vectors the result's 768 MB are the only large
        allocation (a merge through intermediate copies held three times that)."""
        import numpy as np

        kept = np.flatnonzero(~np.isin(self.keys, np.fromiter(dropped, dtype=np.uint64, count=len(dropped))))
        added = np.asarray(keys, dtype=np.uint64)
        every = np.concatenate([self.keys[kept], added])
        order = np.argsort(every, kind="stable")
        place = np.empty(len(every), dtype=np.int64)
        place[order] = np.arange(len(every))  # where each row of ``every`` goes
        width = self.rows.shape[1]
        out = np.empty((len(every), width), dtype=np.float16)
        for start in range(0, len(kept), CHUNK):
            end = min(start + CHUNK, len(kept))
            out[place[start:end]] = self.rows[kept[start:end]]
        if len(added):
            out[place[len(kept) :]] = np.asarray(rows, dtype=np.float16).reshape(len(added), width)
        self.release()
        return VectorFile(every[order], out)

    def release(self) -> None:
        """Give the mapping's pages back (the next read maps them again from the page cache)."""
        if self._mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
            with contextlib.suppress(OSError, ValueError):
                self._mapping.madvise(mmap.MADV_DONTNEED)


def vectors_path(index_path: Path) -> Path:
    """The vectors file of an index file (``<stem>-<seq>.usearch`` -> ``<stem>-<seq>.f16``)."""
    return index_path.with_suffix(".f16")
