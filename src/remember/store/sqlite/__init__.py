"""The SQLite backend (the embedded default)."""

from remember.store.sqlite.store import SqliteBackend

__all__ = ["SqliteBackend"]
