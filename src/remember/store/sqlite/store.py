"""The embedded default backend: one SQLite file."""

from __future__ import annotations

from remember.store.sqlite.connection import Database
from remember.store.sqlite.memories import MemoryTables
from remember.store.sqlite.migrations import migrate
from remember.store.sqlite.preferences import PreferenceTables
from remember.store.sqlite.search import SearchTables, create_scratch
from remember.store.sqlite.suggestions import SuggestionTables
from remember.store.sqlite.templates import TemplateTables
from remember.store.sqlite.transfer import TransferTables


class SqliteStore(MemoryTables, PreferenceTables, TemplateTables, SearchTables, SuggestionTables, TransferTables):
    def __init__(self, path: str, *, url: str | None = None) -> None:
        self.url = url or f"sqlite:///{path}"
        self.db = Database(path)
        self._stem_cache = {}
        self._count_cache = {}
        self._total_cache = {}
        try:
            migrate(self.db.connection, path)
            create_scratch(self.db.connection)
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        self.db.close()
