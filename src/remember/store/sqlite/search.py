"""The search index in SQLite: FTS5 keyword rows, vectors, and the context of each memory.

Writes happen inside the transaction that writes the memory (see memories.py).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from remember.config import VECTOR_INDEX_MIN
from remember.errors import NotFound
from remember.filters import Filter, best_passing
from remember.models import DeletedMode, IndexEntry, Memory, Progress, VectorRow, Words, conversation_of
from remember.store.index_files.files import user_stem
from remember.store.index_files.ranked_keywords import RankedKeywords, RankedKeywordTables
from remember.store.sides import POST_FILTER, Capabilities, SideAnswer, VectorRoute, VectorSide
from remember.store.sql.base import IN_TRASH
from remember.store.sql.index import IndexTables, previous_in_conversation
from remember.store.sql.session import Session
from remember.store.sqlite import approximate, filtersql
from remember.store.sqlite.ann import remove_user_files
from remember.store.sqlite.connection import Database
from remember.store.sqlite.keyword_source import SqliteKeywords, keyword_directory
from remember.store.sqlite.owners_ranked import best_of_owners
from remember.store.sqlite.vectors import Snapshot, VectorCache

# bm25 column weights: content, date, context (measured on LoCoMo: docs/search.md).
BM25_WEIGHTS = "1.0, 1.0, 0.5"
STEM_CACHE_SIZE = 50_000
VECTOR_CHUNK = 4_096  # vectors read at a time when a user's matrix is loaded or caught up
# Most memories one keyword search ranks: when even a query's rarest term is in more (the service's
# postings budget keeps at least one term), the newest of them (docs/search.md#vectors-at-scale).
KEYWORD_REACH = 10_000


def next_seq(conn: sqlite3.Connection, user_id: str) -> int:
    """The user's next index seq: past every seq they ever had, so a purge never lets one be given again."""
    return approximate.seq_high(conn, user_id) + 1


