"""Vectors a model made, kept outside any database, so that a process does not embed the same text again.

A `VectorFile` is one SQLite file of vectors keyed by the model that made them and
the sha256 of each text. The model is named by its embedder's ``identity``: what the
vectors depend on (``MiniLMEmbedder``: its name, the sha256 of its model file and how
its products run); an embedder without one is never kept. `KeptVectors` reads its
files in order, embeds the texts none of them holds and writes those to its cache
file: the files shipped with the package (read only) come first, then the user's
``$REMEMBER_HOME/cache/vectors.sqlite``.

A cache that cannot be read (damaged, not a database) is deleted and made again,
one that cannot be written only means embedding again: neither is ever an error.
A row's vector must be whole (a length a multiple of 4 bytes, the same as its
neighbours', finite) or it is embedded again. The cache keeps at most ``MAX_KEPT``
vectors, the oldest dropped first. numpy is imported on the first read.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from importlib import resources
from pathlib import Path
from typing import Any

#: Vectors a cache file keeps at most (about 1.5 KB each at 384 dimensions).
MAX_KEPT = 50_000
CACHE_FILE = "vectors.sqlite"
#: The vectors of the built-in templates' texts and the small-talk utterances, made by MiniLM.
SHIPPED = "builtin-vectors.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text_sha256 BLOB NOT NULL, vector BLOB NOT NULL, "
    "kept_at REAL NOT NULL, PRIMARY KEY (model, text_sha256))"
)
_CHUNK = 500  # keys per IN list (SQLite's limit on parameters is far above)
_log = logging.getLogger("remember")


def identity_of(embedder: Any) -> str | None:
    """The embedder's ``identity`` (what its vectors depend on), or None: its vectors are then never kept."""
    identity = getattr(embedder, "identity", None)
    return identity if isinstance(identity, str) and identity else None


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorFile:
    """One SQLite file of vectors by (model identity, sha256 of the text); ``writable`` False: only read."""

    def __init__(self, path: Path, *, writable: bool = True) -> None:
        self.path = path
        self.writable = writable

    def find(self, model: str, texts: Sequence[str]) -> dict[str, bytes]:
        """The kept vectors of those of ``texts`` this file holds, by text."""
        keys = {text_key(text): text for text in texts}
        if not keys or not self.path.exists():
            return {}
        try:
            with closing(self._connect()) as conn:
                return {keys[key]: vector for key, vector in _rows(conn, model, list(keys))}
        except sqlite3.DatabaseError as problem:
            self._unreadable(problem)
            return {}

    def keep(self, model: str, vectors: dict[str, bytes]) -> None:
        """Write these vectors (by text); past ``MAX_KEPT`` the oldest go. Does nothing when it cannot write."""
        if not self.writable or not vectors:
            return
        now = time.time()
        rows = [(model, text_key(text), vector, now) for text, vector in vectors.items()]
        for _ in range(2):  # a damaged file is deleted by the first try and made anew by the second
            try:
                self._write(rows)
                return
            except (sqlite3.Error, OSError) as problem:
                if not self._unreadable(problem):
                    return

    def _write(self, rows: list[tuple[str, bytes, bytes, float]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn, conn:
            conn.execute(_SCHEMA)
            conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
            _trim(conn)

    def _connect(self) -> sqlite3.Connection:
        if self.writable:
            return sqlite3.connect(self.path, timeout=2.0)
        return sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)

    def _unreadable(self, problem: Exception) -> bool:
        """Deal with a file that could not be read or written; True when it was damaged and is now deleted.

        Busy, read-only or full: embedding again is the only cost. Not a database, or
        malformed: a cache is deleted (the next write makes it anew), the shipped file is reported.
        """
        if not _damage(problem):
            _log.debug("The vector file %s cannot be used now: %s", self.path, problem)
            return False
        if not self.writable:
            _log.warning("The shipped vectors %s cannot be read (%s); texts are embedded instead.", self.path, problem)
            return False
        _log.debug("The vector cache %s is damaged (%s); it is made anew.", self.path, problem)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return True


def _damage(problem: Exception) -> bool:
    """Whether SQLite says the file is not a database or is malformed (not merely busy, missing a table,
    or not writable: those are its subclasses, ``OperationalError`` and the others)."""
    return type(problem) is sqlite3.DatabaseError


def _rows(conn: sqlite3.Connection, model: str, keys: list[bytes]) -> list[tuple[bytes, bytes]]:
    found: list[tuple[bytes, bytes]] = []
    for start in range(0, len(keys), _CHUNK):
        part = keys[start : start + _CHUNK]
        marks = ",".join("?" * len(part))
        sql = f"SELECT text_sha256, vector FROM vectors WHERE model = ? AND text_sha256 IN ({marks})"
        found.extend(conn.execute(sql, [model, *part]))
    return found


def _trim(conn: sqlite3.Connection) -> None:
    (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
    if count > MAX_KEPT:
        conn.execute(
            "DELETE FROM vectors WHERE (model, text_sha256) IN "
            "(SELECT model, text_sha256 FROM vectors ORDER BY kept_at LIMIT ?)",
            (count - MAX_KEPT,),
        )


class KeptVectors:
    """Rows of texts from the files that keep them, the rest embedded and written to the last writable file."""

    def __init__(self, files: Sequence[VectorFile]) -> None:
        self.files = tuple(files)
        self.embedded = 0  # texts this process had to embed (the others were found kept)

    def rows(self, embedder: Any, texts: Sequence[str], make: Callable[[Sequence[str]], Any]) -> Any:
        """A float32 matrix of one row per text, in order: the kept rows where found, the others ``make(texts)``
        (the embedder's rows; ``embedder`` names the model by its identity)."""
        import numpy as np

        model = identity_of(embedder)
        if model is None:
            return make(texts)
        found: dict[str, Any] = {}
        for file in self.files:
            wanted = [text for text in dict.fromkeys(texts) if text not in found]
            if not wanted:
                break
            found.update(_whole(file.find(model, wanted)))
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            made = make(missing)
            found.update(zip(missing, made, strict=True))
            self.embedded += len(missing)
            self._keep(
                model, {text: np.asarray(row, dtype="<f4").tobytes() for text, row in zip(missing, made, strict=True)}
            )
        return np.stack([found[text] for text in texts]).astype(np.float32, copy=False)

    def _keep(self, model: str, vectors: dict[str, bytes]) -> None:
        writable = [file for file in self.files if file.writable]
        if writable:
            writable[-1].keep(model, vectors)


def _whole(found: dict[str, bytes]) -> dict[str, Any]:
    """The rows of ``found`` that are whole vectors of one length; the others are left to be embedded again."""
    import numpy as np

    lengths = [len(vector) for vector in found.values()]
    if not lengths:
        return {}
    size = max(set(lengths), key=lengths.count)
    rows = {}
    for text, vector in found.items():
        if len(vector) == size and size % 4 == 0:
            row = np.frombuffer(vector, dtype="<f4")
            if np.isfinite(row).all():
                rows[text] = row
    return rows


def shipped_file() -> VectorFile:
    """The vectors shipped with the package (read only)."""
    return VectorFile(Path(str(resources.files(__package__ or __name__) / "data" / SHIPPED)), writable=False)


def kept_vectors(cache: Path | None) -> KeptVectors:
    """The shipped vectors, then the cache file in the folder ``cache`` (none: only the shipped ones)."""
    files = [shipped_file()]
    if cache is not None:
        files.append(VectorFile(cache / CACHE_FILE))
    return KeptVectors(files)
