"""SQLite's schema steps; the runner (``store/sql/migrations.py``) applies them on open."""

from __future__ import annotations

import sqlite3

from remember.store.sql import schema
from remember.store.sql.migrations import apply_pending, backend_steps, refuse_unknown
from remember.store.sql.session import Session
from remember.store.sqlite.dialect import DIALECT

TYPES = schema.ColumnTypes(
    key="TEXT", text="TEXT", json="TEXT", texts="TEXT", no_texts="'[]'", moment="TEXT", flag="INTEGER",
    real="REAL", integer="INTEGER", count="INTEGER", compact=" WITHOUT ROWID", blob="BLOB",
)  # fmt: skip


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run each statement of ``script`` inside the current transaction.

    (``executescript`` would commit first, and a step must be all or nothing.)
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:80]}")


def _search(conn: sqlite3.Connection) -> None:
    # memory_fts rows are keyed by the memories table's rowid. memory_index keeps,
    # per memory, its vector, its conversation and the memory whose text fills its
    # context column, and a per-user sequence number that moves on every change
    # (caches of vectors catch up by reading rows newer than what they hold).
    run_script(
        conn,
        """
        CREATE VIRTUAL TABLE memory_fts USING fts5(content, date, context, tokenize = 'porter unicode61');

        CREATE TABLE memory_index (
            user_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            conversation_id TEXT,
            context_of TEXT,
            vector BLOB,
            PRIMARY KEY (user_id, memory_id),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX memory_index_seq ON memory_index (user_id, seq);
        CREATE INDEX memory_index_conversation ON memory_index (user_id, conversation_id, seq);
        CREATE INDEX memory_index_context ON memory_index (user_id, context_of);

        CREATE TABLE index_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )


def _fields(conn: sqlite3.Connection) -> None:
    # num has no declared type on purpose: integers stay integers, floats stay floats,
    # and they compare numerically with each other, as JSON numbers do.
    run_script(
        conn,
        """
        CREATE TABLE memory_fields (
            user_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            num,
            txt TEXT,
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX memory_fields_num ON memory_fields (user_id, path, kind, num);
        CREATE INDEX memory_fields_txt ON memory_fields (user_id, path, kind, txt);
        CREATE INDEX memory_fields_memory ON memory_fields (user_id, memory_id);
        -- lets a count check deletion and template from the index alone, row by matched row
        CREATE INDEX memories_lookup ON memories (user_id, id, template_id, deleted_at);
        """,
    )
    from remember.store.sqlite.field_values import backfill

    backfill(conn)


def _covering_fields(conn: sqlite3.Connection) -> None:
    # With the memory id in the value indexes, a filter's matches come from the index
    # alone (no table row read per match): a count over 40k matches of 100k takes half
    # the time (docs/filters.md).
    run_script(
        conn,
        """
        DROP INDEX memory_fields_num;
        DROP INDEX memory_fields_txt;
        CREATE INDEX memory_fields_num ON memory_fields (user_id, path, kind, num, memory_id);
        CREATE INDEX memory_fields_txt ON memory_fields (user_id, path, kind, txt, memory_id);
        """,
    )


def _keyword_statistics(conn: sqlite3.Connection) -> None:
    """On PostgreSQL, 0011 has ANALYZE keep more of the keywords' common lexemes; SQLite counts a
    term's memories through its full-text index, capped, and keeps no such statistics."""


def _keyword_documents(conn: sqlite3.Connection) -> None:
    """On PostgreSQL, 0012 numbers each memory's index row for good (``memory_index.doc``), the key of
    its document in a ranked keyword index; here the ``memories`` rowid is that key."""


def _keyword_accents(conn: sqlite3.Connection) -> None:
    """On PostgreSQL, 0020 folds accents in the keywords, which the ``english`` configuration keeps; FTS5's
    ``unicode61`` tokenizer folds them already."""


MIGRATIONS = backend_steps(
    TYPES,
    run_script,
    DIALECT,
    {
        "0003_search": _search, "0005_fields": _fields, "0006_covering_fields": _covering_fields,
        "0011_keyword_statistics": _keyword_statistics, "0012_keyword_documents": _keyword_documents,
        "0020_keyword_accents": _keyword_accents,
    },
)  # fmt: skip


def pending(conn: sqlite3.Connection, location: str) -> list[str]:
    """The steps not yet applied, read without the write lock (SchemaTooNew if the database is newer)."""
    known = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
    if known is None:
        return [name for name, _ in MIGRATIONS]
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    refuse_unknown(done, MIGRATIONS, location)
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(conn: sqlite3.Connection, location: str) -> list[str]:
    """Apply pending steps in one transaction (holding the write lock); return the names applied."""
    if not pending(conn, location):
        return []  # an up-to-date database is opened without taking the write lock
    conn.execute("BEGIN IMMEDIATE")
    try:
        applied = apply_pending(Session(conn, DIALECT), MIGRATIONS, location)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return applied
