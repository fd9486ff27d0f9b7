"""PostgreSQL specifics: URLs, migrations, the schema, clear errors. All on a real server."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from remember.errors import ConfigError, SchemaTooNew, StoreError, StoreUnavailable
from remember.filters import parse_filter
from remember.models import Memory, MemoryQuery
from remember.store import migrate, open_store
from remember.store.postgres import MIGRATIONS, PostgresBackend
from remember.store.postgres.url import parse_url, redact

pytestmark = pytest.mark.postgres

NAMES = [name for name, _ in MIGRATIONS]


def rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


# migrations


def test_migrations_are_recorded_once(empty_postgres_url: str) -> None:
    first = open_store(empty_postgres_url)
    first.close()
    second = open_store(empty_postgres_url)
    second.close()
    assert isinstance(first.backend, PostgresBackend)
    assert isinstance(second.backend, PostgresBackend)
    assert (first.backend.applied_migrations, second.backend.applied_migrations) == (NAMES, [])
    assert [r[0] for r in rows(empty_postgres_url, "SELECT name FROM schema_migrations ORDER BY name")] == NAMES


def test_migrate_applies_what_is_pending_and_then_nothing(empty_postgres_url: str) -> None:
    assert migrate(empty_postgres_url) == NAMES
    assert migrate(empty_postgres_url) == []


def test_migrate_works_for_sqlite_too(tmp_path: Any) -> None:
    from remember.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

    url = f"sqlite:///{tmp_path / 'r.db'}"
    assert migrate(url) == [name for name, _ in SQLITE_MIGRATIONS]
    assert migrate(url) == []


def test_both_backends_record_the_same_steps() -> None:
    from remember.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

    assert [name for name, _ in SQLITE_MIGRATIONS] == NAMES


def test_processes_starting_at_once_migrate_once(empty_postgres_url: str) -> None:
    start = threading.Barrier(8)
    applied: list[list[str]] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            start.wait()
            store = open_store(empty_postgres_url)
            assert isinstance(store.backend, PostgresBackend)
            applied.append(store.backend.applied_migrations)
            store.close()
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(applied) == [[]] * 7 + [NAMES]
    assert len(rows(empty_postgres_url, "SELECT name FROM schema_migrations")) == len(NAMES)


def test_a_database_from_a_newer_version_is_refused(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', now())")
    try:
        with pytest.raises(SchemaTooNew, match=r"newer version of remember.*9999_from_the_future.*Upgrade"):
            open_store(postgres_url)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("DELETE FROM schema_migrations WHERE name = '9999_from_the_future'")


def test_without_pgvector_the_error_says_how_to_get_it(postgres_server: Any) -> None:
    # The extension is installed on this server, but only a superuser may create it:
    # a plain user meets the same wall as on a server without pgvector.
    database = postgres_server.create_database(template="template0")
    with postgres_server.admin() as admin:
        admin.execute("DROP ROLE IF EXISTS plain")
        admin.execute("CREATE ROLE plain LOGIN")
        admin.execute(f"ALTER DATABASE {database} OWNER TO plain")
    url = postgres_server.url(database).replace("postgres:@", "plain:@", 1)
    with pytest.raises(StoreError, match=r"needs the pgvector extension.*CREATE EXTENSION vector"):
        open_store(url)
    assert rows(url, "SELECT to_regclass('schema_migrations')") == [(None,)]  # nothing half-done


# the schema


def test_every_table_is_keyed_by_user_first(postgres_url: str) -> None:
    keys = rows(
        postgres_url,
        "SELECT c.conrelid::regclass::text, a.attname FROM pg_constraint c "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
        "WHERE c.contype = 'p' AND c.connamespace = 'public'::regnamespace",
    )
    # schema_migrations and index_settings describe the whole database, not one user's rows; api_tokens,
    # dashboard_sessions and the authorization server's tables are looked up by token id or digest before the
    # user is known (reference tables under Citus)
    whole = ("schema_migrations", "index_settings", "api_tokens", "dashboard_sessions")
    tables = {table: first for table, first in keys if table not in whole and not table.startswith("oauth_")}
    assert set(tables) >= {"memories", "memory_tags", "memory_history", "preferences", "templates", "memory_index"}
    assert set(tables.values()) == {"user_id"}


def test_moments_are_timestamptz_and_documents_jsonb(postgres_url: str) -> None:
    types = dict(
        rows(
            postgres_url,
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'memories'",
        )
    )
    for column in ("created_at", "updated_at", "occurred_at", "deleted_at", "last_accessed_at"):
        assert types[column] == "timestamp with time zone"
    assert types["structured_content"] == types["context"] == "jsonb"


def test_indexes_that_matter_exist(postgres_url: str) -> None:
    indexes = dict(rows(postgres_url, "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"))
    for column in ("created_at", "updated_at", "occurred_at", "type", "template_id"):
        assert any(f"(user_id, {column})" in d for d in indexes.values()), column
    assert "gin (structured_content jsonb_path_ops)" in indexes["memories_structured"]
    assert "(user_id, tag)" in indexes["memory_tags_tag"]
    assert "gin (keywords)" in indexes["memory_index_keywords"]
    for columns in ("(user_id, seq)", "(user_id, conversation_id, seq)", "(user_id, context_of)"):
        assert any(f"memory_index USING btree {columns}" in d for d in indexes.values()), columns


def test_a_structured_equality_filter_uses_the_gin_index(postgres_url: str) -> None:
    from remember.store.postgres import filtersql

    params: list[Any] = []
    where = filtersql.render(parse_filter({"structured_content.author.name": "Author 7"}), params)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO memories (user_id, id, content, type, weight, trust, structured_content, "
            "created_at, updated_at, occurred_at) "
            "SELECT 'a', 'm' || i, 'x', 'book', 0.5, 0.5, jsonb_build_object('author', "
            "jsonb_build_object('name', 'Author ' || i)), now(), now(), now() FROM generate_series(1, 5000) i"
        )
        conn.execute("ANALYZE memories")
        sql = f"SELECT id FROM memories m WHERE m.user_id = 'a' AND {where}"
        plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN {sql}", params))
        found = conn.execute(sql, params).fetchall()
    assert "memories_structured" in plan
    assert found == [("m7",)]


# URLs and errors


def test_postgres_and_postgresql_schemes_both_open(postgres_url: str) -> None:
    store = open_store(postgres_url.replace("postgresql://", "postgres://", 1))
    assert isinstance(store.backend, PostgresBackend)
    store.close()


def test_pool_settings_come_from_the_url(postgres_url: str) -> None:
    store = open_store(postgres_url + "&pool_min_size=0&pool_max_size=3&pool_timeout=2.5")
    assert isinstance(store.backend, PostgresBackend)
    pool = store.backend.db.pool
    assert (pool.min_size, pool.max_size, pool.timeout) == (0, 3, 2.5)
    assert store.preferences.get("alice") == {}
    store.close()


def test_defaults_fail_fast_and_size_the_pool() -> None:
    target = parse_url("postgresql://bob:secret@db.example.com:6543/mem?sslmode=require")
    assert (target.pool.min_size, target.pool.max_size, target.pool.timeout) == (1, 10, 10.0)
    assert "connect_timeout=5" in target.conninfo
    assert "sslmode=require" in target.conninfo
    assert target.location == "db.example.com:6543/mem"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://[zz",
        "postgresql://h/db?nonsense=1",
        "postgresql://h/db?pool_max_size=0",
        "postgresql://h/db?pool_min_size=5&pool_max_size=2",
        "postgresql://h/db?pool_timeout=soon",
    ],
)
def test_unusable_urls_say_how_to_write_them(url: str) -> None:
    with pytest.raises(ConfigError, match=r"postgresql://|pool_min_size"):
        open_store(url)


def test_passwords_never_show(postgres_url: str) -> None:
    assert redact("postgresql://bob:s3cret@h:5432/db") == "postgresql://bob:***@h:5432/db"
    with pytest.raises(StoreUnavailable) as caught:
        open_store("postgresql://bob:s3cret@127.0.0.1:1/db")
    assert "s3cret" not in str(caught.value)
    store = open_store(postgres_url.replace("postgres:@", "postgres:hidden@", 1))
    assert "hidden" not in store.url
    store.close()


def test_a_refused_connection_fails_fast_and_names_the_server() -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=r"127\.0\.0\.1:1/mem.*Check that the server is running"):
        open_store("postgresql://remember@127.0.0.1:1/mem")
    assert time.monotonic() - started < 3


def test_an_unreachable_host_fails_within_the_connect_timeout() -> None:
    # 192.0.2.0/24 is reserved for documentation: packets there go nowhere.
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=r"192\.0\.2\.1:5432/mem"):
        open_store("postgresql://remember@192.0.2.1/mem?connect_timeout=1")
    assert time.monotonic() - started < 4


def test_a_missing_database_is_named(postgres_server: Any) -> None:
    with pytest.raises(StoreUnavailable, match=r'"no_such_db" does not exist'):
        open_store(postgres_server.url("no_such_db"))


def test_text_postgresql_cannot_hold_is_a_clear_error(postgres_url: str) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    nul = Memory("m1", "alice", "x", "note", 0.5, 0.5, at, at, at, structured_content={"a": "nul \x00 here"})
    store = open_store(postgres_url)
    with pytest.raises(StoreError, match=r"Remove NUL characters"):
        store.memories.insert(nul)
    assert store.memories.get("alice", "m1") is None
    store.close()


def test_a_filter_on_text_postgresql_cannot_hold_matches_nothing(postgres_url: str) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    store = open_store(postgres_url)
    store.memories.insert(Memory("m1", "alice", "x", "note", 0.5, 0.5, at, at, at, structured_content={"a": "b"}))
    for where, expected in [
        ({"type": "a\x00"}, []),
        ({"type": {"ne": "a\x00"}}, ["m1"]),
        ({"tags": {"none": ["a\x00"]}}, ["m1"]),
        ({"structured_content.a": {"contains": "\x00"}}, []),
        ({"structured_content.a": {"nin": ["\x00"]}}, ["m1"]),
    ]:
        page = store.memories.page("alice", MemoryQuery(filter=parse_filter(where)))
        assert [m.id for m in page.items] == expected, where
    store.close()


def test_sqlite_users_never_import_psycopg(tmp_path: Any) -> None:
    code = (
        "import sys\n"
        "from remember.caller import Caller\n"
        "from remember.service import Services\n"
        "from remember.store import open_store\n"
        f"s = Services.over(open_store({str(tmp_path / 'r.db')!r}))\n"
        "s.memories.create(Caller('alice'), {'content': 'x'})\n"
        "s.close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool', 'pgvector')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# the documentation

OAUTH_TABLES = ["oauth_clients", "oauth_pending", "oauth_grants", "oauth_codes", "oauth_tokens"]


def test_the_citus_statements_distribute_every_table_referenced_first(postgres_url: str) -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "postgres.md").read_text()
    statements = re.findall(r"create_distributed_table\('(\w+)', 'user_id'(?:, colocate_with => '(\w+)')?\)", doc)
    order = [table for table, _ in statements]
    assert {colocated for _, colocated in statements[1:]} == {order[0]}
    shared = re.findall(r"create_reference_table\('(\w+)'\)", doc)  # database-wide: a copy on every worker
    listed = re.search(r"create_reference_table\(t\) FROM unnest\(ARRAY\[([^\]]*)\]\)", doc)  # several at once
    shared += re.findall(r"'(\w+)'", listed.group(1)) if listed else []
    assert shared == ["index_settings", "api_tokens", "dashboard_sessions", *OAUTH_TABLES]
    tables = {r[0] for r in rows(postgres_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert set(order) == tables - {"schema_migrations", *shared}
    references = rows(
        postgres_url,
        "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'",
    )
    for table, referenced in references:  # referenced first, within the distributed or the reference tables
        group = order if table in order else shared
        assert referenced in group and group.index(referenced) < group.index(table), (table, referenced)


def test_the_pool_parameters_are_documented() -> None:
    from pathlib import Path

    from remember.store.postgres.url import PoolSettings

    doc = (Path(__file__).resolve().parents[2] / "docs" / "postgres.md").read_text()
    for name, default in (("min_size", 1), ("max_size", 10), ("timeout", 10)):
        assert f"| `pool_{name}` | {default} |" in doc
        assert getattr(PoolSettings, name) == default


# the drivers are an extra


@pytest.mark.parametrize("missing", ["psycopg", "psycopg_pool"])
def test_without_the_drivers_a_postgres_url_names_the_extra(
    missing: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from support import run

    monkeypatch.setitem(sys.modules, missing, None)  # what an install without the extra looks like to import
    url = "postgresql://nobody@127.0.0.1:1/none"
    for attempt in (lambda: open_store(url), lambda: migrate(url)):
        with pytest.raises(ConfigError, match=r"pip install 'remember\[postgres\]'") as caught:
            attempt()
        assert missing in str(caught.value)
    code, out, err = run(capsys, "--db", url, "list")
    assert code == 1 and out == "" and "remember[postgres]" in err
