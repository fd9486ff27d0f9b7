"""The search index in SQLite: FTS5 keyword rows, vectors, and the context of each memory.

Writes happen inside the transaction that writes the memory (see memories.py).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from typing import Any

from remember.filters import Filter
from remember.models import DeletedMode, IndexEntry, Memory, VectorRow
from remember.store.sqlite import filtersql
from remember.store.sqlite.connection import Database
from remember.store.sqlite.rows import MEMORY_COLUMNS, memory_from_row
from remember.store.sqlite.vectors import Snapshot, VectorCache

DELETED = {"exclude": "m.deleted_at IS NULL", "include": "1", "only": "m.deleted_at IS NOT NULL"}
# bm25 column weights: content, date, context (measured on LoCoMo: docs/search.md).
BM25_WEIGHTS = "1.0, 1.0, 0.5"
TOTAL_CACHE_SECONDS = 5.0
TERM_CACHE_SIZE = 50_000
VECTOR_CHUNK = 4_096  # vectors read at a time when a user's matrix is loaded or caught up


def write_index(conn: sqlite3.Connection, memory: Memory, entry: IndexEntry) -> None:
    """(Re)index one memory: its keyword row, vector and context, and refresh its successors' context."""
    rowid = _rowid(conn, memory.user_id, memory.id)
    conversation = memory.context.get("conversation_id")
    previous = _previous(conn, memory, conversation)
    context = _content_of(conn, memory.user_id, previous) if previous else ""
    conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (rowid,))
    conn.execute(
        "INSERT INTO memory_fts (rowid, content, date, context) VALUES (?, ?, ?, ?)",
        (rowid, entry.text, entry.date, context),
    )
    conn.execute(
        "INSERT INTO memory_index (user_id, memory_id, seq, conversation_id, context_of, vector) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE SET seq = excluded.seq, "
        "conversation_id = excluded.conversation_id, context_of = excluded.context_of, vector = excluded.vector",
        (memory.user_id, memory.id, next_seq(conn, memory.user_id), conversation, previous, entry.vector),
    )
    _refresh_successors(conn, memory.user_id, memory.id, memory.content)


def touch_index(conn: sqlite3.Connection, memory: Memory) -> None:
    """After a change that leaves the text alone (a soft delete, a restore): vector caches re-read
    the memory, and the memories that carry its text as context hide it while it is in the trash."""
    conn.execute(
        "UPDATE memory_index SET seq = ? WHERE user_id = ? AND memory_id = ?",
        (next_seq(conn, memory.user_id), memory.user_id, memory.id),
    )
    _refresh_successors(conn, memory.user_id, memory.id, "" if memory.is_deleted else memory.content)


