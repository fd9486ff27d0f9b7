"""The model with its products in int8 (``int8_graph``), kept on disk so that a new process opens it as it is.

Editing the graph reads and writes the whole 23 MB model through protobuf; a process
that finds the edit kept reads one file instead. The edit is kept in
``$REMEMBER_HOME/cache`` under a key of everything it depends on: the model file's
path, size and modification time (a reinstalled file is checked against the pinned
sha256 again before it is edited), the pinned sha256, how the weights enter the
products, and the code that edits (the sources of ``int8_graph`` and ``onnx_subset``
and remember's version). The kept file's own sha256 is part of its name and is checked
when it is read, so that what is loaded is what was made.

A kept file that is missing, stale or damaged is made again, and one that cannot be
written only means editing in each process: neither is ever an error. Only the newest
edit is kept: making one deletes the others.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from pathlib import Path

import remember
from remember.search.embedders import int8_graph, onnx_subset
from remember.search.embedders.int8_graph import COMPUTATION, Weights

PREFIX = "minilm-int8-"
SUFFIX = ".onnx"
_log = logging.getLogger("remember")


def graph_key(model_path: Path, expected_sha256: str, weights: Weights) -> str | None:
    """The key of the edit of ``model_path`` with ``weights``; None when the file or the editing code cannot be
    read (the edit is then made and not kept)."""
    try:
        stat = model_path.stat()
        code = [Path(module.__file__ or "").read_bytes() for module in (int8_graph, onnx_subset)]
    except OSError:
        return None
    digest = hashlib.sha256()
    for part in (str(model_path.resolve()), str(stat.st_size), str(stat.st_mtime_ns), expected_sha256, weights,
                 COMPUTATION, remember.__version__):  # fmt: skip
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for source in code:
        digest.update(hashlib.sha256(source).digest())
    return digest.hexdigest()[:32]


class KeptGraph:
    """Edited models kept in ``folder``, one file each, named ``minilm-int8-<key>-<its sha256>.onnx``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load(self, key: str) -> bytes | None:
        """The edit kept under ``key``, or None when there is none or it is not whole (it is then deleted)."""
        for path in self._files(f"{PREFIX}{key}-"):
            try:
                model = path.read_bytes()
            except OSError:
                continue
            if path.name == _name(key, model):
                return model
            _log.debug("The kept model %s is damaged; it is made again", path)
            path.unlink(missing_ok=True)
        return None

    def save(self, key: str, model: bytes) -> None:
        """Keep ``model`` under ``key`` and delete the other edits; does nothing when the folder cannot be written."""
        name = _name(key, model)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{PREFIX}", suffix=SUFFIX)
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(model)
            os.replace(temporary, self.folder / name)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            return
        for other in self._files(PREFIX):
            if other.name != name:
                with contextlib.suppress(OSError):
                    other.unlink()

    def _files(self, prefix: str) -> list[Path]:
        try:
            return [path for path in self.folder.iterdir() if path.name.startswith(prefix) and path.suffix == SUFFIX]
        except OSError:
            return []


def _name(key: str, model: bytes) -> str:
    return f"{PREFIX}{key}-{hashlib.sha256(model).hexdigest()[:32]}{SUFFIX}"
