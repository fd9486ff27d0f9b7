"""SQLite schema migrations: named, append-only steps recorded in a table.

Never edit or reorder a step that has shipped; add a new one at the end. On
open, steps not yet recorded are applied in order inside one transaction. A
database that records a step this code does not know was written by a newer
`remember` and is refused.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from remember.clock import to_text, utc_now
from remember.errors import SchemaTooNew

Step = Callable[[sqlite3.Connection], None]


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


def _initial(conn: sqlite3.Connection) -> None:
    run_script(
        conn,
        """
        CREATE TABLE memories (
            user_id TEXT NOT NULL,
            id TEXT NOT NULL,
            content TEXT NOT NULL,
            title TEXT,
            type TEXT NOT NULL,
            weight REAL NOT NULL,
            trust REAL NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            refs TEXT NOT NULL DEFAULT '[]',
            context TEXT NOT NULL DEFAULT '{}',
            location TEXT,
            template_id TEXT,
            template_version TEXT,
            structured_content TEXT,
            template_compliance INTEGER,
            template_validation_errors TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            occurred_at TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1,
            deleted_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed_at TEXT,
            PRIMARY KEY (user_id, id)
        );
        CREATE INDEX memories_created ON memories (user_id, created_at);
        CREATE INDEX memories_updated ON memories (user_id, updated_at);
        CREATE INDEX memories_occurred ON memories (user_id, occurred_at);
        CREATE INDEX memories_type ON memories (user_id, type);
        CREATE INDEX memories_template ON memories (user_id, template_id);

        CREATE TABLE memory_tags (
            user_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (user_id, memory_id, tag),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX memory_tags_tag ON memory_tags (user_id, tag);

        CREATE TABLE memory_history (
            user_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,
            previous TEXT NOT NULL,
            reason TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (user_id, memory_id, version),
            FOREIGN KEY (user_id, memory_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE preferences (
            user_id TEXT NOT NULL,
            path TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, path)
        ) WITHOUT ROWID;

        CREATE TABLE preference_history (
            user_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            path TEXT NOT NULL,
            old_value TEXT,
            new_value TEXT NOT NULL,
            reason TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (user_id, seq)
        ) WITHOUT ROWID;
        """,
    )


def _templates(conn: sqlite3.Connection) -> None:
    run_script(
        conn,
        """
        CREATE TABLE templates (
            user_id TEXT NOT NULL,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            version TEXT NOT NULL,
            parent_template_id TEXT,
            definition TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, id)
        );
        CREATE UNIQUE INDEX templates_name ON templates (user_id, name_key);
        CREATE INDEX templates_parent ON templates (user_id, parent_template_id);

        CREATE TABLE template_versions (
            user_id TEXT NOT NULL,
            template_id TEXT NOT NULL,
            version TEXT NOT NULL,
            definition TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (user_id, template_id, version),
            FOREIGN KEY (user_id, template_id) REFERENCES templates (user_id, id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        """,
    )


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


def _suggestions(conn: sqlite3.Connection) -> None:
    run_script(
        conn,
        """
        CREATE TABLE suggestion_events (
            user_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            template_id TEXT NOT NULL,
            event TEXT NOT NULL,
            memory_id TEXT,
            confidence REAL,
            at TEXT NOT NULL,
            PRIMARY KEY (user_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX suggestion_events_template ON suggestion_events (user_id, template_id, event);
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
    from remember.store.sqlite.fields import backfill

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


MIGRATIONS: tuple[tuple[str, Step], ...] = (
    ("0001_initial", _initial),
    ("0002_templates", _templates),
    ("0003_search", _search),
    ("0004_suggestions", _suggestions),
    ("0005_fields", _fields),
    ("0006_covering_fields", _covering_fields),
)


def migrate(conn: sqlite3.Connection, location: str) -> list[str]:
    """Apply pending steps in one transaction; return the names applied."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        _refuse_unknown(done, location)
        applied = [name for name, step in MIGRATIONS if name not in done and _apply(conn, name, step)]
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return applied


def _apply(conn: sqlite3.Connection, name: str, step: Step) -> bool:
    step(conn)
    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (name, to_text(utc_now())))
    return True


def _refuse_unknown(done: set[str], location: str) -> None:
    unknown = sorted(done - {name for name, _ in MIGRATIONS})
    if unknown:
        raise SchemaTooNew(
            f"The database at {location} was written by a newer version of remember "
            f"(it has migrations this version does not know: {', '.join(unknown)}). "
            "Upgrade remember (pip install -U remember), or point REMEMBER_DATABASE_URL at another database."
        )
