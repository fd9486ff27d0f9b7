"""Storage: ``Store`` (one part per table group and a search engine) and ``open_store`` to pick a backend by URL."""

from __future__ import annotations

from pathlib import Path

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN
from remember.errors import ConfigError, excerpt
from remember.store.front import Store
from remember.store.protocols import (
    AnalyticsStore,
    DashboardSessionStore,
    IndexMaintenance,
    MemoryStore,
    OAuthClientStore,
    OAuthGrantStore,
    PreferenceStore,
    RelationshipStore,
    SearchEngine,
    SearchIndex,
    SuggestionLog,
    TemplateStore,
    TokenStore,
    TransferStore,
)

__all__ = [
    "AnalyticsStore",
    "DashboardSessionStore",
    "IndexMaintenance",
    "MemoryStore",
    "OAuthClientStore",
    "OAuthGrantStore",
    "PreferenceStore",
    "RelationshipStore",
    "SearchEngine",
    "SearchIndex",
    "Store",
    "SuggestionLog",
    "TemplateStore",
    "TokenStore",
    "TransferStore",
    "check",
    "is_postgres_url",
    "migrate",
    "open_store",
    "sqlite_path",
]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(
    url: str,
    *,
    vector_index_min: int | None = VECTOR_INDEX_MIN,
    keyword_index_min: int | None = KEYWORD_INDEX_MIN,
    keywords_home: Path | None = None,
) -> Store:
    """Open (and migrate) the database at ``url``.

    ``sqlite:///relative.db``, ``sqlite:////absolute/path.db`` or a plain file path
    select the embedded SQLite backend; ``postgresql://...`` (or ``postgres://...``)
    selects PostgreSQL. ``vector_index_min``: on SQLite, users with at least that many
    memories are searched through the approximate vector index (default ``VECTOR_INDEX_MIN``;
    None: exact for everyone); ``keyword_index_min``, on either backend, through the ranked keyword
    index (None: the database's own keyword search). SQLite keeps that index beside its file;
    PostgreSQL under ``keywords_home`` (a folder per database), and keeps none without it.
    """
    if is_postgres_url(url):
        _require_postgres_drivers()
        from remember.store.postgres import PostgresBackend

        return Store(PostgresBackend(url, keyword_index_min=keyword_index_min, keywords_home=keywords_home))
    from remember.store.sqlite import SqliteBackend

    return Store(
        SqliteBackend(sqlite_path(url), url=url, vector_index_min=vector_index_min, keyword_index_min=keyword_index_min)
    )


def migrate(url: str) -> list[str]:
    """Bring the database at ``url`` up to this version's schema; the names of the steps applied.

    ``open_store`` does this too; this is for an explicit upgrade (an empty list: nothing to do).
    Raises SchemaTooNew when the database was written by a newer `remember`.
    """
    if is_postgres_url(url):
        _require_postgres_drivers()
        from remember.store.postgres import upgrade

        return upgrade(url)
    from remember.store.sqlite.connection import Database
    from remember.store.sqlite.migrations import migrate as migrate_sqlite

    path = sqlite_path(url)
    db = Database(path)
    try:
        return migrate_sqlite(db.connection, path)
    finally:
        db.close()


def check(url: str) -> list[str]:
    """Every problem a full integrity check finds in the SQLite database at ``url`` (none: it is sound)."""
    if is_postgres_url(url):
        raise ConfigError(
            "`remember db check` checks SQLite files; PostgreSQL checks its own pages "
            "(enable data checksums, and use its amcheck extension)."
        )
    from remember.errors import StoreDamaged
    from remember.store.sqlite import health
    from remember.store.sqlite.connection import Database

    try:
        db = Database(sqlite_path(url))
    except StoreDamaged as exc:
        return [exc.message]
    try:
        return health.integrity_check(db.connection)
    finally:
        db.close()


def _require_postgres_drivers() -> None:
    """The PostgreSQL backend is loaded only for PostgreSQL users, and its drivers are an extra."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"A postgresql:// database needs the PostgreSQL drivers, which are not installed ({exc.name} is "
            "missing). Install them with: pip install 'remember[postgres]' (in a checkout: pip install -e "
            "'.[postgres]'), or use a sqlite:/// database."
        ) from exc


def is_postgres_url(url: str) -> bool:
    return url.startswith(_POSTGRES_SCHEMES)


def sqlite_path(url: str) -> str:
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :]
    elif "://" in url:
        scheme = url.split("://", 1)[0]
        raise ConfigError(
            f"Unsupported database URL scheme {excerpt(scheme)}; use sqlite:///path/to/file.db "
            "or postgresql://user:password@host:5432/database."
        )
    else:
        path = url
    if not path:
        raise ConfigError("The database URL names no file; use sqlite:///path/to/file.db.")
    return path if path == ":memory:" else str(Path(path).expanduser())
