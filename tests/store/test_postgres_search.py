"""PostgreSQL's search index: the HNSW index and its recall, filtered vector search, keyword queries and counts.

The behaviour both backends share is tested through the service (tests/service/test_search.py);
this file checks what only PostgreSQL has, on a real server.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import psycopg
import pytest

from remember.filters import parse_filter
from remember.models import IndexEntry, Memory
from remember.store import Store, open_store
from remember.store.postgres import PostgresBackend, keyword_budget, search
from remember.store.postgres.vectors import VectorParam
from remember.store.sql import terms as term_stats

pytestmark = pytest.mark.postgres

T0 = datetime(2026, 3, 1, tzinfo=UTC)
DIMENSION = 384


@pytest.fixture
def pg(postgres_url: str) -> Iterator[Store]:
    store = open_store(postgres_url)
    assert isinstance(store.backend, PostgresBackend)
    yield store
    store.close()


def rows(url: str, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def memory(i: int, user: str = "alice", **fields: Any) -> Memory:
    at = T0 + timedelta(minutes=i)
    values: dict[str, Any] = {"content": f"memory {i}", "type": "note", "weight": 0.5, "trust": 0.5}
    values.update(fields)
    return Memory(id=f"m{i:05d}", user_id=user, created_at=at, updated_at=at, occurred_at=at, **values)


def unit(vectors: Any) -> Any:
    return (vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)).astype("<f4")


def clustered(count: int, seed: int) -> Any:
    """Unit vectors with the low intrinsic dimension real embeddings have (uniform noise has none)."""
    rng = np.random.default_rng(seed)
    basis = np.random.default_rng(0).normal(size=(24, DIMENSION))
    return unit(rng.normal(size=(count, 24)) @ basis + 0.1 * rng.normal(size=(count, DIMENSION)))


def fill(store: Store, vectors: Any, user: str = "alice", **fields: Any) -> list[Memory]:
    """Store one memory per vector (``fields`` may be callables of the position)."""
    store.index.set_index_settings({"embedding_model": "test", "embedding_dimension": str(vectors.shape[1])})
    made = []
    for i, v in enumerate(vectors):
        extra = {k: f(i) if callable(f) else f for k, f in fields.items()}
        made.append((memory(i, user, **extra), IndexEntry(f"memory {i}", "1 March 2026", v.tobytes())))
    for start in range(0, len(made), 1000):
        store.memories.insert_many(made[start : start + 1000])
    with store.backend.db.write() as conn:
        conn.execute("ANALYZE memories")
        conn.execute("ANALYZE memory_vectors")
    return [m for m, _ in made]


def plan(store: Store, vector: bytes, where: str = "m.deleted_at IS NULL", limit: int = 10) -> str:
    with store.backend.db.read() as conn, conn.transaction():
        for setting in search.hnsw_settings(limit):
            conn.execute(setting)
        sql = "EXPLAIN " + search.approximate_sql(len(vector) // 4, where)
        lines = conn.execute(sql, [VectorParam(vector), "alice", limit, VectorParam(vector)]).fetchall()
    return "\n".join(r[0] for r in lines)


def exact_top(vectors: Any, query: Any, k: int, allowed: Any = None) -> list[int]:
    scores = vectors @ query
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    return [i for i in order if allowed is None or i in allowed][:k]


def positions(found: list[tuple[str, float]]) -> list[int]:
    return [int(memory_id[1:]) for memory_id, _ in found]


# the HNSW index


def test_a_recorded_dimension_gets_its_hnsw_index_and_a_new_one_replaces_it(pg: Store) -> None:
    def vector_indexes() -> dict[str, str]:
        found = rows(pg.backend.db.target.conninfo, "SELECT indexname, indexdef FROM pg_indexes")
        return {n: d for n, d in found if n.startswith("memory_vectors_hnsw_")}

    pg.index.set_index_settings({"embedding_model": "a", "embedding_dimension": "384"})
    pg.index.set_index_settings({"embedding_model": "a", "embedding_dimension": "384"})  # again: nothing to do
    indexes = vector_indexes()
    assert list(indexes) == ["memory_vectors_hnsw_384"]
    definition = indexes["memory_vectors_hnsw_384"]
    assert "USING hnsw (((vector)::vector(384)) vector_cosine_ops)" in definition
    assert "m='16'" in definition and "ef_construction='64'" in definition
    assert "WHERE (vector_dims(vector) = 384)" in definition
    pg.index.set_index_settings({"embedding_model": "b", "embedding_dimension": "3072"})
    indexes = vector_indexes()
    assert list(indexes) == ["memory_vectors_hnsw_3072"]  # above 2,000 dimensions: halfvec
    assert "((vector)::halfvec(3072)) halfvec_cosine_ops" in indexes["memory_vectors_hnsw_3072"]
    assert pg.index.index_settings() == {"embedding_model": "b", "embedding_dimension": "3072"}


def _hnsw_indexes(store: Store) -> list[str]:
    found = rows(
        store.backend.db.target.conninfo, "SELECT indexname FROM pg_indexes WHERE tablename = 'memory_vectors'"
    )
    return sorted(n for (n,) in found if n.startswith("memory_vectors_hnsw_"))


def test_a_bulk_load_that_doubles_the_vectors_builds_the_hnsw_index_at_its_end(
    pg: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.store.postgres import bulk

    monkeypatch.setattr(bulk, "REBUILD_AT_LEAST", 100)
    vectors = clustered(400, seed=4)
    fill(pg, vectors[:100])
    with pg.index.bulk_vectors(50) as set_aside:  # too few: the index stays and grows row by row
        assert set_aside is False and _hnsw_indexes(pg) == ["memory_vectors_hnsw_384"]
    with pg.index.bulk_vectors(300) as set_aside:
        assert set_aside is True and _hnsw_indexes(pg) == []
        made = [(memory(i), IndexEntry(f"memory {i}", "1 March 2026", vectors[i].tobytes())) for i in range(100, 400)]
        pg.memories.insert_many(made)
        during = pg.index.vector_candidates("alice", vectors[7].tobytes(), filter=None, deleted="exclude", limit=10)
        assert positions(during) == exact_top(vectors, vectors[7], 10)  # exact meanwhile, never wrong
    assert _hnsw_indexes(pg) == ["memory_vectors_hnsw_384"]
    assert "Index Scan using memory_vectors_hnsw_384" in plan(pg, vectors[7].tobytes())
    after = pg.index.vector_candidates("alice", vectors[7].tobytes(), filter=None, deleted="exclude", limit=10)
    assert len(set(positions(after)) & set(exact_top(vectors, vectors[7], 10))) >= 9


def test_a_failed_bulk_load_still_builds_the_index_and_a_missing_one_is_built_on_open(
    pg: Store, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.store.postgres import bulk

    monkeypatch.setattr(bulk, "REBUILD_AT_LEAST", 10)
    pg.index.set_index_settings({"embedding_model": "test", "embedding_dimension": str(DIMENSION)})
    seen: list[list[str]] = []

    def failing_import() -> None:
        with pg.index.bulk_vectors(1_000):
            seen.append(_hnsw_indexes(pg))
            raise RuntimeError("the import failed")

    with pytest.raises(RuntimeError):
        failing_import()
    assert seen == [[]] and _hnsw_indexes(pg) == ["memory_vectors_hnsw_384"]
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # as a process killed during a load leaves it
        conn.execute("DROP INDEX memory_vectors_hnsw_384")
    again = open_store(postgres_url)
    assert _hnsw_indexes(pg) == ["memory_vectors_hnsw_384"]
    again.close()


def test_semantic_search_uses_the_hnsw_index_and_recalls_what_exact_search_finds(pg: Store) -> None:
    vectors = clustered(2000, seed=1)
    fill(pg, vectors)
    queries = clustered(40, seed=2)
    assert "Index Scan using memory_vectors_hnsw_384" in plan(pg, queries[0].tobytes())
    recall = []
    for q in queries:
        found = positions(pg.index.vector_candidates("alice", q.tobytes(), filter=None, deleted="exclude", limit=10))
        recall.append(len(set(found) & set(exact_top(vectors, q, 10))) / 10)
    print(f"recall@10 {np.mean(recall):.3f}")
    assert np.mean(recall) >= 0.95
    # scores are exact cosines, best first
    found = pg.index.vector_candidates("alice", queries[0].tobytes(), filter=None, deleted="exclude", limit=10)
    cosines = [float(vectors[i] @ queries[0]) for i in positions(found)]
    assert [s for _, s in found] == pytest.approx(cosines, abs=1e-5)
    assert cosines == sorted(cosines, reverse=True)


def test_a_selective_filter_still_finds_its_memories_through_the_index(
    pg: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = clustered(2000, seed=3)
    fill(pg, vectors, type=lambda i: "rare" if i % 100 == 7 else "note")
    rare = {i for i in range(2000) if i % 100 == 7}
    only_rare = parse_filter({"type": "rare"})
    q = vectors[1507]  # a rare one
    assert "Index Scan using memory_vectors_hnsw_384" in plan(pg, q.tobytes(), "m.type = 'rare'")
    # the index alone (it scans on past ef_search until ten pass) finds them
    approximate = positions(pg.index._approximate("alice", q.tobytes(), only_rare, "exclude", 10))
    assert len(approximate) == 10 and set(approximate) <= rare
    for exact_below in (0, search.EXACT_SEARCH_BELOW):  # through the index, and exact over the few that pass
        monkeypatch.setattr(search, "EXACT_SEARCH_BELOW", exact_below)
        found = positions(
            pg.index.vector_candidates("alice", q.tobytes(), filter=only_rare, deleted="exclude", limit=10)
        )
        assert found[0] == 1507
        assert set(found) <= rare
        assert len(set(found) & set(exact_top(vectors, q, 10, rare))) >= 9
        assert len(found) == 10


def test_when_fewer_memories_pass_than_asked_all_of_them_come_back(pg: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "EXACT_SEARCH_BELOW", 0)  # the index first: it runs dry, exact search answers
    vectors = clustered(2000, seed=4)
    fill(pg, vectors, tags=lambda i: ("kept",) if i in (5, 50, 500) else ())
    q = vectors[9]
    found = pg.index.vector_candidates(
        "alice", q.tobytes(), filter=parse_filter({"tags": "kept"}), deleted="exclude", limit=10
    )
    assert sorted(positions(found)) == [5, 50, 500]
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)


def test_other_users_and_other_dimensions_stay_out(pg: Store) -> None:
    vectors = clustered(20, seed=5)
    fill(pg, vectors[:10])
    fill(pg, vectors[10:], user="bob")
    found = pg.index.vector_candidates("alice", vectors[15].tobytes(), filter=None, deleted="exclude", limit=50)
    assert sorted(positions(found)) == list(range(10))
    assert pg.index.get_vector("alice", "m00003") == vectors[3].tobytes()  # float32 bytes round-trip exactly
    # a vector of another size (an embedder changed, not yet reindexed) scores 0, as on SQLite
    other = unit(np.ones((1, 8)))[0]
    pg.index.write_index_entries([(memory(3), IndexEntry("memory 3", "1 March 2026", other.tobytes()))])
    scores = dict(pg.index.vector_candidates("alice", vectors[3].tobytes(), filter=None, deleted="exclude", limit=50))
    assert scores["m00003"] == 0.0 and len(scores) == 10
    assert pg.index.cosines("alice", vectors[3].tobytes(), ["m00003", "m00004", "nope"]).keys() == {"m00003", "m00004"}


def test_soft_deleted_memories_are_searched_only_when_asked(pg: Store) -> None:
    vectors = clustered(30, seed=6)
    made = fill(pg, vectors, deleted_at=lambda i: T0 if i < 3 else None)
    q = vectors[1].tobytes()
    assert positions(pg.index.vector_candidates("alice", q, filter=None, deleted="only", limit=10))[0] == 1
    assert set(positions(pg.index.vector_candidates("alice", q, filter=None, deleted="only", limit=10))) == {0, 1, 2}
    assert not {0, 1, 2} & set(
        positions(pg.index.vector_candidates("alice", q, filter=None, deleted="exclude", limit=30))
    )
    assert made[1].is_deleted


def test_the_search_parameters_are_documented() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "postgres.md").read_text()
    assert f"| `m` | {search.HNSW_M} |" in doc
    assert f"| `ef_construction` | {search.HNSW_EF_CONSTRUCTION} |" in doc
    assert f"| `hnsw.ef_search` | at least {search.HNSW_EF_SEARCH} and" in doc
    assert f"WITH (m = {search.HNSW_M}, ef_construction = {search.HNSW_EF_CONSTRUCTION})" in doc
    assert f"at most {search.EXACT_SEARCH_BELOW:,} of the user's" in doc
    assert "stops at 10,001" in doc
    assert f"to more than {keyword_budget.RANK_BUDGET:,} rows (`RANK_BUDGET`" in doc


def test_older_pgvector_gets_no_iterative_scan_and_no_halfvec_index(pg: Store) -> None:
    assert pg.backend.pgvector >= (0, 8)  # the test server's
    assert search.pgvector_version("0.8.1") == (0, 8, 1) and search.pgvector_version(None) == (0,)
    assert len(search.hnsw_settings(10, (0, 7, 4))) == 1 and "iterative_scan" in search.hnsw_settings(10)[1]
    with pg.backend.db.write() as conn:
        search.ensure_vector_index(conn, 3072, (0, 6, 2))
        assert conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'memory_vectors_hnsw_%'"
        ).fetchone() == (0,)


@pytest.mark.parametrize(
    ("configured", "limit", "used"), [(None, 10, 200), ("40", 10, 200), ("300", 10, 300), (None, 500, 500)]
)
def test_ef_search_is_at_least_200_and_the_number_asked_unless_configured_higher(
    pg: Store, configured: str | None, limit: int, used: int
) -> None:
    with pg.backend.db.read() as conn:
        conn.execute("SELECT NULL::vector")  # pgvector loaded, as in a search
        if configured is not None:
            conn.execute(f"SET hnsw.ef_search = {configured}")  # as ALTER DATABASE … SET would
        with conn.transaction():
            for setting in search.hnsw_settings(limit):
                conn.execute(setting)
            assert conn.execute("SHOW hnsw.ef_search").fetchone() == (str(used),)
        conn.execute("RESET hnsw.ef_search")


def test_statements_run_again_are_planned_for_their_own_parameters(pg: Store) -> None:
    """psycopg prepares a statement run five times; PostgreSQL would then plan it once for any terms
    (a word in 50 memories or in 50,000). Every pooled connection plans for the parameters given."""
    sql = "SELECT count(*) FROM memory_index WHERE user_id = %s AND keywords @@ phraseto_tsquery('english', %s)"
    with pg.backend.db.read() as conn:
        for i in range(15):
            conn.execute(sql, ("alice", f"word{i}"))
        plans = conn.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ("%phraseto_tsquery('english', $2)",),
        ).fetchone()
    assert plans is not None  # prepared, as psycopg does
    generic, custom = plans
    assert generic == 0 and custom >= 5


# keywords


@pytest.mark.parametrize(
    "terms", [["'"], ["&", "|", "!"], ["a:*"], ["<->"], ["\\"], ['"'], ["don't"], ["the", "of"], ["x" * 3000]]
)
def test_any_term_is_only_text_to_match(pg: Store, terms: list[str]) -> None:
    pg.memories.insert(memory(1), IndexEntry("plain words", "1 March 2026", None))
    assert pg.index.keyword_candidates("alice", terms, filter=None, deleted="exclude", limit=5) == []
    _, counts = pg.index.term_document_counts("alice", terms, cap=100)
    assert counts == [0] * len(terms)


def test_content_and_date_outrank_context_and_rare_terms_outrank_common_ones(pg: Store) -> None:
    chat = {"conversation_id": "c1"}
    entries = [
        (memory(1, content="Tom asked about the guitar", context=chat), "Tom asked about the guitar"),
        (memory(2, content="about seven years", context=chat), "about seven years"),  # guitar in its context
        (memory(3, content="my guitar"), "my guitar"),
        (memory(4, content="paid the bill"), "paid the bill"),
        (memory(5, content="paid the rent"), "paid the rent"),
        (memory(6, content="paid the zither tax"), "paid the zither tax"),
    ]
    pg.memories.insert_many([(m, IndexEntry(text, "8 May 2023", None)) for m, text in entries])
    found = pg.index.keyword_candidates("alice", ["guitar"], filter=None, deleted="exclude", limit=10)
    ids = [i for i, _ in found]
    assert set(ids[:2]) == {"m00001", "m00003"} and ids[2] == "m00002"
    scores = dict(found)
    assert scores["m00002"] == pytest.approx(scores["m00003"] / 2, rel=0.01)  # context weighs half
    found = pg.index.keyword_candidates("alice", ["paid", "zither"], filter=None, deleted="exclude", limit=10)
    assert found[0][0] == "m00006"
    assert {i for i, _ in found} == {"m00004", "m00005", "m00006"}
    # the date words, stemmed; a filter and the deletion state narrow in SQL
    assert len(pg.index.keyword_candidates("alice", ["may", "2023"], filter=None, deleted="exclude", limit=10)) == 6
    only_three = parse_filter({"content": {"contains": "my"}})
    assert [
        i for i, _ in pg.index.keyword_candidates("alice", ["guitars"], filter=only_three, deleted="exclude", limit=9)
    ] == ["m00003"]
    assert pg.index.keyword_candidates("alice", ["guitar"], filter=None, deleted="only", limit=10) == []
    assert pg.index.keyword_candidates("bob", ["guitar"], filter=None, deleted="include", limit=10) == []


def test_term_counts_are_the_users_own_and_capped(pg: Store) -> None:
    batch = [
        (memory(i), IndexEntry(f"common {'rare' if i < 5 else 'word'} n{i}", "1 March 2026", None)) for i in range(600)
    ]
    pg.memories.insert_many(batch)
    assert pg.index.term_document_counts("alice", ["common", "rare", "running", "nothing"], cap=1000) == (
        600,
        [600, 5, 0, 0],
    )
    assert pg.index.term_document_counts("alice", ["common", "rare"], cap=100) == (600, [100, 5])
    assert pg.index.term_document_counts("bob", ["common", "rare"], cap=1000) == (0, [0, 0])


def test_common_terms_of_a_user_who_holds_the_table_come_from_its_statistics(
    pg: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term ANALYZE found in enough rows is counted from its share of the sample, without a row
    read, for a user holding (nearly) every row; with other users' memories beside theirs, every
    term is counted."""
    from remember.store.postgres import common_terms

    def text(i: int) -> str:
        return f"common {'often' if i % 5 < 3 else 'seldom'} {'rare' if i < 5 else 'plain'} n{i}"

    pg.memories.insert_many([(memory(i), IndexEntry(text(i), "1 March 2026", None)) for i in range(1_200)])
    with pg.backend.db.write() as conn:
        conn.execute("ANALYZE memory_index")
    with pg.backend.db.read() as conn:
        estimated = pg.index.common_terms.estimated(conn, 1_200, ["common", "often", "rare", "nothing"], 500)
        assert estimated == {"common": 500, "often": 500}  # at the cap
        # past the cap's reach: the sample's share, from ESTIMATED_FROM memories on ("often": 720)
        assert pg.index.common_terms.estimated(conn, 1_200, ["common", "often"], 5_000) == {"common": 1_200}
    assert pg.index.term_document_counts("alice", ["common", "often", "rare"], cap=500) == (1_200, [500, 500, 5])
    pg.memories.insert_many(
        [(memory(2_000 + i, user="bob"), IndexEntry(f"common n{i}", "1 March 2026", None)) for i in range(300)]
    )
    with pg.backend.db.write() as conn:
        conn.execute("ANALYZE memory_index")
    monkeypatch.setattr(common_terms, "SECONDS", 0.0)  # read the statistics again
    with pg.backend.db.read() as conn:
        assert (
            pg.index.common_terms.estimated(conn, 1_200, ["common", "often"], 500) == {}
        )  # 1,200 of 1,500: not theirs


