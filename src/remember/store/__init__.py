"""Storage: the ``Store`` protocol and ``open_store`` to pick a backend by URL."""

from __future__ import annotations

from pathlib import Path

from remember.errors import ConfigError
from remember.store.base import Store

__all__ = ["Store", "open_store", "sqlite_path"]


def open_store(url: str) -> Store:
    """Open (and migrate) the database at ``url``.

    ``sqlite:///relative.db``, ``sqlite:////absolute/path.db`` or a plain file path
    select the embedded SQLite backend; ``postgresql://...`` selects PostgreSQL.
    """
    if url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            "This version of remember stores its data in SQLite only; "
            "set REMEMBER_DATABASE_URL to sqlite:///path/to/file.db or leave it unset."
        )
    from remember.store.sqlite import SqliteStore

    return SqliteStore(sqlite_path(url), url=url)


def sqlite_path(url: str) -> str:
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :]
    elif "://" in url:
        scheme = url.split("://", 1)[0]
        raise ConfigError(
            f"Unsupported database URL scheme {scheme!r}; use sqlite:///path/to/file.db or postgresql://..."
        )
    else:
        path = url
    if not path:
        raise ConfigError("The database URL names no file; use sqlite:///path/to/file.db.")
    return path if path == ":memory:" else str(Path(path).expanduser())
