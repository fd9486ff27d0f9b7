"""The store: one part per table group and the backend's search engine, over one database.

``Store`` is what ``open_store`` returns and what the services use:
``store.memories``, ``store.templates``, ``store.relationships``, ``store.preferences``,
``store.suggestions``, ``store.tokens``, ``store.dashboard_sessions``, ``store.oauth_clients``,
``store.oauth_grants``, ``store.transfer``, ``store.analytics``, ``store.spaces`` (each
built from the database's sessions and dialect, with the collaborators it needs) and
``store.index`` (the backend's search engine). The backend owns the connections, the
migrations and the closing; what differs between SQLite and PostgreSQL is its
dialect and its search engine.
"""

from __future__ import annotations

from typing import Protocol

from remember.store.protocols import SearchEngine
from remember.store.sql.analytics import AnalyticsTables
from remember.store.sql.base import Database, Sql
from remember.store.sql.dashboard_sessions import DashboardSessionTables
from remember.store.sql.dialect import Dialect
from remember.store.sql.memories import MemoryEngine, MemoryTables
from remember.store.sql.oauth_clients import OAuthClientTables
from remember.store.sql.oauth_grants import OAuthGrantTables
from remember.store.sql.preferences import PreferenceTables
from remember.store.sql.relationship_search import RelationshipVectors
from remember.store.sql.relationships import RelationshipTables
from remember.store.sql.spaces import SpaceTables
from remember.store.sql.suggestions import SuggestionTables
from remember.store.sql.templates import TemplateTables
from remember.store.sql.tokens import TokenTables
from remember.store.sql.transfer import TransferTables


class Engine(SearchEngine, MemoryEngine, Protocol):
    """A backend's search engine as the store's parts use it (search, maintenance, write hooks, listing)."""


class Backend(Protocol):
    """A database: its URL (a password never shown), connections, dialect and search engine."""

    url: str

    @property
    def db(self) -> Database: ...

    @property
    def dialect(self) -> Dialect: ...

    @property
    def search(self) -> Engine: ...

    def close(self) -> None: ...


class Store:
    """One database, as the services see it."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.url = backend.url
        self.index: Engine = backend.search
        self.sql = sql = Sql(backend.db, backend.dialect)  # sessions over the database, for its parts
        self.memories = MemoryTables(sql, self.index)
        self.templates = TemplateTables(sql, self.memories)
        self.relationships = RelationshipTables(sql, RelationshipVectors())
        self.preferences = PreferenceTables(sql)
        self.suggestions = SuggestionTables(sql)
        self.tokens = TokenTables(sql)
        self.dashboard_sessions = DashboardSessionTables(sql)
        self.oauth_clients = OAuthClientTables(sql)
        self.oauth_grants = OAuthGrantTables(sql, self.oauth_clients)
        self.transfer = TransferTables(sql, self.memories)
        self.analytics = AnalyticsTables(sql)
        self.spaces = SpaceTables(sql)

    def close(self) -> None:
        self.backend.close()