def test_a_common_terms_count_follows_the_share_at_the_last_analyze(pg: Store, postgres_url: str) -> None:
    """The statistics give a share of the user's memories, not a count: memories written since the
    table was analyzed move the estimate with the user's total, until the next ANALYZE."""
    pg.memories.insert_many([(memory(i), IndexEntry(f"lantern n{i}", "1 March 2026", None)) for i in range(1_500)])
    with pg.backend.db.write() as conn:
        conn.execute("ANALYZE memory_index")
    assert pg.index.term_document_counts("alice", ["lantern"], cap=5_000) == (1_500, [1_500])
    pg.memories.insert_many([(memory(3_000 + i), IndexEntry(f"meadow n{i}", "1 March 2026", None)) for i in range(500)])
    fresh = open_store(postgres_url)  # no cached counts or statistics
    try:
        assert fresh.index.term_document_counts("alice", ["lantern", "meadow"], cap=5_000) == (2_000, [2_000, 500])
    finally:
        fresh.close()


def test_the_keywords_keep_ten_thousand_common_lexemes(pg: Store) -> None:
    with pg.backend.db.read() as conn:
        row = conn.execute(
            "SELECT attstattarget FROM pg_attribute WHERE attrelid = 'memory_index'::regclass AND attname = 'keywords'"
        ).fetchone()
    assert row is not None and row[0] == 1_000  # ANALYZE keeps ten times as many common lexemes


