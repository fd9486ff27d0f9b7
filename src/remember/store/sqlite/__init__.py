"""The SQLite backend (the embedded default)."""

from remember.store.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
