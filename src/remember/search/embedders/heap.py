"""Giving memory the process has freed back to the system.

glibc keeps freed blocks in the process's heap for reuse. Two things free a lot
at once: ONNX Runtime opening the model (the graph optimiser folds the int8
weights into float32 ones and drops its working copies: about 60 MB) and
embedding a large batch (the activations of long texts: 100 MB and more).
Without a trim that memory stays resident for the life of the server.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS, Windows)."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:  # Windows: no handle for the process's own symbols
        return None
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_freed_memory() -> bool:
    """Return the heap's free memory to the system; False where the C library cannot (nothing to do)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
