"""PostgreSQL's schema steps; the runner (``store/sql/migrations.py``) applies them on open.

Pending steps run in one transaction under a transaction-scoped advisory lock, so
that several processes starting at once apply each step exactly once (the others
wait, then find nothing to do).
"""

from __future__ import annotations

from psycopg import errors as pgerrors

from remember.errors import StoreError
from remember.store.postgres.connection import Connection
from remember.store.postgres.dialect import DIALECT
from remember.store.postgres.folding import ACCENTED, PLAIN, sql_literal
from remember.store.sql import schema
from remember.store.sql.migrations import apply_pending, backend_steps
from remember.store.sql.session import Session

# pg_advisory_xact_lock key: "remember" in ASCII, read as a number.
LOCK_KEY = 0x72656D656D626572

# Keys and names compare byte by byte (COLLATE "C"): the same order as SQLite, and
# indexes that no operating-system locale update can invalidate.
TYPES = schema.ColumnTypes(
    key='text COLLATE "C"', text="text", json="jsonb", texts="text[]", no_texts="'{}'", moment="timestamptz",
    flag="boolean", real="double precision", integer="integer", count="bigint", compact="", blob="bytea",
)  # fmt: skip


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
    _run(conn, TYPES.render(schema.INITIAL))
    conn.execute("CREATE INDEX memories_structured ON memories USING gin (structured_content jsonb_path_ops)")


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


KEYWORD_STATISTICS = 1_000  # the statistics target of memory_index.keywords


def _nothing(conn: Connection) -> None:
    """On SQLite, 0005 adds a value index for structured_content filters and 0006 widens it;
    here the GIN index on structured_content (0001) serves those filters already."""


def _keyword_statistics(conn: Connection) -> None:
    """``ANALYZE`` keeps the column's 10,000 most common lexemes (100 by default keeps 1,000): at a
    million memories, those in at least ~500 of them, whose counts a search then reads from
    ``pg_stats`` instead of counting rows (``common_terms.py``). Analyzed now, so that a database
    from before has them at once (2.8 s at a million memories)."""
    conn.execute(f"ALTER TABLE memory_index ALTER COLUMN keywords SET STATISTICS {KEYWORD_STATISTICS}")
    conn.execute("ANALYZE memory_index (keywords)")


def _keyword_documents(conn: Connection) -> None:
    """A number for each memory's index row, never given again (its key in a ranked keyword index,
    store/index_files/tantivy_index.py: an integer, as SQLite's rowid is), and an index to look it up by
    that holds what a search asks of the rows it finds (their memory, and whether it is in the trash)."""
    conn.execute("ALTER TABLE memory_index ADD COLUMN doc bigint GENERATED BY DEFAULT AS IDENTITY")
    conn.execute("CREATE INDEX memory_index_doc ON memory_index (user_id, doc) INCLUDE (memory_id, deleted)")


def _keyword_accents(conn: Connection) -> None:
    """Every memory's keywords with its accents folded (``folding.py``), as SQLite's are: the ``english``
    configuration keeps them ("résumé" and "resume" are two words to it) and the ``unaccent`` extension
    may not be installed. The column is made again, so the rows stored before are folded now."""
    folded = f"translate({{}}, {sql_literal(ACCENTED)}, {sql_literal(PLAIN)})"
    parts = " || ".join(
        f"setweight(to_tsvector('english'::regconfig, {folded.format(column)}), '{weight}')"
        for column, weight in (("body", "A"), ("date", "B"), ("context", "C"))
    )
    conn.execute("ALTER TABLE memory_index DROP COLUMN keywords")
    conn.execute(f"ALTER TABLE memory_index ADD COLUMN keywords tsvector GENERATED ALWAYS AS ({parts}) STORED")
    conn.execute("CREATE INDEX memory_index_keywords ON memory_index USING gin (keywords)")
    conn.execute(f"ALTER TABLE memory_index ALTER COLUMN keywords SET STATISTICS {KEYWORD_STATISTICS}")
    conn.execute("ANALYZE memory_index (keywords)")


def _run(conn: Connection, script: str) -> None:
    conn.execute(script)


MIGRATIONS = backend_steps(
    TYPES,
    _run,
    DIALECT,
    {
        "0001_initial": _initial, "0003_search": _search, "0005_fields": _nothing, "0006_covering_fields": _nothing,
        "0011_keyword_statistics": _keyword_statistics, "0012_keyword_documents": _keyword_documents,
        "0020_keyword_accents": _keyword_accents,
    },
)  # fmt: skip


def migrate(conn: Connection, location: str) -> list[str]:
    """Apply pending steps in one transaction; return the names applied.

    ``conn`` must be in autocommit mode (no transaction open).
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        return apply_pending(Session(conn, DIALECT), MIGRATIONS, location)
