"""SQLite specifics: the file, its pragmas, migrations, URLs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from remember.errors import ConfigError, SchemaTooNew, StoreError
from remember.store import open_store, sqlite_path
from remember.store.sqlite.migrations import MIGRATIONS


def test_open_creates_the_file_and_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "r.db"
    open_store(f"sqlite:///{path}").close()
    assert path.exists()


def test_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "r.db"))
    conn = store.backend.db.connection  # type: ignore[attr-defined]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    store.close()


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    open_store(str(path)).close()
    open_store(str(path)).close()
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for name, _ in MIGRATIONS]


def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    open_store(str(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'x')")
    with pytest.raises(SchemaTooNew, match=r"newer version of remember.*9999_from_the_future.*Upgrade"):
        open_store(str(path))


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=r"Cannot open the SQLite database|failed"):
        open_store(str(path))


def test_an_unwritable_folder_is_refused_clearly(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="REMEMBER_HOME or REMEMBER_DATABASE_URL"):
        open_store(str(blocker / "sub" / "r.db"))


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///rel/r.db", "rel/r.db"),
        ("sqlite:////abs/r.db", "/abs/r.db"),
        ("/plain/r.db", "/plain/r.db"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_sqlite_urls(url: str, path: str) -> None:
    assert sqlite_path(url) == path


@pytest.mark.parametrize("url", ["mysql://x/y", "sqlite:///"])
def test_unusable_urls_say_what_to_use(url: str) -> None:
    with pytest.raises(ConfigError, match="sqlite:///"):
        open_store(url)


def test_a_failed_commit_leaves_the_connection_usable(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "r.db"))
    db = store.backend.db  # type: ignore[attr-defined]

    def violate() -> None:
        with db.write() as conn:
            conn.execute("PRAGMA defer_foreign_keys = ON")  # the violation surfaces at COMMIT
            conn.execute("INSERT INTO memory_tags VALUES ('u', 'no-such-memory', 't')")

    with pytest.raises(StoreError, match="FOREIGN KEY"):
        violate()
    assert not db.connection.in_transaction
    with db.write() as conn:
        conn.execute("INSERT INTO preferences VALUES ('u', 'search.default_limit', '5', 'now')")
    assert store.preferences.get("u") == {"search.default_limit": 5}
    store.close()


def test_a_backend_must_bring_exactly_the_steps_the_schema_does_not_share() -> None:
    from remember.store.sql import schema
    from remember.store.sql.migrations import backend_steps
    from remember.store.sqlite.dialect import DIALECT
    from remember.store.sqlite.migrations import TYPES, run_script

    unshared = {name: (lambda conn: None) for name, script in schema.STEPS if script is None}
    assert [name for name, _ in backend_steps(TYPES, run_script, DIALECT, unshared)] == [n for n, _ in schema.STEPS]
    missing = dict(list(unshared.items())[1:])
    with pytest.raises(ValueError, match="its own steps"):
        backend_steps(TYPES, run_script, DIALECT, missing)
    with pytest.raises(ValueError, match="its own steps"):
        backend_steps(TYPES, run_script, DIALECT, {**unshared, "0099_unknown": lambda conn: None})


def test_each_shared_step_runs_in_the_backends_column_types(tmp_path: Path) -> None:
    """Both backends render the same shared scripts; SQLite's rendering keeps its own types."""
    path = tmp_path / "r.db"
    open_store(str(path)).close()
    with sqlite3.connect(path) as conn:
        (tags,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'relationship_tags'").fetchone()
        (versions,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'template_versions'").fetchone()
    assert "tag TEXT NOT NULL" in tags and tags.rstrip().endswith("WITHOUT ROWID")
    assert "REFERENCES relationships (user_id, id) ON DELETE CASCADE" in tags
    assert "REFERENCES templates (user_id, id) ON DELETE CASCADE" in versions and "$" not in versions
