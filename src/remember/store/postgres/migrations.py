"""PostgreSQL schema migrations: named, append-only steps recorded in a table.

The same scheme as the SQLite backend: never edit or reorder a step that has
shipped; add a new one at the end. Pending steps are applied in order inside one
transaction, under a transaction-scoped advisory lock, so that several
processes starting at once apply each step exactly once (the others wait, then
find nothing to do). A database that records a step this code does not know
was written by a newer `remember` and is refused.

Every table's primary key starts with ``user_id`` and every foreign key
includes it, so the schema can be distributed by ``user_id`` (Citus; see
docs/postgres.md). Keys and names compare byte by byte (``COLLATE "C"``): the
same order as SQLite, and indexes that no operating-system locale update can
invalidate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import errors as pgerrors

from remember.errors import SchemaTooNew, StoreError

Connection = psycopg.Connection[Any]
Step = Callable[[Connection], None]

# pg_advisory_xact_lock key: "remember" in ASCII, read as a number.
LOCK_KEY = 0x72656D656D626572


def _pgvector(conn: Connection) -> None:
    try:
        with conn.transaction():  # a savepoint: the failure is reported, not left to abort the migration
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except (pgerrors.UndefinedFile, pgerrors.FeatureNotSupported, pgerrors.InsufficientPrivilege) as exc:
        raise StoreError(
            "remember needs the pgvector extension in this PostgreSQL database, and it could not be enabled "
            f"({' '.join(str(exc).split())}). Install pgvector on the server (packages are named like "
            "postgresql-17-pgvector; see https://github.com/pgvector/pgvector#installation), then run "
            "CREATE EXTENSION vector; in the database as a superuser, or use an image that has it "
            "(e.g. pgvector/pgvector:pg17)."
        ) from exc


def _initial(conn: Connection) -> None:
    _pgvector(conn)
    conn.execute(
        """
        CREATE TABLE memories (
            user_id text COLLATE "C" NOT NULL,
            id text COLLATE "C" NOT NULL,
            content text NOT NULL,
            title text,
            type text COLLATE "C" NOT NULL,
            weight double precision NOT NULL,
            trust double precision NOT NULL,
            tags text[] NOT NULL DEFAULT '{}',
            refs text[] NOT NULL DEFAULT '{}',
            context jsonb NOT NULL DEFAULT '{}',
            location jsonb,
            template_id text COLLATE "C",
            template_version text,
            structured_content jsonb,
            template_compliance boolean,
            template_validation_errors jsonb NOT NULL DEFAULT '[]',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            occurred_at timestamptz NOT NULL,
            version integer NOT NULL DEFAULT 1,
            deleted_at timestamptz,
            access_count bigint NOT NULL DEFAULT 0,
            last_accessed_at timestamptz,
            PRIMARY KEY (user_id, id)
        );
        CREATE INDEX memories_created ON memories (user_id, created_at);
        CREATE INDEX memories_updated ON memories (user_id, updated_at);
        CREATE INDEX memories_occurred ON memories (user_id, occurred_at);
        CREATE INDEX memories_type ON memories (user_id, type);
        CREATE INDEX memories_template ON memories (user_id, template_id);
        CREATE INDEX memories_structured ON memories USING gin (structured_content jsonb_path_ops);

        CREATE TABLE memory_tags (
            user_id text COLLATE "C" NOT NULL,
            memory_id text COLLATE "C" NOT NULL,
            tag text COLLATE "C" NOT NULL,
            PRIMARY KEY (user_id, memory_id, tag),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX memory_tags_tag ON memory_tags (user_id, tag);

        CREATE TABLE memory_history (
            user_id text COLLATE "C" NOT NULL,
            memory_id text COLLATE "C" NOT NULL,
            version integer NOT NULL,
            action text NOT NULL,
            previous jsonb NOT NULL,
            reason text,
            at timestamptz NOT NULL,
            PRIMARY KEY (user_id, memory_id, version),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );

        CREATE TABLE preferences (
            user_id text COLLATE "C" NOT NULL,
            path text COLLATE "C" NOT NULL,
            value jsonb NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (user_id, path)
        );

        CREATE TABLE preference_history (
            user_id text COLLATE "C" NOT NULL,
            seq bigint NOT NULL,
            path text COLLATE "C" NOT NULL,
            old_value jsonb,
            new_value jsonb NOT NULL,
            reason text,
            at timestamptz NOT NULL,
            PRIMARY KEY (user_id, seq)
        );
        """
    )


def _templates(conn: Connection) -> None:
    conn.execute(
        """
        CREATE TABLE templates (
            user_id text COLLATE "C" NOT NULL,
            id text COLLATE "C" NOT NULL,
            name text NOT NULL,
            name_key text COLLATE "C" NOT NULL,
            version text NOT NULL,
            parent_template_id text COLLATE "C",
            definition jsonb NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (user_id, id)
        );
        CREATE UNIQUE INDEX templates_name ON templates (user_id, name_key);
        CREATE INDEX templates_parent ON templates (user_id, parent_template_id);

        CREATE TABLE template_versions (
            user_id text COLLATE "C" NOT NULL,
            template_id text COLLATE "C" NOT NULL,
            version text NOT NULL,
            definition jsonb NOT NULL,
            at timestamptz NOT NULL,
            PRIMARY KEY (user_id, template_id, version),
            FOREIGN KEY (user_id, template_id) REFERENCES templates (user_id, id) ON DELETE CASCADE
        );
        """
    )


def _search(conn: Connection) -> None:
    # memory_index: one row per indexed memory, as on SQLite: the conversation it
    # belongs to, the memory whose text fills its context, a per-user sequence number
    # that moves on every change, whether the memory is deleted (so that a search
    # without a filter needs no join), and its keyword text in three parts (its own
    # text, its date words, the text of the memory before it in its conversation)
    # with a tsvector generated from them, weighted A, B and C.
    # memory_vectors: the vectors, in a table of their own so that keyword searches
    # read narrow rows. The column has no fixed dimension (that belongs to the
    # embedder): an HNSW index per dimension is created when the index settings
    # record one (search.py).
    conn.execute(
        """
        CREATE TABLE memory_index (
            user_id text COLLATE "C" NOT NULL,
            memory_id text COLLATE "C" NOT NULL,
            seq bigint NOT NULL,
            conversation_id text COLLATE "C",
            context_of text COLLATE "C",
            deleted boolean NOT NULL,
            body text NOT NULL,
            date text NOT NULL,
            context text NOT NULL DEFAULT '',
            keywords tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('english'::regconfig, body), 'A')
                || setweight(to_tsvector('english'::regconfig, date), 'B')
                || setweight(to_tsvector('english'::regconfig, context), 'C')
            ) STORED,
            PRIMARY KEY (user_id, memory_id),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX memory_index_keywords ON memory_index USING gin (keywords);
        CREATE INDEX memory_index_seq ON memory_index (user_id, seq);
        CREATE INDEX memory_index_conversation ON memory_index (user_id, conversation_id, seq);
        CREATE INDEX memory_index_context ON memory_index (user_id, context_of);

        CREATE TABLE memory_vectors (
            user_id text COLLATE "C" NOT NULL,
            memory_id text COLLATE "C" NOT NULL,
            vector vector NOT NULL,
            PRIMARY KEY (user_id, memory_id),
            FOREIGN KEY (user_id, memory_id) REFERENCES memory_index (user_id, memory_id) ON DELETE CASCADE
        );

        CREATE TABLE index_settings (
            key text COLLATE "C" PRIMARY KEY,
            value text NOT NULL
        );
        """
    )


def _suggestions(conn: Connection) -> None:
    # Numbered per user like preference_history (no sequence: the table shards by user as it is).
    conn.execute(
        """
        CREATE TABLE suggestion_events (
            user_id text COLLATE "C" NOT NULL,
            seq bigint NOT NULL,
            template_id text COLLATE "C" NOT NULL,
            event text COLLATE "C" NOT NULL,
            memory_id text COLLATE "C",
            confidence double precision,
            at timestamptz NOT NULL,
            PRIMARY KEY (user_id, seq)
        );
        CREATE INDEX suggestion_events_template ON suggestion_events (user_id, template_id, event);
        """
    )


def _fields(conn: Connection) -> None:
    # On SQLite this step adds a value index for structured_content filters; here the
    # GIN index on structured_content (0001) serves them already. Kept so that both
    # backends record the same steps.
    pass


def _covering_fields(conn: Connection) -> None:
    # On SQLite this step widens the value index of 0005; nothing to change here.
    pass


# The same names as the SQLite backend's steps, so both report the same schema history.
MIGRATIONS: tuple[tuple[str, Step], ...] = (
    ("0001_initial", _initial),
    ("0002_templates", _templates),
    ("0003_search", _search),
    ("0004_suggestions", _suggestions),
    ("0005_fields", _fields),
    ("0006_covering_fields", _covering_fields),
)


def migrate(conn: Connection, location: str) -> list[str]:
    """Apply pending steps in one transaction; return the names applied.

    ``conn`` must be in autocommit mode (no transaction open).
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)"
        )
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        _refuse_unknown(done, location)
        applied = []
        for name, step in MIGRATIONS:
            if name not in done:
                step(conn)
                conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (%s, now())", (name,))
                applied.append(name)
    return applied


def _refuse_unknown(done: set[str], location: str) -> None:
    unknown = sorted(done - {name for name, _ in MIGRATIONS})
    if unknown:
        raise SchemaTooNew(
            f"The database at {location} was written by a newer version of remember "
            f"(it has migrations this version does not know: {', '.join(unknown)}). "
            "Upgrade remember (pip install -U remember), or point REMEMBER_DATABASE_URL at another database."
        )
