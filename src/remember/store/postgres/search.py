"""The search index in PostgreSQL: a weighted tsvector, a pgvector vector, and each memory's context.

One ``memory_index`` row per indexed memory (migration ``0003_search``). Writes
happen inside the transaction that writes the memory (``store/sql/memories.py``),
after the dialect's ``lock_users`` (``dialect.py``).

Keywords: ``body`` (the memory's keyword text), ``date`` (its date words) and
``context`` (the text of the memory before it in its conversation) make a
generated tsvector weighted A, B and C, served by a GIN index. Each query term
becomes ``phraseto_tsquery('english', term)`` (bound, never spliced into SQL),
and a memory's score is a BM25-like sum over the terms it contains of
``idf(term) * ts_rank({0, 0.5, 1, 1}, keywords, term)``: ts_rank saturates with
repeats and weighs the three parts 1.0, 1.0 and 0.5; idf comes from the user's
own document counts.

Vectors: an unconstrained ``vector`` column (the dimension belongs to the
embedder) and, per recorded dimension D, a partial HNSW expression index on
``vector::vector(D)`` (``halfvec(D)`` above 2,000 dimensions) for rows of that
dimension, created when the index settings record D. Queries repeat the index's
expression and predicate, with D written into the SQL as a number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remember.filters import Filter
from remember.models import DeletedMode, IndexEntry, Memory, Words, conversation_of
from remember.store.index_files.ranked_keywords import RankedKeywords, RankedKeywordTables
from remember.store.postgres import filtersql, keyword_budget
from remember.store.postgres.common_terms import CommonTerms
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.folding import fold
from remember.store.postgres.keyword_source import SEQ_HIGH, PostgresKeywords, keyword_directory, seq_high
from remember.store.postgres.vectors import VectorParam, vector_from_binary
from remember.store.sides import Capabilities, SideAnswer, VectorSide
from remember.store.sql.base import IN_TRASH
from remember.store.sql.index import IndexTables, previous_in_conversation, previous_of_new
from remember.store.sql.session import Session

INDEX_DELETED = keyword_budget.INDEX_DELETED
RANK_WEIGHTS = keyword_budget.RANK_WEIGHTS
# advisory lock of vector index changes (one-key form); "remindex" in ASCII
INDEX_LOCK_KEY = 0x72656D696E646578

# HNSW: build parameters (pgvector's defaults) and the search-time candidate list.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
HNSW_EF_SEARCH = 200  # recall@10 at 1M memories: 0.933 at 100, 0.967 at 200 for +0.7 ms (docs/postgres.md)
MAX_EF_SEARCH = 1000  # pgvector's upper bound
MAX_VECTOR_DIMENSIONS = 2000  # HNSW on vector; up to 4,000 on halfvec; above that, exact search
MAX_HALFVEC_DIMENSIONS = 4000
HALFVEC_SINCE = (0, 7)  # pgvector versions
ITERATIVE_SCAN_SINCE = (0, 8)
VECTOR_INDEX_PREFIX = "memory_vectors_hnsw_"

EXACT_SEARCH_BELOW = 5_000  # a filter passing at most this many memories: exact vector search over them


# writing the index (inside the memory's transaction)

# past every seq the user ever had, so a purge never lets one be given again (the ranked keyword
# index, beside the database, knows what changed by seq)
_NEXT_SEQ = f"({SEQ_HIGH} + 1)"
NEWEST_SEQ = "SELECT coalesce(max(seq), 0) FROM memory_index WHERE user_id = %s"


def _refresh_successors(conn: Connection, user_id: str, memory_id: str, text: str) -> None:
    conn.execute(
        "UPDATE memory_index SET context = %s WHERE user_id = %s AND context_of = %s AND context <> %s",
        (text, user_id, memory_id, text),
    )


# the vector index per dimension


def vector_cast(dimension: int) -> str:
    """The type a vector of ``dimension`` is indexed and searched as."""
    kind = "vector" if dimension <= MAX_VECTOR_DIMENSIONS else "halfvec"
    return f"{kind}({int(dimension)})"


def query_vector_sql(dimension: int) -> str:
    """The query vector (a parameter) as the type the index holds."""
    cast = vector_cast(dimension)
    return f"%s::{cast}" if cast.startswith("vector") else f"%s::vector::{cast}"


def vector_index_name(dimension: int) -> str:
    return f"{VECTOR_INDEX_PREFIX}{int(dimension)}"


def ensure_vector_index(conn: Connection, dimension: int, pgvector: tuple[int, ...] = HALFVEC_SINCE) -> None:
    """The HNSW index of vectors of ``dimension``, created if missing; other dimensions' indexes dropped.

    Under a transaction-scoped advisory lock: two processes adopting an embedder at
    once build the index once (the second waits, then finds it).
    """
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (INDEX_LOCK_KEY,))
    existing = {
        r[0]
        for r in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'memory_vectors' "
            "AND indexname LIKE %s",
            (VECTOR_INDEX_PREFIX + "%",),
        )
    }
    largest = MAX_HALFVEC_DIMENSIONS if pgvector >= HALFVEC_SINCE else MAX_VECTOR_DIMENSIONS
    wanted = vector_index_name(dimension) if 0 < dimension <= largest else None
    for name in sorted(existing - {wanted}):
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    if wanted is None or wanted in existing:
        return
    cast = vector_cast(dimension)
    ops = "vector_cosine_ops" if cast.startswith("vector") else "halfvec_cosine_ops"
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {wanted} ON memory_vectors USING hnsw ((vector::{cast}) {ops}) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
        f"WHERE vector_dims(vector) = {int(dimension)}"
    )


def hnsw_settings(limit: int, pgvector: tuple[int, ...] = ITERATIVE_SCAN_SINCE) -> list[str]:
    """What an approximate search sets for its transaction: the candidate list, and scanning on past it.

    ``hnsw.ef_search`` becomes at least HNSW_EF_SEARCH and at least ``limit``.
    Iterative scans came with pgvector 0.8; before, too few rows after filtering
    fall back to exact search (``vector_candidates``).
    """
    at_least = min(max(HNSW_EF_SEARCH, limit), MAX_EF_SEARCH)
    # A higher value set for the database or role (ALTER DATABASE … SET hnsw.ef_search) stands.
    settings = [
        "SELECT set_config('hnsw.ef_search', greatest(coalesce(nullif(current_setting('hnsw.ef_search', true), '')"
        f"::int, 0), {at_least})::text, true)"
    ]
    if pgvector >= ITERATIVE_SCAN_SINCE:
        settings.append("SET LOCAL hnsw.iterative_scan = relaxed_order")
    return settings


def pgvector_version(text: str | None) -> tuple[int, ...]:
    """``0.8.1`` as (0, 8, 1); unknown as (0,)."""
    parts = re.findall(r"\d+", text or "")
    return tuple(int(p) for p in parts[:3]) or (0,)


def approximate_sql(dimension: int, where: str) -> str:
    """The HNSW search; parameters: the vector, the user, ``where``'s own, the limit, the vector again.

    The expression and the predicate are the index's. relaxed_order may return rows
    slightly out of order: the outer query sorts them again, by the exact cosine.
    """
    return (
        "WITH hits AS MATERIALIZED ("
        f"SELECT v.memory_id, v.vector::{vector_cast(dimension)} <=> {query_vector_sql(dimension)} AS distance, "
        "v.vector FROM memory_vectors v JOIN memories m ON m.user_id = v.user_id AND m.id = v.memory_id "
        f"WHERE v.user_id = %s AND vector_dims(v.vector) = {int(dimension)} AND {where} "
        "ORDER BY distance LIMIT %s) "
        "SELECT memory_id, 1 - (vector <=> %s::vector) AS score FROM hits ORDER BY score DESC, memory_id"
    )


# reading the index


class SearchTables(RankedKeywordTables, IndexTables):
    db: Database
    location: str
    pgvector: tuple[int, ...] = ITERATIVE_SCAN_SINCE  # the server's version, read on open
    # Where the users' ranked keyword indexes are kept (a folder per database under it); None: none kept
    keywords_home: Path | None = None
    # Most rows one keyword search ranks (None: all of them; keyword_budget.py)
    keyword_rank_budget: int | None = keyword_budget.RANK_BUDGET
    # A tenth of SQLite's: reading the keys of the memories a filter passes costs more here (a join with
    # memory_index for each memory's document number; at a million memories, ~35 ms for 2,000 of them)
    filtered_work = 200_000_000
    common_terms: CommonTerms

    # the hooks of shared writes (store/sql/memories.py), inside the memory's transaction

    def write_index(self, s: Session, memory: Memory, entry: IndexEntry) -> None:
        """(Re)index one memory: its keyword row, vector and context, and refresh its successors' context."""
        previous = previous_in_conversation(s, memory)
        key = {"u": memory.user_id, "id": memory.id}
        s.raw.execute(
            "INSERT INTO memory_index (user_id, memory_id, seq, conversation_id, context_of, deleted, body, date, "
            f"context) VALUES (%(u)s, %(id)s, {_NEXT_SEQ}, %(conv)s, %(prev)s, %(deleted)s, %(body)s, %(date)s, "
            "coalesce((SELECT content FROM memories WHERE user_id = %(u)s AND id = %(prev)s AND deleted_at IS NULL), "
            "'')) ON CONFLICT (user_id, memory_id) DO UPDATE SET seq = excluded.seq, "
            "conversation_id = excluded.conversation_id, context_of = excluded.context_of, deleted = excluded.deleted, "
            "body = excluded.body, date = excluded.date, context = excluded.context",
            {**key, "conv": conversation_of(memory), "prev": previous, "deleted": memory.is_deleted,
             "body": entry.text, "date": entry.date},
        )  # fmt: skip
        if entry.vector is None:
            s.raw.execute("DELETE FROM memory_vectors WHERE user_id = %(u)s AND memory_id = %(id)s", key)
        else:
            s.raw.execute(
                "INSERT INTO memory_vectors (user_id, memory_id, vector) VALUES (%(u)s, %(id)s, %(v)s::vector) "
                "ON CONFLICT (user_id, memory_id) DO UPDATE SET vector = excluded.vector",
                {**key, "v": VectorParam(entry.vector)},
            )
        _refresh_successors(s.raw, memory.user_id, memory.id, memory.content)
        self._keywords_changed(memory.user_id)

    def write_new_index(self, s: Session, batch: Sequence[tuple[Memory, IndexEntry]]) -> None:
        """Index memories inserted in this transaction: their predecessors and sequence numbers worked
        out first, then one pipelined statement per table (a round trip per part, not per memory).
        No other memory can name a new one as its context, so there are no successors to refresh."""
        previous = previous_of_new(s, [m for m, _ in batch])
        seqs: dict[str, int] = {}
        rows, vectors = [], []
        for (memory, entry), before in zip(batch, previous, strict=True):
            user = memory.user_id
            if user not in seqs:
                seqs[user] = seq_high(s.raw, user)
            seqs[user] += 1
            rows.append((user, memory.id, seqs[user], conversation_of(memory), before, memory.is_deleted,
                         entry.text, entry.date, user, before))  # fmt: skip
            if entry.vector is not None:
                vectors.append((user, memory.id, VectorParam(entry.vector)))
        s.many(
            "INSERT INTO memory_index (user_id, memory_id, seq, conversation_id, context_of, deleted, body, date, "
            "context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce((SELECT content FROM memories WHERE user_id = ? "
            "AND id = ? AND deleted_at IS NULL), ''))",
            rows,
        )
        s.many("INSERT INTO memory_vectors (user_id, memory_id, vector) VALUES (?, ?, ?::vector)", vectors)
        for user in seqs:
            self._keywords_changed(user)

    def touch_index(self, s: Session, memory: Memory) -> None:
        """Move a memory's sequence number and note whether it is deleted (after a soft delete or a restore);
        the memories that carry its text as context hide it while it is in the trash."""
        s.raw.execute(
            f"UPDATE memory_index SET seq = {_NEXT_SEQ}, deleted = %(deleted)s "
            "WHERE user_id = %(u)s AND memory_id = %(id)s",
            {"u": memory.user_id, "id": memory.id, "deleted": memory.is_deleted},
        )
        _refresh_successors(s.raw, memory.user_id, memory.id, "" if memory.is_deleted else memory.content)
        self._keywords_changed(memory.user_id)

    def forget_index(self, s: Session, user_id: str, memory_id: str) -> None:
        """Before a memory is purged: erase its text from others' context (its own rows go with the memory).
        Their seq moves on (a ranked keyword index re-reads their context), and the user's highest seq
        is kept, in case the purged row holds it, so that the next is past it."""
        key = {"u": user_id, "id": memory_id}
        following = s.raw.execute(
            "SELECT memory_id FROM memory_index WHERE user_id = %(u)s AND context_of = %(id)s", key
        ).fetchall()
        s.raw.execute(
            f"INSERT INTO index_settings (key, value) VALUES ('purged_seq:' || %(u)s, {SEQ_HIGH}::text) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            key,
        )
        s.raw.execute(
            "UPDATE memory_index SET context = '', context_of = NULL WHERE user_id = %(u)s AND context_of = %(id)s", key
        )
        for (successor,) in following:
            s.raw.execute(
                f"UPDATE memory_index SET seq = {_NEXT_SEQ} WHERE user_id = %(u)s AND memory_id = %(id)s",
                {"u": user_id, "id": successor},
            )
        self._keywords_changed(user_id)

    def index_settings_written(self, s: Session) -> None:
        """A new dimension gets its HNSW index (built here)."""
        dimension = recorded_dimension(s.raw)
        if dimension is not None:
            ensure_vector_index(s.raw, dimension, self.pgvector)

    # keywords

    def _new_ranked_index(self) -> RankedKeywords | None:
        if self.keywords_home is None:
            return None
        return RankedKeywords(PostgresKeywords(self.db), keyword_directory(self.keywords_home, self.location))

    def _indexed_total(self, user_id: str) -> int:
        return self._user_total(user_id)

    def keyword_candidates(
        self, user_id: str, terms: Words, *, filter: Filter | None, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> list[tuple[str, float]]:
        """Memory ids and keyword scores (higher is better) of the user's memories holding any of ``terms``.

        When more rows hold the terms than ``keyword_rank_budget``, the rows ranked are chosen
        within it first (``keyword_budget.py``); below it, every matching row is ranked. The ``also``
        terms add to the score of the rows found (weighed by the user's counts, as the budgeted
        ranking weighs its terms) without finding any; one spelled as a term is (after stemming)
        counts once.
        """
        terms = list(dict.fromkeys(fold(t) for t in terms if t.strip()))
        if not terms:
            return []
        extra = [t for t in dict.fromkeys(fold(t) for t in also) if t.strip() and t not in terms]
        weights = self._weights(user_id, extra)
        if self.keyword_rank_budget is not None:
            total, counts = self.term_document_counts(user_id, terms, cap=keyword_budget.COUNT_CAP)
            chosen = keyword_budget.plan(terms, counts, total, self.keyword_rank_budget, limit)
            if chosen is not None:
                return self._ranked(user_id, chosen.scoring(weights), filter, deleted, limit)
        either = " || ".join("phraseto_tsquery('english', %s)" for _ in terms)
        join, where, filter_params = "", INDEX_DELETED[deleted], []
        if filter is not None:  # the filter reads the memory; without one, the index row says enough
            join = "JOIN memories m ON m.user_id = %s AND m.id = x.memory_id "
            filter_params = [user_id]
            where += " AND " + filtersql.render(filter, filter_params)
        sql = (
            # each term as a tsquery; a term the english configuration drops (a stopword) matches nothing
            "WITH terms AS MATERIALIZED (SELECT w.i, phraseto_tsquery('english', w.t) AS q "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS w(t, i)), "
            # the user's memories holding any term, deleted or not, filtered or not: they give the idf
            "matched AS MATERIALIZED (SELECT s.memory_id, s.deleted, s.keywords FROM memory_index s "
            f"WHERE s.user_id = %s AND s.keywords @@ ({either})), "
            # the cached total may predate memories just written: never below what matched
            "total AS MATERIALIZED (SELECT greatest(%s::int, (SELECT count(*) FROM matched), 1)::float8 AS n), "
            "found AS MATERIALIZED (SELECT t.q, "
            "ln(1 + (total.n - count(x.memory_id) + 0.5) / (count(x.memory_id) + 0.5)) AS w "
            "FROM terms t CROSS JOIN total LEFT JOIN matched x ON x.keywords @@ t.q "
            "WHERE numnode(t.q) > 0 GROUP BY t.i, t.q, total.n), "
            # the terms that only score, weighed from the user's counts; none the found terms hold
            f"{keyword_budget.SCORING_ONLY}, "
            "idf AS MATERIALIZED (SELECT q, w FROM found UNION ALL SELECT q, w FROM scoring) "
            f"SELECT x.memory_id, (SELECT sum(idf.w * ts_rank({RANK_WEIGHTS}, x.keywords, idf.q)) "
            f"FROM idf WHERE x.keywords @@ idf.q) AS score FROM matched x {join}"
            f"WHERE {where} ORDER BY score DESC, x.memory_id LIMIT %s"
        )
        # the user's total comes from the short-lived cache: counting it here was most of a search's time
        params = [terms, user_id, *terms, self._user_total(user_id), list(weights), list(weights.values()),
                  *filter_params, limit]  # fmt: skip
        with self.db.read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [(memory_id, float(score)) for memory_id, score in rows]

    # Each owner's rows are ranked with its own terms' weights (``keyword_budget``): a query per owner, which
    # the searches of several spaces run side by side on the pool's connections.
    finds_owners_together = False

    def keyword_candidates_of(
        self, owners: Sequence[str], terms: Words, *, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> dict[str, list[tuple[str, float]]]:
        """``keyword_candidates`` of each owner, a query each (``finds_owners_together``)."""
        return {
            owner: self.keyword_candidates(owner, terms, filter=None, deleted=deleted, limit=limit, also=also)
            for owner in owners
        }

    def _weights(self, user_id: str, terms: list[str]) -> dict[str, float]:
        """The idf of each term, from the user's (capped) counts; none for a term in no memory."""
        if not terms:
            return {}
        total, counts = self.term_document_counts(user_id, terms, cap=keyword_budget.COUNT_CAP)
        return {t: keyword_budget.idf(total, n) for t, n in zip(terms, counts, strict=True) if n > 0}

    def _ranked(
        self, user_id: str, chosen: keyword_budget.Plan, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        sql, params = keyword_budget.ranked_sql(user_id, chosen, filter=filter, deleted=deleted, limit=limit)
        with self.db.read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [(memory_id, float(score)) for memory_id, score in rows]

    def term_document_counts(self, user_id: str, terms: Sequence[str], *, cap: int) -> tuple[int, list[int]]:
        """How many of the user's memories are indexed, and how many of them contain each term
        (after stemming), counted through the GIN index up to ``cap``. Other users never count."""
        terms = [fold(t) for t in terms]
        counts = self.term_stats.counts(
            user_id, terms, cap, lambda missing, upto: self._count(user_id, missing, upto),
            lambda: self._newest_seq(user_id),
        )  # fmt: skip
        return self._user_total(user_id), counts

    def _count(self, user_id: str, terms: list[str], cap: int) -> list[int]:
        """Each term's count up to ``cap``: the common terms' from the table's statistics
        (``common_terms.py``); the others counted through the GIN index."""
        with self.db.read() as conn:
            common = self.common_terms.estimated(conn, self._user_total(user_id), terms, cap)
            rest = [t for t in terms if t not in common]
            rows = (
                conn.execute(
                    "SELECT w.t, (SELECT count(*) FROM (SELECT 1 FROM memory_index s WHERE s.user_id = %s "
                    "AND s.keywords @@ phraseto_tsquery('english', w.t) LIMIT %s) x) "
                    "FROM unnest(%s::text[]) AS w(t)",
                    (user_id, cap, rest),
                ).fetchall()
                if rest  # every term estimated: nothing to count
                else []
            )
        counted = {str(term): int(n) for term, n in rows}
        return [common[t] if t in common else counted[t] for t in terms]

    def _user_total(self, user_id: str) -> int:
        """How many of the user's memories the index holds; recounted every few seconds at most."""
        return self.term_stats.total(user_id, lambda: self._count_indexed(user_id), lambda: self._newest_seq(user_id))

    def _newest_seq(self, user_id: str) -> int:
        with self.db.read() as conn:
            row = conn.execute(NEWEST_SEQ, (user_id,)).fetchone()
        return int(row[0]) if row else 0

    def _count_indexed(self, user_id: str) -> int:
        with self.db.read() as conn:
            row = conn.execute("SELECT count(*) FROM memory_index WHERE user_id = %s", (user_id,)).fetchone()
        return int(row[0]) if row else 0

    # vectors

    def vector_candidates(
        self, user_id: str, vector: bytes, *, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories closest to ``vector`` (cosine) among those that pass ``filter``, best first
        (``vector_side``, through the HNSW index)."""
        return self.vector_side(user_id, VectorSide("approximate", vector, filter, deleted, limit)).hits

    def vector_side(self, user_id: str, side: VectorSide) -> SideAnswer:
        """The vector side of a search. When few memories pass the filter, an exact search over them
        answers. Otherwise, on the ``approximate`` route, the HNSW index does, scanning on
        (``hnsw.iterative_scan``) until enough rows pass; should it still bring fewer than ``limit`` (the
        scan gave up), or on the ``exact`` route, an exact search over every memory that passes answers."""
        vector, filter, deleted, limit = side.vector, side.filter, side.deleted, side.limit
        if len(vector) // 4 == 0 or limit <= 0:
            return SideAnswer([], "nothing to search")
        if filter is not None or deleted == "only":
            few = self._exact_if_few(user_id, vector, filter, deleted, limit, EXACT_SEARCH_BELOW)
            if few is not None:
                return SideAnswer(few, f"exact over the memories that pass (at most {EXACT_SEARCH_BELOW})")
        among = "" if filter is None else ", the filter in the search"
        if side.route == "approximate":
            found = self._approximate(user_id, vector, filter, deleted, limit)
            if len(found) >= limit:
                return SideAnswer(found, f"HNSW index{among}")
            among += " (the index brought too few)"
        return SideAnswer(self._exact(user_id, vector, filter, deleted, limit), f"exact{among}")

    def capabilities(self, user_id: str) -> Capabilities:
        return Capabilities(
            indexed=self._user_total(user_id),
            ranked_keywords=self._ranked_for(user_id) is not None,
            approximate_vectors=True,
            vector_filter=f"exact over the memories that pass when at most {EXACT_SEARCH_BELOW} do, "
            "else in the HNSW search",
        )

    def _exact_if_few(
        self, user_id: str, vector: bytes, filter: Filter | None, deleted: DeletedMode, limit: int, cap: int
    ) -> list[tuple[str, float]] | None:
        """``_exact`` when at most ``cap`` memories pass, in one query that reads them once (a count of them
        first, then their search, took 77-97 ms at a million memories for 5,000 passing, this 65-70);
        None when more pass."""
        params: list[Any] = [user_id]
        where = _passes(filter, deleted, params)
        sql = (
            f"WITH passing AS MATERIALIZED (SELECT m.id FROM memories m WHERE m.user_id = %s AND {where} LIMIT %s), "
            "n AS MATERIALIZED (SELECT count(*) AS c FROM passing) "
            f"(SELECT p.id, {_cosine_sql(len(vector) // 4)} AS score FROM passing p "
            "JOIN memory_index s ON s.user_id = %s AND s.memory_id = p.id "
            "LEFT JOIN memory_vectors v ON v.user_id = s.user_id AND v.memory_id = p.id "
            "WHERE (SELECT c FROM n) <= %s ORDER BY score DESC, p.id LIMIT %s) "
            "UNION ALL (SELECT NULL, NULL FROM n WHERE c > %s)"  # the mark of too many
        )
        with self.db.read() as conn:
            rows = conn.execute(sql, [*params, cap + 1, VectorParam(vector), user_id, cap, limit, cap]).fetchall()
        if rows and rows[-1][0] is None:
            return None
        return [(memory_id, float(score)) for memory_id, score in rows]

    def _approximate(
        self, user_id: str, vector: bytes, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        params: list[Any] = [VectorParam(vector), user_id]
        where = _passes(filter, deleted, params)
        with self.db.read() as conn, conn.transaction():
            for setting in hnsw_settings(limit, self.pgvector):
                conn.execute(setting)
            rows = conn.execute(approximate_sql(len(vector) // 4, where), [*params, limit, VectorParam(vector)])
            return [(memory_id, float(score)) for memory_id, score in rows.fetchall()]

    def _exact(
        self, user_id: str, vector: bytes, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """Every indexed memory that passes, scored exactly (without a vector of this size: 0, as on SQLite)."""
        params: list[Any] = [VectorParam(vector), user_id]
        where = _passes(filter, deleted, params)
        sql = (
            f"SELECT s.memory_id, {_cosine_sql(len(vector) // 4)} AS score FROM memory_index s "
            "JOIN memories m ON m.user_id = s.user_id AND m.id = s.memory_id "
            "LEFT JOIN memory_vectors v ON v.user_id = s.user_id AND v.memory_id = s.memory_id "
            f"WHERE s.user_id = %s AND {where} ORDER BY score DESC, s.memory_id LIMIT %s"
        )
        with self.db.read() as conn:
            rows = conn.execute(sql, [*params, limit]).fetchall()
        return [(memory_id, float(score)) for memory_id, score in rows]

    def _row_filter(self, filter: Filter, user_id: str, params: list[Any]) -> str:  # noqa: ARG002
        return filtersql.render(filter, params)

    def cosines(self, user_id: str, vector: bytes, memory_ids: Sequence[str]) -> dict[str, float]:
        """The exact cosine between ``vector`` and each of these memories that is indexed."""
        if not memory_ids:
            return {}
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT s.memory_id, {_cosine_sql(len(vector) // 4)} FROM memory_index s "
                "LEFT JOIN memory_vectors v ON v.user_id = s.user_id AND v.memory_id = s.memory_id "
                "WHERE s.user_id = %s AND s.memory_id = ANY(%s)",
                (VectorParam(vector), user_id, list(memory_ids)),
            ).fetchall()
        return {memory_id: float(score) for memory_id, score in rows}

    def get_vector(self, user_id: str, memory_id: str) -> bytes | None:
        return self.get_vectors(user_id, [memory_id]).get(memory_id)

    def get_vectors(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, bytes]:
        if not memory_ids:
            return {}
        with self.db.read() as conn, conn.cursor(binary=True) as cur:
            rows = cur.execute(
                "SELECT memory_id, vector FROM memory_vectors WHERE user_id = %s AND memory_id = ANY(%s)",
                (user_id, list(memory_ids)),
            ).fetchall()
        return {memory_id: vector_from_binary(vector) for memory_id, vector in rows if vector is not None}


def _passes(filter: Filter | None, deleted: DeletedMode, params: list[Any]) -> str:
    """The condition on the memory ``m`` of a vector search; appends its parameters."""
    where = IN_TRASH[deleted]
    return where if filter is None else f"{where} AND {filtersql.render(filter, params)}"


def _cosine_sql(dimension: int) -> str:
    """The cosine of ``v.vector`` and the first parameter; 0 without a vector of this size."""
    return f"CASE WHEN vector_dims(v.vector) = {int(dimension)} THEN 1 - (v.vector <=> %s::vector) ELSE 0 END"


def recorded_dimension(conn: Connection) -> int | None:
    """The embedding dimension the index settings record, if any."""
    row = conn.execute("SELECT value FROM index_settings WHERE key = 'embedding_dimension'").fetchone()
    return _dimension(row[0] if row else None)


def _dimension(value: str | None) -> int | None:
    if value is None or not value.strip().isdigit():
        return None
    return int(value) or None