def _rowid(conn: sqlite3.Connection, user_id: str, memory_id: str) -> int | None:
    row = conn.execute("SELECT rowid FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id)).fetchone()
    return int(row[0]) if row else None


def _content_of(conn: sqlite3.Connection, user_id: str, memory_id: str) -> str:
    row = conn.execute(
        "SELECT content FROM memories WHERE user_id = ? AND id = ? AND deleted_at IS NULL", (user_id, memory_id)
    ).fetchone()
    return row[0] if row else ""


def _refresh_successors(
    conn: sqlite3.Connection, user_id: str, memory_id: str, text: str, *, purged: bool = False
) -> None:
    """Set the context of the memories that follow this one in its conversation. The ranked keyword
    index, which holds the context, re-reads them with the memory whose seq moved; when that memory is
    ``purged`` (its row goes), their own seq moves on instead."""
    rows = conn.execute(
        "SELECT m.rowid, mi.memory_id FROM memory_index mi "
        "JOIN memories m ON m.user_id = mi.user_id AND m.id = mi.memory_id WHERE mi.user_id = ? AND mi.context_of = ?",
        (user_id, memory_id),
    ).fetchall()
    conn.executemany("UPDATE memory_fts SET context = ? WHERE rowid = ?", [(text, r[0]) for r in rows])
    for _, successor in rows if purged else ():
        conn.execute(
            "UPDATE memory_index SET seq = ? WHERE user_id = ? AND memory_id = ?",
            (next_seq(conn, user_id), user_id, successor),
        )


class SearchTables(RankedKeywordTables, IndexTables):
    db: Database
    # The vector side's connection (``Database.companion``): a search's vector side reads through it
    # while its keyword side holds ``db``, so the two run side by side.
    vector_db: Database
    _vectors: VectorCache | None = None
    _approximate: approximate.ApproximateSearch | None = None
    # Users with at least this many indexed memories are searched through an approximate
    # index (store/sqlite/ann.py); None: exact search for everyone. Set by
    # REMEMBER_VECTOR_INDEX_MIN (measured: docs/search.md#vectors-at-scale).
    vector_index_min: int | None = VECTOR_INDEX_MIN
    _stem_cache: dict[str, str]
    # Full-text rows are not kept by owner: one owner's query reads every owner's matches.
    finds_owners_together = True

    # the hooks of shared writes (store/sql/memories.py), inside the memory's transaction

    def write_index(self, s: Session, memory: Memory, entry: IndexEntry) -> None:
        """(Re)index one memory: its keyword row, vector and context, and refresh its successors' context."""
        conn = s.raw
        rowid = _rowid(conn, memory.user_id, memory.id)
        if rowid is None:
            raise NotFound(f"Memory {memory.id} is no longer stored; it cannot be indexed.")
        previous = previous_in_conversation(s, memory)
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
            (memory.user_id, memory.id, next_seq(conn, memory.user_id), conversation_of(memory), previous,
             entry.vector),
        )  # fmt: skip
        _refresh_successors(conn, memory.user_id, memory.id, memory.content)
        self._keywords_changed(memory.user_id)

    def touch_index(self, s: Session, memory: Memory) -> None:
        """After a change that leaves the text alone (a soft delete, a restore): vector caches re-read
        the memory, and the memories that carry its text as context hide it while it is in the trash."""
        s.raw.execute(
            "UPDATE memory_index SET seq = ? WHERE user_id = ? AND memory_id = ?",
            (next_seq(s.raw, memory.user_id), memory.user_id, memory.id),
        )
        _refresh_successors(s.raw, memory.user_id, memory.id, "" if memory.is_deleted else memory.content)
        self._keywords_changed(memory.user_id)

    def forget_index(self, s: Session, user_id: str, memory_id: str) -> None:
        """Before a memory is purged: drop its keyword row and erase its text from others' context."""
        conn = s.raw
        rowid = _rowid(conn, user_id, memory_id)
        if rowid is not None:
            conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (rowid,))
        _refresh_successors(conn, user_id, memory_id, "", purged=True)
        # The purged row may hold the user's highest seq: kept, so that the next is past it (the indexes
        # beside the database know what changed by seq).
        conn.execute(
            "INSERT INTO index_settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (approximate.seq_key(user_id), approximate.seq_high(conn, user_id)),
        )
        conn.execute(
            "UPDATE memory_index SET context_of = NULL WHERE user_id = ? AND context_of = ?", (user_id, memory_id)
        )
        # Vector caches only read rows that changed; a purge removes one, so they must start over.
        conn.execute(
            "INSERT INTO index_settings (key, value) VALUES ('purges', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        self._keywords_changed(user_id)

    # keywords

    def keyword_candidates(
        self, user_id: str, terms: Words, *, filter: Filter | None, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> list[tuple[str, float]]:
        """Memory ids and bm25 scores (higher is better) of the user's memories holding any of ``terms``.

        ``also``: terms that score the memories found without finding any themselves (the common terms
        a search leaves out of the finding). A memory's score is bm25 over ``terms`` and the ``also``
        terms it holds; the memories holding one are ranked by a second query, whose best are exactly
        the best of them (bm25 sums its phrases' parts), so the ``limit`` best overall are exact too.
        """
        if not terms:
            return []
        match = match_expression(terms)
        floor = self._newest_reach(user_id, terms, match)
        found = self._ranked(user_id, match, floor, filter, deleted, limit)
        extra = self._scoring_only(terms, also)
        if not extra:
            return found
        scored = f"({match}) AND ({match_expression(extra)})"
        return _merged(found, self._ranked(user_id, scored, floor, filter, deleted, limit), limit)

    def _scoring_only(self, terms: Words, also: Words) -> list[str]:
        """The ``also`` terms that add to the score: one of each stem, none stemmed as a term is."""
        kept = set(self._stems(terms))
        return list({s: t for t, s in zip(also, self._stems(also), strict=True) if s and s not in kept}.values())

    def keyword_candidates_of(
        self, owners: Sequence[str], terms: Words, *, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> dict[str, list[tuple[str, float]]]:
        """``keyword_candidates`` of each owner, those ranked over their whole index (no newest reach, not
        alone in the database) in one query: each matching row is read and scored once for them all, where
        a query per owner reads every owner's matches (bm25's statistics are the table's either way)."""
        if not terms:
            return {owner: [] for owner in owners}
        match = match_expression(terms)
        together = [o for o in dict.fromkeys(owners) if not self._alone(o) and not self._newest_reach(o, terms, match)]
        out = {
            owner: self.keyword_candidates(owner, terms, filter=None, deleted=deleted, limit=limit, also=also)
            for owner in owners
            if owner not in together
        }
        if not together:
            return out
        found = self._ranked_of(together, match, deleted, limit)
        extra = self._scoring_only(terms, also)
        scored = (
            {} if not extra else self._ranked_of(together, f"({match}) AND ({match_expression(extra)})", deleted, limit)
        )
        for owner in together:
            out[owner] = _merged(found.get(owner, []), scored.get(owner, []), limit)
        return out

    def _alone(self, user_id: str) -> bool:
        """Whether the user holds every indexed row (their keyword searches may skip the join)."""
        return self._indexed_total(user_id) == self._indexed_total(None)

    def _ranked_of(
        self, owners: list[str], match: str, deleted: DeletedMode, limit: int
    ) -> dict[str, list[tuple[str, float]]]:
        """The ``limit`` best of each owner's memories matching ``match``, best first, found together."""
        with self.db.read() as conn:
            return best_of_owners(conn, owners, match, deleted, limit, BM25_WEIGHTS)

    def _new_ranked_index(self) -> RankedKeywords | None:
        directory = keyword_directory(self.db)
        return None if directory is None else RankedKeywords(SqliteKeywords(self.db), directory)

    def _ranked(
        self, user_id: str, match: str, floor: int, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` best of the user's memories matching ``match`` from rowid ``floor`` on, best first."""
        if filter is None and self._alone(user_id):
            ranked = self._best_ranked(user_id, match, floor, deleted, limit)
            if ranked is not None:
                return ranked
        params: list[Any] = [match, floor, user_id]
        where = f"memory_fts MATCH ? AND memory_fts.rowid >= ? AND m.user_id = ? AND {IN_TRASH[deleted]}"
        if filter is not None:
            where += " AND " + filtersql.render(filter, params, user_id, indexed=False)
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT m.id, bm25(memory_fts, {BM25_WEIGHTS}) AS rank FROM memory_fts "
                f"JOIN memories m ON m.rowid = memory_fts.rowid WHERE {where} ORDER BY rank, m.id LIMIT ?",
                [*params, limit],
            ).fetchall()
        return [(memory_id, -rank) for memory_id, rank in rows]

    def _newest_reach(self, user_id: str, terms: Sequence[str], match: str) -> int:
        """The lowest rowid worth ranking: past KEYWORD_REACH memories holding the terms (a query whose
        rarest term alone is that common), only the newest KEYWORD_REACH of them are ranked."""
        _, counts = self.term_document_counts(user_id, terms, cap=KEYWORD_REACH + 1)
        if sum(counts) <= KEYWORD_REACH:
            return 0
        sole = self._indexed_total(user_id) == self._indexed_total(None)
        join = "" if sole else "JOIN memories m ON m.rowid = f.rowid AND m.user_id = ? "
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT f.rowid FROM memory_fts f {join}WHERE memory_fts MATCH ? "
                "ORDER BY f.rowid DESC LIMIT 1 OFFSET ?",
                (*(() if sole else (user_id,)), match, KEYWORD_REACH - 1),
            ).fetchone()
        return int(row[0]) if row else 0

    def _best_ranked(
        self, user_id: str, match: str, floor: int, deleted: DeletedMode, limit: int
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
                f"WHERE memory_fts MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?) f JOIN memories m "
                f"ON m.rowid = f.rowid WHERE m.user_id = ? AND {IN_TRASH[deleted]} ORDER BY f.rank",
                (match, floor, reach, user_id),
            ).fetchall()
            if len(rows) < limit:
                seen = conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? AND rowid >= ? LIMIT ?)",
                    (match, floor, reach),
                ).fetchone()[0]
                if seen >= reach:  # rows beyond the reach might have passed
                    return None
        return [(memory_id, -rank) for memory_id, rank in rows[:limit]]

    def term_document_counts(self, user_id: str, terms: Sequence[str], *, cap: int) -> tuple[int, list[int]]:
        """How many of the user's memories are indexed, and how many contain each term (after
        stemming), counted up to ``cap`` (a count of ``cap`` means "at least that many").

        Each term is counted among the user's memories alone, so that other users' memories never
        shape one user's search; when the user is the only one in the database, straight from the
        full-text index. A count stops at ``cap`` rows (the vocabulary's exact count of a term in a
        third of a million memories took 9 ms; a count capped at 10,001, under 1 ms).
        """
        stems = self._stems(terms)
        user_total = self._indexed_total(user_id)
        owner = None if user_total == self._indexed_total(None) else user_id
        # Counted by a word of each stem, which MATCH stems: the stem itself would be stemmed again,
        # and Porter's stemmer is not idempotent ("exercises" -> "exercis" -> "exerci" matches nothing).
        spelled = {stem: term for term, stem in zip(terms, stems, strict=True) if stem}
        counted = self.term_stats.counts(  # kept per user: counted over the table, they were the user's alone
            user_id,
            stems,
            cap,
            lambda missing, upto: self._counts(owner, [spelled.get(s, "") for s in missing], upto),
            lambda: approximate.max_seq(self.db, user_id),
        )
        return user_total, counted

    def _counts(self, user_id: str | None, words: list[str], cap: int) -> list[int]:
        """Memories holding each word (stemmed as the index is), up to ``cap``: of ``user_id``, or of
        anyone (None); 0 for an empty word."""
        join = "" if user_id is None else "JOIN memories m ON m.rowid = memory_fts.rowid AND m.user_id = ? "
        sql = f"SELECT count(*) FROM (SELECT 1 FROM memory_fts {join}WHERE memory_fts MATCH ? LIMIT ?)"
        owner = () if user_id is None else (user_id,)
        with self.db.read() as conn:
            return [
                int(conn.execute(sql, (*owner, match_expression([word]), cap)).fetchone()[0]) if word else 0
                for word in words
            ]

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
            if len(self._stem_cache) > STEM_CACHE_SIZE:
                self._stem_cache.clear()
            self._stem_cache.update({t: found.get(i + 1, "") for i, t in enumerate(missing)})
        return [self._stem_cache[t] for t in terms]

    def _indexed_total(self, user_id: str | None) -> int:
        """How many memories the index holds (of one user, or all); recounted every few seconds at most."""
        newest = None if user_id is None else (lambda: approximate.max_seq(self.db, user_id))
        return self.term_stats.total(user_id, lambda: self._count_indexed(user_id), newest)

    def _count_indexed(self, user_id: str | None) -> int:
        """The index's rows (of one user, or all). A user alone in the database is counted as the whole
        table is, which SQLite counts page by page without reading a row: at a million memories 9 ms
        against 66 for the rows of one user (which a search after a few idle seconds would pay)."""
        with self.db.read() as conn:
            if user_id is None or not _others_in(conn, user_id):
                row = conn.execute("SELECT count(*) FROM memory_index").fetchone()
            else:
                row = conn.execute("SELECT count(*) FROM memory_index WHERE user_id = ?", (user_id,)).fetchone()
        return int(row[0])

    # vectors

    def vector_candidates(
        self, user_id: str, vector: bytes, *, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories closest to ``vector`` (cosine) among those that pass ``filter``, by the
        route the user's size calls for (``vector_side``)."""
        route: VectorRoute = "approximate" if self._approximate_for(user_id) is not None else "exact"
        return self.vector_side(user_id, VectorSide(route, vector, filter, deleted, limit)).hits

    def vector_side(self, user_id: str, side: VectorSide) -> SideAnswer:
        """The vector side of a search by ``side.route``: exact over the user's in-memory matrix, or the
        approximate index (store/sqlite/approximate.py, exact scores too) while it can answer. A filter is
        checked on the nearest first (a filter most memories pass), else it selects the rows in SQL."""
        search = self._approximate_for(user_id) if side.route == "approximate" else None
        if search is not None:
            found = self._approximate_side(search, user_id, side)
            if found is not None:
                self._drop_matrix(user_id)
                return found
        exact = self._exact_side(user_id, side)
        if side.route == "approximate":  # asked for, and not there (too few memories, or being built)
            return SideAnswer(exact.hits, f"{exact.ran} (the approximate index cannot answer yet)")
        return exact

    def _approximate_side(
        self, search: approximate.ApproximateSearch, user_id: str, side: VectorSide
    ) -> SideAnswer | None:
        vector, filter, deleted, limit = side.vector, side.filter, side.deleted, side.limit
        if filter is not None and POST_FILTER:  # a filter most memories pass: checked on the proposals
            passes = self._passing_of(user_id, filter, deleted)
            found = search.nearest_passing(user_id, vector, passes, deleted, limit)
            if found is not None:
                return SideAnswer(found, "approximate index, the filter checked on its proposals")
        allowed = None if filter is None and deleted != "only" else self._matching_ids(user_id, filter, deleted)
        found = search.nearest(user_id, vector, allowed, deleted, limit, self._indexed_total(user_id))
        if found is None:
            return None
        among = "" if filter is None else ", among the memories that pass the filter"
        return SideAnswer(found, f"approximate index{among}")

    def _exact_side(self, user_id: str, side: VectorSide) -> SideAnswer:
        snap = self._snapshot(user_id, len(side.vector) // 4)
        scores = snap.scores(side.vector)
        filter, deleted, limit = side.filter, side.deleted, side.limit
        if filter is None:
            return SideAnswer(snap.top(scores, snap.live(deleted), limit), "exact")
        reach = POST_FILTER * limit  # a filter most memories pass: checked on the nearest few alone
        nearest = snap.top(scores, snap.live(deleted), reach)
        kept = self._passing_of(user_id, filter, deleted)([memory_id for memory_id, _ in nearest])
        best = best_passing(nearest, kept, limit, len(nearest) < reach)
        if best is not None:
            return SideAnswer(best, f"exact, the filter checked on the nearest {reach}")
        found = snap.top(scores, snap.rows_of(self._matching_ids(user_id, filter, deleted)), limit)
        return SideAnswer(found, "exact, among the memories that pass the filter")

    def capabilities(self, user_id: str) -> Capabilities:
        return Capabilities(
            indexed=self._indexed_total(user_id),
            ranked_keywords=self._ranked_for(user_id) is not None,
            approximate_vectors=self._approximate_for(user_id) is not None,
            vector_filter="checked on the nearest first, else the memories that pass are searched",
        )

    def _passing_of(self, user_id: str, filter: Filter, deleted: DeletedMode) -> Callable[[list[str]], set[str]]:
        """Which of the memories given pass, read through the vector side's own connection."""
        return lambda memory_ids: self._passing_through(self.vector_db, user_id, memory_ids, filter, deleted)

    def cosines(self, user_id: str, vector: bytes, memory_ids: Sequence[str]) -> dict[str, float]:
        """The cosine between ``vector`` and each of these memories that has a vector."""
        search = self._approximate_for(user_id)
        if search is not None:  # no matrix loaded for these: from the index, else the database
            return search.cosines(user_id, vector, memory_ids)
        return self._snapshot(user_id, len(vector) // 4).pick(vector, memory_ids)

    def build_vector_index(self, user_id: str, dimension: int, progress: Progress | None = None) -> bool:
        """Build the user's approximate vector index now, in bulk, if their searches will use one;
        False if they will not (too few memories, or exact search asked for)."""
        total = self._count_indexed(user_id)  # counted now: a bulk write just moved it
        search = self._approximate_for(user_id, total)
        if search is None:
            return False
        search.build(user_id, dimension, None if progress is None else lambda done: progress(done, total))
        self._drop_matrix(user_id)
        return True

    def forget_owner(self, user_id: str) -> None:
        """Remove the owner's approximate vector index and ranked keyword index files, and its matrix."""
        self._drop_matrix(user_id)
        if self._approximate is not None:
            self._approximate.forget(user_id)
        elif (directory := approximate.index_directory(self.db)) is not None:
            remove_user_files(directory, user_stem(user_id))
        self._forget_ranked(user_id)

    def sizing_advice(self) -> list[str]:
        return []  # the index file is mapped, the page cache is the operating system's

    def bulk_vectors(self, expected: int) -> AbstractContextManager[bool]:  # noqa: ARG002
        """Nothing to set aside: a user's approximate index catches up after the block (or is built by it)."""
        return contextlib.nullcontext(False)

    def _approximate_for(self, user_id: str, total: int | None = None) -> approximate.ApproximateSearch | None:
        """The approximate path, when the user has enough memories (``total``, else the recent count)
        and the database is a file."""
        if not self._sized_for(self.vector_index_min, user_id, total):
            return None
        if self._approximate is None:
            directory = approximate.index_directory(self.db)
            if directory is None:
                return None
            self._approximate = approximate.ApproximateSearch(self.vector_db, directory)
        return self._approximate

    def _drop_matrix(self, user_id: str) -> None:
        """Forget the user's in-memory matrix: their searches go through the index from now on."""
        if self._vectors is not None:
            self._vectors.drop(user_id)

    def close_search(self) -> None:
        """Stop what runs in the background (index builds), and close the vector side's connection."""
        if self._approximate is not None:
            self._approximate.close()
        self._close_ranked()
        if self.vector_db is not self.db:
            self.vector_db.close()

    def _snapshot(self, user_id: str, dimension: int) -> Snapshot:
        cache = self._vectors
        if cache is None or cache.dimension != dimension:
            cache = self._vectors = VectorCache(dimension)
        return cache.snapshot(user_id, lambda seq: self._vector_rows(user_id, seq), self._purges)

    def _vector_rows(self, user_id: str, after_seq: int) -> Iterator[list[VectorRow]]:
        """The user's vectors changed since ``after_seq``, with deletion state, in chunks."""
        columns = "mi.memory_id, mi.seq, mi.vector, m.deleted_at IS NOT NULL"
        for rows in approximate.index_changes(self.vector_db, user_id, after_seq, columns, VECTOR_CHUNK):
            yield [VectorRow(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def _purges(self) -> int:
        """How many memories were ever purged from this database (any user)."""
        with self.vector_db.read() as conn:
            row = conn.execute("SELECT value FROM index_settings WHERE key = 'purges'").fetchone()
        return int(row[0]) if row else 0

    def _row_filter(self, filter: Filter, user_id: str, params: list[Any]) -> str:
        return filtersql.render(filter, params, user_id, indexed=False)

    def _matching_ids(self, user_id: str, filter: Filter | None, deleted: DeletedMode) -> dict[str, int]:
        """The user's memories that pass ``filter`` in the ``deleted`` mode: id to rowid (the index's key)."""
        params: list[Any] = [user_id]
        where = f"m.user_id = ? AND {IN_TRASH[deleted]}"
        if filter is not None:
            where += " AND " + filtersql.render(filter, params, user_id)
        with self.vector_db.read() as conn:
            return dict(conn.execute(f"SELECT m.id, m.rowid FROM memories m WHERE {where}", params))

    def get_vector(self, user_id: str, memory_id: str) -> bytes | None:
        return self.get_vectors(user_id, [memory_id]).get(memory_id)

    def get_vectors(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, bytes]:
        return {
            memory_id: vector for memory_id, vector in approximate.vectors_of(self.db, user_id, memory_ids) if vector
        }


def _others_in(conn: sqlite3.Connection, user_id: str) -> bool:
    """Whether the index holds rows of any user but this one (two seeks in ``memory_index_seq``)."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM memory_index WHERE user_id < ?) OR "
        "EXISTS (SELECT 1 FROM memory_index WHERE user_id > ?)",
        (user_id, user_id),
    ).fetchone()
    return bool(row[0])


def _merged(found: list[tuple[str, float]], scored: list[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best of the memories the terms found, each scored with the added terms where it
    holds one (``scored``: those, ranked by a query of the terms and the added terms)."""
    if not scored:
        return found
    merged = dict(found) | dict(scored)
    return sorted(merged.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of ``terms``, each quoted so no FTS syntax can slip in."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def create_scratch(conn: sqlite3.Connection) -> None:
    """Per-connection helpers to learn a term's stem (fts5vocab over a scratch full-text table)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_scratch USING fts5(t, tokenize = 'porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_stems USING fts5vocab(temp, term_scratch, 'instance')")