def forget_index(conn: sqlite3.Connection, user_id: str, memory_id: str) -> None:
    """Before a memory is purged: drop its keyword row and erase its text from others' context."""
    row = conn.execute("SELECT rowid FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)).fetchone()
    if row:
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (row[0],))
    _refresh_successors(conn, user_id, memory_id, "")
    conn.execute("UPDATE memory_index SET context_of = NULL WHERE user_id = ? AND context_of = ?", (user_id, memory_id))
    # Vector caches only read rows that changed; a purge removes one, so they must start over.
    conn.execute(
        "INSERT INTO index_settings (key, value) VALUES ('purges', '1') "
        "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )


def next_seq(conn: sqlite3.Connection, user_id: str) -> int:
    row = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memory_index WHERE user_id = ?", (user_id,)).fetchone()
    return int(row[0])


def _rowid(conn: sqlite3.Connection, user_id: str, memory_id: str) -> int:
    row = conn.execute("SELECT rowid FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)).fetchone()
    return int(row[0])


def _previous(conn: sqlite3.Connection, memory: Memory, conversation: Any) -> str | None:
    """The memory whose text is this one's context: the one before it in its conversation."""
    existing = conn.execute(
        "SELECT conversation_id, context_of FROM memory_index WHERE user_id = ? AND memory_id = ?",
        (memory.user_id, memory.id),
    ).fetchone()
    if existing is not None and existing[0] == conversation:
        return existing[1]  # type: ignore[no-any-return]
    if not isinstance(conversation, str):
        return None
    row = conn.execute(
        "SELECT memory_id FROM memory_index WHERE user_id = ? AND conversation_id = ? AND memory_id != ? "
        "ORDER BY seq DESC LIMIT 1",
        (memory.user_id, conversation, memory.id),
    ).fetchone()
    return row[0] if row else None


def _content_of(conn: sqlite3.Connection, user_id: str, memory_id: str) -> str:
    row = conn.execute(
        "SELECT content FROM memories WHERE user_id = ? AND id = ? AND deleted_at IS NULL", (user_id, memory_id)
    ).fetchone()
    return row[0] if row else ""


def _refresh_successors(conn: sqlite3.Connection, user_id: str, memory_id: str, text: str) -> None:
    rows = conn.execute(
        "SELECT m.rowid FROM memory_index mi JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id "
        "WHERE mi.user_id = ? AND mi.context_of = ?",
        (user_id, memory_id),
    ).fetchall()
    conn.executemany("UPDATE memory_fts SET context = ? WHERE rowid = ?", [(text, r[0]) for r in rows])


class SearchTables:
    db: Database
    _vectors: VectorCache | None = None
    _stem_cache: dict[str, str]
    _count_cache: dict[str, tuple[float, int]]
    _total_cache: dict[str | None, tuple[float, int]]

    def keyword_candidates(
        self, user_id: str, match: str, *, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """Memory ids and keyword scores (higher is better) for an FTS5 ``match`` expression."""
        if filter is None and self._indexed_total(user_id) == self._indexed_total(None):
            ranked = self._best_ranked(user_id, match, deleted, limit)
            if ranked is not None:
                return ranked
        params: list[Any] = [match, user_id]
        where = f"memory_fts MATCH ? AND m.user_id = ? AND {DELETED[deleted]}"
        if filter is not None:
            where += " AND " + filtersql.render(filter, params, user_id, indexed=False)
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT m.id, bm25(memory_fts, {BM25_WEIGHTS}) AS rank FROM memory_fts "
                f"JOIN memories m ON m.rowid = memory_fts.rowid WHERE {where} ORDER BY rank LIMIT ?",
                [*params, limit],
            ).fetchall()
        return [(memory_id, -rank) for memory_id, rank in rows]

    def _best_ranked(
        self, user_id: str, match: str, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]] | None:
        """The same answer as the general query when the user owns (nearly) every indexed row:
        the best-ranked rows are taken from the full-text index alone, then kept if they are the
        user's and pass ``deleted``. None when too few pass to be sure none is missing.

        Skipping the join while ranking saves about 40% of a keyword search over 100k memories.
        """
        reach = 2 * limit
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT m.id, f.rank FROM (SELECT rowid, bm25(memory_fts, {BM25_WEIGHTS}) AS rank FROM memory_fts "
                f"WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?) f JOIN memories m ON m.rowid = f.rowid "
                f"WHERE m.user_id = ? AND {DELETED[deleted]} ORDER BY f.rank",
                (match, reach, user_id),
            ).fetchall()
            if len(rows) < limit:
                seen = conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)", (match, reach)
                ).fetchone()[0]
                if seen >= reach:  # rows beyond the reach might have passed
                    return None
        return [(memory_id, -rank) for memory_id, rank in rows[:limit]]

    def term_document_counts(self, user_id: str, terms: Sequence[str], *, cap: int) -> tuple[int, list[int]]:
        """How many of the user's memories are indexed, and how many contain each term (after
        stemming), counted up to ``cap`` (a count of ``cap`` means "at least that many").

        When the user is the only one in the database, the full-text vocabulary answers
        at once; otherwise each term is counted among the user's memories alone, so that
        other users' memories never shape one user's search.
        """
        stems = self._stems(terms)
        user_total = self._indexed_total(user_id)
        everyone = self._indexed_total(None)
        with self.db.read() as conn:
            overall = [self._overall_count(conn, stem) for stem in stems]
            if user_total == everyone:
                return user_total, [min(n, cap) for n in overall]
            return user_total, [
                0 if n == 0 or not stem else self._user_count(conn, user_id, stem, cap)
                for stem, n in zip(stems, overall, strict=True)
            ]

    def _overall_count(self, conn: sqlite3.Connection, stem: str) -> int:
        now = time.monotonic()
        cached = self._count_cache.get(stem)
        if cached is None or now - cached[0] > TOTAL_CACHE_SECONDS:
            if len(self._count_cache) > TERM_CACHE_SIZE:
                self._count_cache.clear()
            row = conn.execute("SELECT doc FROM temp.memory_vocab WHERE term = ?", (stem,)).fetchone()
            cached = self._count_cache[stem] = (now, int(row[0]) if row else 0)
        return cached[1]

    @staticmethod
    def _user_count(conn: sqlite3.Connection, user_id: str, stem: str, cap: int) -> int:
        match = '"' + stem.replace('"', '""') + '"'
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
            "WHERE memory_fts MATCH ? AND m.user_id = ? LIMIT ?)",
            (match, user_id, cap),
        ).fetchone()
        return int(row[0])

    def _stems(self, terms: Sequence[str]) -> list[str]:
        missing = [t for t in terms if t not in self._stem_cache]
        if missing:
            with self.db.read() as conn:  # the scratch table lives in this connection's temp schema
                conn.execute("DELETE FROM temp.term_scratch")
                conn.executemany(
                    "INSERT INTO temp.term_scratch (rowid, t) VALUES (?, ?)",
                    [(i + 1, t) for i, t in enumerate(missing)],
                )
                found: dict[int, str] = {}
                for doc, term in conn.execute("SELECT doc, term FROM temp.term_stems"):
                    found.setdefault(doc, term)
            if len(self._stem_cache) > TERM_CACHE_SIZE:
                self._stem_cache.clear()
            self._stem_cache.update({t: found.get(i + 1, "") for i, t in enumerate(missing)})
        return [self._stem_cache[t] for t in terms]

    def _indexed_total(self, user_id: str | None) -> int:
        """How many memories the index holds (of one user, or all); recounted every few seconds at most."""
        now = time.monotonic()
        cached = self._total_cache.get(user_id)
        if cached is not None and now - cached[0] < TOTAL_CACHE_SECONDS:
            return cached[1]
        with self.db.read() as conn:
            if user_id is None:
                row = conn.execute("SELECT count(*) FROM memory_index").fetchone()
            else:
                row = conn.execute("SELECT count(*) FROM memory_index WHERE user_id = ?", (user_id,)).fetchone()
        if len(self._total_cache) > TERM_CACHE_SIZE:
            self._total_cache.clear()
        self._total_cache[user_id] = (now, int(row[0]))
        return int(row[0])

    def vector_candidates(
        self, user_id: str, vector: bytes, *, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories closest to ``vector`` (cosine) among those that pass ``filter``.

        Exact search over the user's in-memory matrix; the filter selects the allowed
        rows in SQL first.
        """
        snap = self._snapshot(user_id, len(vector) // 4)
        scores = snap.scores(vector)
        allowed = snap.live(deleted) if filter is None else snap.rows_of(self._matching_ids(user_id, filter, deleted))
        return snap.top(scores, allowed, limit)

    def cosines(self, user_id: str, vector: bytes, memory_ids: Sequence[str]) -> dict[str, float]:
        """The cosine between ``vector`` and each of these memories that has a vector."""
        return self._snapshot(user_id, len(vector) // 4).pick(vector, memory_ids)

    def _snapshot(self, user_id: str, dimension: int) -> Snapshot:
        cache = self._vectors
        if cache is None or cache.dimension != dimension:
            cache = self._vectors = VectorCache(dimension)
        return cache.snapshot(user_id, lambda seq: self._vector_rows(user_id, seq), self._purges)

    def _vector_rows(self, user_id: str, after_seq: int) -> Iterator[list[VectorRow]]:
        """The user's vectors changed since ``after_seq`` (all of them from 0), with deletion
        state, in chunks: a first load never holds every vector twice (as rows and in the matrix)."""
        with self.db.read() as conn:
            cursor = conn.execute(
                "SELECT mi.memory_id, mi.seq, mi.vector, m.deleted_at IS NOT NULL FROM memory_index mi "
                "JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id "
                "WHERE mi.user_id = ? AND mi.seq > ? ORDER BY mi.seq",
                (user_id, after_seq),
            )
            while rows := cursor.fetchmany(VECTOR_CHUNK):
                yield [VectorRow(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def _purges(self) -> int:
        """How many memories were ever purged from this database (any user)."""
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM index_settings WHERE key = 'purges'").fetchone()
        return int(row[0]) if row else 0

    def _matching_ids(self, user_id: str, filter: Filter, deleted: DeletedMode) -> set[str]:
        params: list[Any] = [user_id]
        where = f"m.user_id = ? AND {DELETED[deleted]} AND " + filtersql.render(filter, params, user_id)
        with self.db.read() as conn:
            return {r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params)}

    def get_memories(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids (in no particular order); unknown ids are skipped."""
        found: list[Memory] = []
        with self.db.read() as conn:
            for start in range(0, len(memory_ids), 500):
                chunk = list(memory_ids[start : start + 500])
                marks = ", ".join("?" for _ in chunk)
                rows = conn.execute(
                    f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND id IN ({marks})", [user_id, *chunk]
                ).fetchall()
                found += [memory_from_row(r) for r in rows]
        return found

    def get_vector(self, user_id: str, memory_id: str) -> bytes | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT vector FROM memory_index WHERE user_id = ? AND memory_id = ?", (user_id, memory_id)
            ).fetchone()
        return row[0] if row else None

    def index_settings(self) -> dict[str, str]:
        with self.db.read() as conn:
            return dict(conn.execute("SELECT key, value FROM index_settings").fetchall())

    def set_index_settings(self, settings: dict[str, str]) -> None:
        with self.db.write() as conn:
            conn.executemany("REPLACE INTO index_settings (key, value) VALUES (?, ?)", list(settings.items()))

    def memory_ids_page(self, after: tuple[str, str] | None, limit: int) -> list[tuple[str, str]]:
        """(user_id, memory_id) of every memory, all users, in key order: for reindexing."""
        with self.db.read() as conn:
            if after is None:
                rows = conn.execute("SELECT user_id, id FROM memories ORDER BY user_id, id LIMIT ?", (limit,))
            else:
                rows = conn.execute(
                    "SELECT user_id, id FROM memories WHERE (user_id, id) > (?, ?) ORDER BY user_id, id LIMIT ?",
                    (*after, limit),
                )
            return [(r[0], r[1]) for r in rows.fetchall()]

    def write_index_entries(self, batch: Sequence[tuple[Memory, IndexEntry]]) -> None:
        """(Re)index stored memories in one transaction (used to rebuild the index)."""
        with self.db.write() as conn:
            for memory, entry in batch:
                write_index(conn, memory, entry)

    def count_memories(self) -> int:
        with self.db.read() as conn:
            return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def create_scratch(conn: sqlite3.Connection) -> None:
    """Per-connection helpers to learn a term's stem and its document count (fts5vocab)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_scratch USING fts5(t, tokenize = 'porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_stems USING fts5vocab(temp, term_scratch, 'instance')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_vocab USING fts5vocab(main, memory_fts, 'row')")