def test_term_counts_are_reused_for_a_few_seconds(pg: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(term_stats.time, "monotonic", lambda: clock[0])
    pg.memories.insert_many([(memory(i), IndexEntry("alpha", "1 March 2026", None)) for i in range(3)])
    assert pg.index.term_document_counts("alice", ["alpha"], cap=100) == (3, [3])
    pg.memories.insert_many([(memory(i), IndexEntry("alpha beta", "1 March 2026", None)) for i in range(3, 5)])
    assert pg.index.term_document_counts("alice", ["alpha", "beta"], cap=100) == (3, [3, 2])  # alpha reused
    assert pg.index.term_document_counts("alice", ["alpha"], cap=2) == (3, [2])
    assert pg.index.term_document_counts("bob", ["alpha"], cap=100) == (0, [0])  # per user
    clock[0] += term_stats.SECONDS
    assert pg.index.term_document_counts("alice", ["alpha"], cap=2) == (5, [2])  # counted again, up to 2
    assert pg.index.term_document_counts("alice", ["alpha"], cap=100) == (5, [5])  # 2 of at most 2: counted further


def test_scores_stay_positive_when_memories_arrive_within_the_cached_total(pg: Store) -> None:
    pg.memories.insert(memory(0), IndexEntry("something else", "1 March 2026", None))
    assert (
        pg.index.keyword_candidates("alice", ["alpha"], filter=None, deleted="exclude", limit=5) == []
    )  # total cached: 1
    pg.memories.insert_many(
        [(memory(i), IndexEntry("alpha " * (1 + i % 3) + "beta", "1 March 2026", None)) for i in range(1, 41)]
    )
    found = pg.index.keyword_candidates("alice", ["alpha"], filter=None, deleted="exclude", limit=50)
    assert len(found) == 40 and all(score > 0 for _, score in found)
    assert found[0][1] > found[-1][1]  # three mentions outrank one, as with an exact total


def test_concurrent_writes_to_one_conversation_keep_one_chain(pg: Store) -> None:
    chat = {"conversation_id": "c1"}

    def write(n: int) -> None:
        for k in range(10):
            i = n * 100 + k
            pg.memories.insert(
                memory(i, content=f"turn {i}", context=chat), IndexEntry(f"turn {i}", "1 March 2026", None)
            )

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    chain = rows(
        pg.backend.db.target.conninfo,
        "SELECT s.memory_id, s.seq, s.context_of, s.context, p.content FROM memory_index s "
        "LEFT JOIN memories p ON p.user_id = s.user_id AND p.id = s.context_of ORDER BY s.seq",
    )
    assert [r[1] for r in chain] == list(range(1, 61))  # one sequence, no number twice
    assert chain[0][2] is None
    for before, after in itertools.pairwise(chain):
        assert after[2] == before[0]  # each one's context is the one written just before it
        assert after[3] == after[4]
