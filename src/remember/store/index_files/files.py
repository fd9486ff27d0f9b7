"""What the indexes kept on disk beside a database share: a user's file name, half-written files, cores."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path


def user_stem(user_id: str) -> str:
    """A file-name-safe, fixed-length name for the user's index files."""
    return hashlib.sha256(user_id.encode()).hexdigest()[:24]


def writer_alive(aside: Path) -> bool:
    """Whether the process that names itself in a file being written aside still runs."""
    pid = aside.name.split(".")[-3]
    if not pid.isdigit():
        return False
    if os.name != "posix":  # signal 0 asks only on POSIX (elsewhere os.kill ends the process)
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # it runs, as another user; or this system cannot tell: leave it
        return True
    return True


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def ranked(scored: Sequence[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best (memory id, score), best first, ties by id."""
    return sorted(scored, key=lambda p: (-p[1], p[0]))[:limit]
