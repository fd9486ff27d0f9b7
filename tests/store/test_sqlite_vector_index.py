"""The approximate vector index of SQLite (store/sqlite/ann.py), at a small size with its threshold lowered.

Every answer is compared with exact search over the same store (the threshold
raised again), so these tests fail if the index loses a neighbour, returns a
memory it should not, or misses a change made since its file was written.
"""

from __future__ import annotations

import itertools
import logging
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from remember.caller import Caller
from remember.config import VECTOR_INDEX_MIN
from remember.errors import StoreError
from remember.filters import Filter, parse_filter
from remember.models import DeletedMode
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import Store, open_store
from remember.store.sqlite import ann, approximate, vector_file
from remember.store.sqlite.store import SqliteBackend
from remember.store.sqlite.vector_file import VectorFile, vectors_path

USER = "alice"
SUBJECTS = ["my sister", "the landlord", "our dentist", "the piano teacher", "a colleague", "the neighbour's dog"]
VERBS = ["called about", "complained about", "reminded me of", "asked me to book", "forgot", "paid for"]
OBJECTS = ["the rent", "a hiking trip", "the flu shot", "concert tickets", "the broken boiler", "a birthday cake",
           "tax forms", "the car service", "a yoga class", "the wedding gift", "new glasses", "a fence"]  # fmt: skip
WHEN = ["on Monday", "last week", "in March", "yesterday", "before the holidays"]
QUERIES = ["who asked about the boiler?", "birthday plans", "money for the apartment", "doctor appointments",
           "music lessons", "exercise", "presents for a wedding", "car repairs", "taxes"]  # fmt: skip
SMALL = 50  # the threshold in these tests: every user here is past it


def _texts(count: int) -> list[str]:
    combos = list(itertools.product(SUBJECTS, VERBS, OBJECTS, WHEN))
    random.Random(7).shuffle(combos)
    return [" ".join(c) + f" (note {i})" for i, c in enumerate(combos[:count])]


def _store(services: Services) -> Store:
    assert isinstance(services.store.backend, SqliteBackend)
    return services.store


def _open(path: Path, embedder: MiniLMEmbedder) -> Services:
    services = Services.over(open_store(str(path)), embedder=embedder)
    _store(services).index.vector_index_min = SMALL
    return services


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "many.db"


@pytest.fixture
def services(db: Path, embedder: MiniLMEmbedder) -> Iterator[Services]:
    services = _open(db, embedder)
    made = services.memories.create_many(Caller(USER), [{"content": t} for t in _texts(300)])
    for memory in made[::10]:
        services.memories.update(Caller(USER), memory.id, {"tags": ["tenth"]})
    yield services
    services.close()


def _query(embedder: MiniLMEmbedder, text: str) -> bytes:
    return np.asarray(embedder.embed([text])[0], dtype=np.float32).tobytes()


# The index scores with float16 copies of the unit vectors: each term of the cosine is off by at most
# 2**-11 of itself, so the cosine by at most 2**-11 (Cauchy-Schwarz).
FLOAT16 = 2**-11


def _search(
    services: Services,
    vector: bytes,
    *,
    exact: bool = False,
    filter: Filter | None = None,
    deleted: DeletedMode = "exclude",
    limit: int = 10,
) -> list[tuple[str, float]]:
    store = _store(services)
    store.index.vector_index_min = 10**9 if exact else SMALL
    try:
        return store.index.vector_candidates(USER, vector, filter=filter, deleted=deleted, limit=limit)
    finally:
        store.index.vector_index_min = SMALL


def _agree(services: Services, vector: bytes, **kwargs: object) -> list[tuple[str, float]]:
    """The approximate answer, checked against exact search: the same scores in the same order, each
    memory's score its exact one, and a memory exact search does not return only in a tie at the end
    (scores equal to float16 precision may swap: the index scores with its float16 copy)."""
    found = _search(services, vector, **kwargs)  # type: ignore[arg-type]
    expected = _search(services, vector, exact=True, **kwargs)  # type: ignore[arg-type]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=FLOAT16)
    exact_scores = dict(expected)
    for memory_id, score in found:
        assert score == pytest.approx(exact_scores.get(memory_id, expected[-1][1]), abs=FLOAT16)
    return found


def _ids(found: list[tuple[str, float]]) -> list[str]:
    return [i for i, _ in found]


def _files(db: Path) -> list[Path]:
    return sorted(Path(str(db) + ".vectors").glob("*.usearch"))


def test_the_index_answers_as_exact_search_does(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    for question in QUERIES:
        for limit in (1, 10, 50):
            assert len(_agree(services, _query(embedder, question), limit=limit)) == limit
    assert len(_files(db)) == 1  # written beside the database


def test_below_the_threshold_no_index_is_made(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    _search(services, _query(embedder, QUERIES[0]), exact=True)
    assert _files(db) == []


def test_by_default_users_below_the_threshold_are_searched_exactly(db: Path, embedder: MiniLMEmbedder) -> None:
    services = Services.over(open_store(str(db)), embedder=embedder)
    services.memories.create_many(Caller(USER), [{"content": t} for t in _texts(2 * SMALL)])
    assert _store(services).index.vector_index_min == VECTOR_INDEX_MIN
    _store(services).index.vector_candidates(
        USER, _query(embedder, QUERIES[0]), filter=None, deleted="exclude", limit=5
    )
    assert _files(db) == [] and _store(services).index._vectors is not None  # the exact in-memory path
    services.close()
    chosen = open_store(str(db), vector_index_min=SMALL)
    assert isinstance(chosen.backend, SqliteBackend) and chosen.index.vector_index_min == SMALL
    chosen.close()
    exact = open_store(str(db), vector_index_min=None)
    assert isinstance(exact.backend, SqliteBackend) and exact.index.build_vector_index(USER, 384) is False
    exact.close()


def test_a_large_user_is_searched_exactly_while_the_index_builds_apart(
    services: Services, db: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No search waits for a large build: it runs in a thread of its own while searches are exact."""
    from remember.store.sqlite import approximate

    monkeypatch.setattr(approximate, "BUILD_INLINE_AT", 10)  # 300 rows are "many"
    store = _store(services)
    started = threading.Event()
    release = threading.Event()
    build = ann.UserIndex.build

    def held_build(self: ann.UserIndex, read_rows: ann.KeyedRows, progress: object = None) -> None:
        started.set()
        assert release.wait(60)
        build(self, read_rows)

    monkeypatch.setattr(ann.UserIndex, "build", held_build)
    vector = _query(embedder, QUERIES[4])
    during = store.index.vector_candidates(USER, vector, filter=None, deleted="exclude", limit=10)
    assert started.wait(60) and _files(db) == []
    assert store.index._vectors is not None and len(store.index._vectors._users) == 1  # answered by the exact matrix
    assert during == _search(services, vector, exact=True)
    made = services.memories.create(Caller(USER), {"content": "Piano lessons moved to Thursday evenings"})
    release.set()
    assert store.index._approximate is not None
    (thread,) = store.index._approximate._builders.values()
    thread.join(60)
    assert len(_files(db)) == 1
    _search(services, vector)
    assert store.index._approximate._indexes[USER, 384].base is not None  # answered through the index
    assert not store.index._vectors._users  # and the matrix is dropped
    _agree(services, vector)
    assert made.id in _ids(_agree(services, _query(embedder, "piano lessons on Thursday"), limit=3))


def test_closing_the_store_stops_a_background_build(
    db: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.store.sqlite import approximate

    monkeypatch.setattr(approximate, "BUILD_INLINE_AT", 10)
    monkeypatch.setattr(approximate, "KEY_CHUNK", 16)  # many chunks: the build checks between them
    services = _open(db, embedder)
    services.memories.create_many(Caller(USER), [{"content": t} for t in _texts(300)])
    store = _store(services)
    reading = threading.Event()
    rows = approximate.keyed_rows

    def slow_rows(db_: object, user_id: str, after_seq: int) -> Iterator[list[tuple[int, int, bytes | None]]]:
        for chunk in rows(db_, user_id, after_seq):  # type: ignore[arg-type]
            reading.set()
            time.sleep(0.05)
            yield chunk

    monkeypatch.setattr(approximate, "keyed_rows", slow_rows)
    store.index.vector_candidates(USER, _query(embedder, QUERIES[0]), filter=None, deleted="exclude", limit=5)
    assert reading.wait(60)
    services.close()  # returns once the build has stopped
    assert store.index._approximate is not None
    assert not any(t.is_alive() for t in store.index._approximate._builders.values())
    assert _files(db) == []  # a half-built graph is never written
    assert not list(Path(str(db) + ".vectors").glob("*.tmp")) if Path(str(db) + ".vectors").exists() else True


def test_an_explicit_build_makes_the_file_before_any_search(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    store = _store(services)
    seen: list[tuple[int, int]] = []
    assert store.index.build_vector_index(USER, 384, lambda done, total: seen.append((done, total))) is True
    assert len(_files(db)) == 1 and seen[-1] == (300, 300) and seen == sorted(seen)
    assert store.index._approximate is not None and store.index._approximate._indexes[USER, 384].base is not None
    _agree(services, _query(embedder, QUERIES[5]))


def test_recall_of_the_graph_alone(services: Services, embedder: MiniLMEmbedder) -> None:
    """The index alone (the graph's proposals chosen by their float16 vectors) finds most of the exact top 10."""
    store = _store(services)
    _search(services, _query(embedder, QUERIES[0]))
    assert store.index._approximate is not None
    (index,) = store.index._approximate._indexes.values()
    hits = 0
    for question in QUERIES:
        vector = _query(embedder, question)
        expected = {i for i, _ in _search(services, vector, exact=True)}
        keys = list(index.nearest(vector, 10))
        with store.backend.db.read() as conn:
            marks = ",".join("?" * len(keys))
            found = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE rowid IN ({marks})", keys)}
        hits += len(found & expected)
    assert hits / (10 * len(QUERIES)) >= 0.9


def test_a_missing_or_damaged_index_is_rebuilt(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    vector = _query(embedder, QUERIES[1])
    before = _agree(services, vector)
    services.close()
    shutil.rmtree(str(db) + ".vectors")
    again = _open(db, embedder)
    assert _ids(_agree(again, vector)) == _ids(before)
    (path,) = _files(db)
    again.close()
    path.write_bytes(b"not an index at all" * 100)
    damaged = _open(db, embedder)
    assert _ids(_agree(damaged, vector)) == _ids(before)
    damaged.close()


def test_an_old_file_is_caught_up_and_an_impossible_one_rebuilt(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    vector = _query(embedder, "the boiler broke again and flooded the kitchen")
    _agree(services, vector)
    (old,) = _files(db)
    kept = old.read_bytes()
    made = services.memories.create(Caller(USER), {"content": "The boiler broke again and flooded the kitchen"})
    services.close()
    fresh = _open(db, embedder)  # a new process finds the file written before the new memory
    assert _agree(fresh, vector)[0][0] == made.id
    fresh.close()
    for path in _files(db):
        path.unlink()
    seq = int(old.stem.rpartition("-")[2])
    (old.parent / f"{old.stem.rpartition('-')[0]}-{seq + 10_000}.usearch").write_bytes(kept)  # from the future
    future = _open(db, embedder)
    assert _agree(future, vector)[0][0] == made.id
    assert [p.stem.endswith(f"-{seq + 10_000}") for p in _files(db)] == [False]  # replaced
    future.close()


def test_a_float16_graph_of_an_earlier_version_is_rebuilt_as_bits(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    vector = _query(embedder, QUERIES[2])
    before = _agree(services, vector)
    (path,) = _files(db)
    services.close()
    fresh = ann._index_class().restore(str(path), view=False)
    assert fresh is not None and str(fresh.dtype).endswith("B1")
    rows = VectorFile.opened(vectors_path(path), 384)
    assert rows is not None and len(rows) == len(fresh)
    old = ann._index_class()(ndim=384, metric="cos", dtype="f16")
    old.add(rows.keys, rows.between(0, len(rows)).astype(np.float32))
    old.save(str(path))
    again = _open(db, embedder)
    assert _ids(_agree(again, vector)) == _ids(before)
    (rebuilt,) = _files(db)
    restored = ann._index_class().restore(str(rebuilt), view=True)
    assert restored is not None and str(restored.dtype).endswith("B1")
    again.close()


@pytest.mark.parametrize("damage", ["missing", "garbage", "tiny", "short", "other dimension"])
def test_a_graph_without_its_vectors_file_is_rebuilt(
    services: Services, db: Path, embedder: MiniLMEmbedder, damage: str
) -> None:
    vector = _query(embedder, QUERIES[1])
    before = _agree(services, vector)
    (path,) = _files(db)
    services.close()
    rows = vectors_path(path)
    good = rows.read_bytes()
    if damage == "missing":
        rows.unlink()
    elif damage == "garbage":
        rows.write_bytes(b"not vectors" * 100)
    elif damage == "tiny":
        rows.write_bytes(good[:5])
    elif damage == "short":
        rows.write_bytes(good[:-2])
    else:
        VectorFile.in_memory(np.asarray([1, 2], dtype=np.uint64), np.ones((2, 8), dtype=np.float32)).write(rows)
    again = _open(db, embedder)
    assert _ids(_agree(again, vector)) == _ids(before)
    (rebuilt,) = _files(db)
    assert VectorFile.opened(vectors_path(rebuilt), 384) is not None
    again.close()


@pytest.mark.parametrize("use", ["search", "filtered", "cosines", "fold"])
def test_a_vectors_file_damaged_under_a_running_server_is_rebuilt(
    services: Services,
    db: Path,
    embedder: MiniLMEmbedder,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    use: str,
) -> None:
    vector = _query(embedder, QUERIES[0])
    before = _agree(services, vector)
    services.close()
    monkeypatch.setattr(vector_file, "IN_MEMORY_AT_MOST", 0)  # rows read from the file, as a large one's are
    running = _open(db, embedder)
    try:
        assert _ids(_agree(running, vector)) == _ids(before)
        (path,) = _files(db)
        rows = vectors_path(path)
        opened = VectorFile.opened(rows, 384)
        assert opened is not None
        count = len(opened)
        del opened
        os.truncate(rows, vector_file.HEADER + 8 * count + 100)  # the keys are whole, the rows cut away
        with caplog.at_level(logging.WARNING, logger=approximate.__name__):
            if use == "search":
                assert _ids(_agree(running, vector)) == _ids(before)
            elif use == "filtered":
                _agree(running, vector, filter=parse_filter({"tags": "tenth"}))
            elif use == "cosines":
                scores = _store(running).index.cosines(USER, vector, _ids(before))
                assert [scores[i] for i in _ids(before)] == pytest.approx([s for _, s in before], abs=FLOAT16)
            else:  # enough changes that the next search folds them into a new file, reading the old one
                monkeypatch.setattr(ann, "FOLD_AT", 2)
                for memory_id in _ids(before)[-3:]:
                    running.memories.update(Caller(USER), memory_id, {"tags": ["changed"]})
                assert _ids(_agree(running, vector)) == _ids(before)
        assert "cut short" in caplog.text and "rebuilt from the database" in caplog.text
        assert not rows.exists()  # discarded
        assert _ids(_agree(running, vector)) == _ids(before)  # the next search builds the index again
        (rebuilt,) = _files(db)
        fresh = VectorFile.opened(vectors_path(rebuilt), 384)
        assert fresh is not None and len(fresh) == count
    finally:
        running.close()


def test_the_vectors_file_gives_each_key_its_row() -> None:
    keys = np.asarray([42, 7, 1_000_000_007, 3], dtype=np.uint64)
    rows = np.arange(4 * 6, dtype=np.float32).reshape(4, 6) / 10
    made = VectorFile.in_memory(keys, rows)
    assert made.keys.tolist() == sorted(keys.tolist())
    ordered = VectorFile.in_memory(np.sort(keys), rows[np.argsort(keys)])
    assert ordered.keys.tolist() == made.keys.tolist() and np.array_equal(ordered.between(0, 4), made.between(0, 4))
    got = made.get([7, 8, 1_000_000_007, 0, 99_999_999_999])
    assert set(got) == {7, 1_000_000_007}
    np.testing.assert_allclose(got[7], rows[1], atol=1e-3)
    np.testing.assert_allclose(got[1_000_000_007], rows[2], atol=1e-3)
    empty = VectorFile.in_memory(np.zeros(0, dtype=np.uint64), np.zeros((0, 6)))
    assert empty.get([1]) == {}
    assert len(empty.merged({1}, np.zeros(0, dtype=np.uint64), np.zeros((0, 6)))) == 0
    assert set(empty.merged(set(), np.asarray([5], dtype=np.uint64), np.ones((1, 6))).get([5])) == {5}


def test_the_vectors_file_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "CHUNK", 777)  # several chunks, the last one partial
    rng = np.random.default_rng(3)
    keys = rng.choice(10**9, size=5_000, replace=False).astype(np.uint64)
    rows = rng.standard_normal((5_000, 384)).astype(np.float32)
    path = tmp_path / "v.f16"
    VectorFile.in_memory(keys, rows).write(path)
    opened = VectorFile.opened(path, 384)
    assert opened is not None and len(opened) == 5_000
    picked = [int(k) for k in keys[::97]]
    got = opened.get(picked)
    for key in picked:
        np.testing.assert_allclose(got[key], rows[int(np.nonzero(keys == key)[0][0])], rtol=1e-3, atol=1e-3)
    gone, new_key = int(keys[0]), 10**9 + 1
    replacing = rng.standard_normal((2, 384))
    merged = opened.merged({gone, int(keys[1])}, np.asarray([new_key, int(keys[1])]), replacing)
    assert (
        len(merged) == 5_000 and gone not in merged.get([gone]) and merged.keys.tolist() == sorted(merged.keys.tolist())
    )
    np.testing.assert_allclose(merged.get([int(keys[2])])[int(keys[2])], rows[2], rtol=1e-3, atol=1e-3)
    changed = merged.get([new_key, int(keys[1])])
    np.testing.assert_allclose(changed[new_key], replacing[0], rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(changed[int(keys[1])], replacing[1], rtol=1e-2, atol=1e-2)
    assert VectorFile.opened(path, 768) is None  # of another dimension


@pytest.mark.parametrize("rows_are", ["read where they lie", "in memory"])
def test_the_vectors_file_reads_its_rows_and_closes_once_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_are: str
) -> None:
    if rows_are == "read where they lie":
        monkeypatch.setattr(vector_file, "IN_MEMORY_AT_MOST", 400 * 16 * 2 - 1)  # one byte short
    rng = np.random.default_rng(4)
    keys = np.arange(10, 410, dtype=np.uint64)
    rows = rng.standard_normal((400, 16)).astype(np.float32)
    path = tmp_path / "v.f16"
    VectorFile.in_memory(keys, rows).write(path)
    opened = VectorFile.opened(path, 16)
    assert opened is not None
    asked = [399, 12, 250, 11, 398]  # out of file order: answered in the order asked
    held, got = opened.rows_of(asked)
    assert held.tolist() == asked
    np.testing.assert_allclose(got, rows[[k - 10 for k in asked]], rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(opened.between(390, 500), rows[390:].astype(np.float16))
    descriptors = len(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    del opened
    if descriptors is not None:  # the in-memory one closed its file once read
        assert len(os.listdir("/proc/self/fd")) == descriptors - (rows_are == "read where they lie")


def test_a_vectors_file_cut_short_while_open_fails_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_file, "IN_MEMORY_AT_MOST", 0)
    path = tmp_path / "v.f16"
    VectorFile.in_memory(np.arange(100, dtype=np.uint64), np.ones((100, 8), dtype=np.float32)).write(path)
    opened = VectorFile.opened(path, 8)
    assert opened is not None
    os.truncate(path, path.stat().st_size - 16 * 10)  # another program cuts it under the process
    assert set(opened.get([0, 5])) == {0, 5}
    with pytest.raises(StoreError, match=r"cut short.*rebuilt"):
        opened.get([99])
    with pytest.raises(StoreError, match=r"cut short.*rebuilt"):  # one short row among those read at once
        opened.get([0, 5, 50, 99])
    assert opened.get([0, 5, 50])[50] == pytest.approx(np.ones(8))


def test_deleted_restored_updated_and_purged_memories(services: Services, embedder: MiniLMEmbedder) -> None:
    vector = _query(embedder, QUERIES[0])
    top = _agree(services, vector)[0][0]
    services.memories.delete(Caller(USER), top)
    assert top not in dict(_agree(services, vector))
    assert top in dict(_agree(services, vector, deleted="only"))
    assert top in dict(_agree(services, vector, deleted="include", limit=50))
    services.memories.restore(Caller(USER), top)
    assert _agree(services, vector)[0][0] == top
    far = _agree(services, _query(embedder, "completely unrelated: quantum chromodynamics"), limit=1)[0][0]
    services.memories.update(Caller(USER), far, {"content": QUERIES[0]})
    assert _agree(services, vector)[0][0] == far
    services.memories.delete(Caller(USER), far, permanent=True)
    assert far not in dict(_agree(services, vector, deleted="include", limit=50))


@pytest.mark.parametrize(
    "spec", [{"tags": "tenth"}, {"weight": {"gte": 0}}, {"not": {"tags": "tenth"}}], ids=["few", "all", "most"]
)
def test_filters_select_exactly(services: Services, embedder: MiniLMEmbedder, spec: dict[str, object]) -> None:
    tree = parse_filter(spec)
    with _store(services).index.db.read() as conn:
        tagged = {r[0] for r in conn.execute("SELECT id FROM memories WHERE tags LIKE '%tenth%'")}
    assert len(tagged) == 30
    for question in QUERIES[:4]:
        found = _agree(services, _query(embedder, question), filter=tree, limit=20)
        assert len(found) == 20
        if spec == {"tags": "tenth"}:
            assert {i for i, _ in found} <= tagged
        if "not" in spec:
            assert not {i for i, _ in found} & tagged


def test_a_filtered_search_scores_changes_since_the_file_and_works_before_any_file(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    tree = parse_filter({"tags": "tenth"})
    vector = _query(embedder, "a violin lesson for my niece")
    _agree(services, vector)  # the file is written
    made = services.memories.create(Caller(USER), {"content": "A violin lesson for my niece", "tags": ["tenth"]})
    moved = services.memories.list(Caller(USER), limit=100).items[-1]
    services.memories.update(
        Caller(USER), moved.id, {"content": "My niece's violin lesson was moved", "tags": ["tenth"]}
    )
    found = _agree(services, vector, filter=tree, limit=5)  # both are in the index's delta, not its file
    assert {made.id, moved.id} <= set(_ids(found))
    services.close()
    shutil.rmtree(str(db) + ".vectors")
    again = _open(db, embedder)
    assert _ids(_agree(again, vector, filter=tree, limit=5)) == _ids(found)  # no file yet: from the database
    assert _files(db) == []
    again.close()


def test_a_broad_filter_that_the_nearest_fail_falls_back_to_exact(
    services: Services, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.store.sqlite import approximate

    monkeypatch.setattr(approximate, "EXACT_AT_MOST", 5)  # the tagged memories are "many"
    monkeypatch.setattr(approximate, "MAX_REACH", 150)
    tree = parse_filter({"tags": "tenth"})
    for question in QUERIES[:3]:
        assert len(_agree(services, _query(embedder, question), filter=tree, limit=30)) == 30


def test_another_process_writes_are_seen(services: Services, db: Path, embedder: MiniLMEmbedder) -> None:
    vector = _query(embedder, "a parrot that sings opera at dawn")
    _agree(services, vector)
    other = _open(db, embedder)
    made = other.memories.create(Caller(USER), {"content": "A parrot that sings opera at dawn"})
    assert _agree(services, vector)[0][0] == made.id
    other.memories.delete(Caller(USER), made.id)
    assert made.id not in dict(_agree(services, vector))
    other.close()


def test_many_changes_are_folded_into_a_new_file(
    services: Services, db: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ann, "FOLD_AT", 5)
    vector = _query(embedder, QUERIES[2])
    _agree(services, vector)
    (first,) = _files(db)
    services.memories.create_many(Caller(USER), [{"content": f"rent money for the flat, part {i}"} for i in range(8)])
    _agree(services, vector)
    (second,) = _files(db)
    assert second != first  # the older file is gone, the newer one holds the changes
    services.close()
    later = _open(db, embedder)
    assert _agree(later, vector)
    later.close()


def test_cosines_are_exact_without_loading_the_matrix(services: Services, embedder: MiniLMEmbedder) -> None:
    store = _store(services)
    vector = _query(embedder, QUERIES[3])
    ids = [m.id for m in services.memories.list(Caller(USER), limit=20).items]
    found = store.index.cosines(USER, vector, [*ids, "no-such-memory"])
    assert store.index._vectors is None  # the in-memory matrix was never loaded
    store.index.vector_index_min = 10**9
    assert found == pytest.approx(store.index.cosines(USER, vector, ids), rel=1e-6, abs=1e-7)


def test_cosines_come_from_the_open_index_and_the_changes_since(
    services: Services, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    from_database = approximate.stored_cosines

    def stored(db: object, user_id: str, vector: bytes, memory_ids: list[str]) -> dict[str, float]:
        asked.extend(memory_ids)
        return from_database(db, user_id, vector, memory_ids)  # type: ignore[arg-type]

    monkeypatch.setattr(approximate, "stored_cosines", stored)
    store = _store(services)
    vector = _query(embedder, QUERIES[4])
    _agree(services, vector)  # the index is open now
    changed = services.memories.create(Caller(USER), {"content": "a cello lesson on Thursday"})
    _agree(services, vector)  # a search catches the index up: the new memory is in its delta
    ids = [m.id for m in services.memories.list(Caller(USER), limit=30).items if m.id != changed.id]
    services.memories.create(Caller("bob"), {"content": "bob's own piano lesson"})
    bobs = services.memories.list(Caller("bob"), limit=1).items[0].id
    found = store.index.cosines(USER, vector, [*ids, changed.id, "no-such-memory", bobs])
    assert sorted(asked) == sorted(["no-such-memory", bobs])  # only what the index cannot have
    assert set(found) == {*ids, changed.id}  # nothing for an unknown id, nor for another user's memory
    store.index.vector_index_min = 10**9
    exact = store.index.cosines(USER, vector, [*ids, changed.id])
    assert found == pytest.approx(exact, abs=FLOAT16)
    assert found[changed.id] == pytest.approx(exact[changed.id], abs=1e-6)  # the delta keeps float32


def test_hybrid_search_through_the_service(services: Services) -> None:
    hits = services.search.search(Caller(USER), "who complained about the broken boiler", limit=5)
    assert len(hits.hits) == 5


def test_the_model_still_loads_after_the_index_library() -> None:
    """A server may search by a stored vector (find similar) before it first embeds a text."""
    code = (
        "from remember.store.sqlite import ann; ann._new_index(8); "
        "from remember.search.embedders import MiniLMEmbedder; print(MiniLMEmbedder().embed(['ok']).shape)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(1, 384)" in done.stdout


def test_a_memory_is_its_own_nearest_neighbour_through_the_index(services: Services) -> None:
    """Searching by a stored memory's own vector finds that memory first (cosine 1), as exact search does."""
    store = _store(services)
    with store.backend.db.read() as conn:
        rows = conn.execute(
            "SELECT memory_id, vector FROM memory_index WHERE user_id = ? ORDER BY seq LIMIT 300", (USER,)
        ).fetchall()
    assert len(rows) == 300
    for memory_id, vector in rows[::7]:
        found = _agree(services, vector, limit=10)
        assert found[0][0] == memory_id and found[0][1] == pytest.approx(1.0, abs=FLOAT16)
    assert store.index._approximate is not None and store.index._approximate._indexes  # answered through the index


def test_an_explicit_build_counts_the_memories_a_bulk_write_just_brought(db: Path, embedder: MiniLMEmbedder) -> None:
    """The count that decides it is made then, not the few-seconds-old one a search may have cached."""
    services = _open(db, embedder)
    services.memories.create_many(Caller(USER), [{"content": t} for t in _texts(10)])
    store = _store(services)
    assert store.index._indexed_total(USER) == 10  # cached
    services.memories.create_many(Caller(USER), [{"content": t} for t in _texts(300)[10:]])
    assert store.index.build_vector_index(USER, 384) is True and len(_files(db)) == 1
    services.close()


def test_a_file_left_half_written_by_a_dead_process_is_removed(
    services: Services, db: Path, embedder: MiniLMEmbedder
) -> None:
    """One being written by a live process (this one, another thread) is left alone."""
    folder = Path(str(db) + ".vectors")
    folder.mkdir(exist_ok=True)
    stem = ann.user_stem(USER)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    left = folder / f".{stem}-7.{int(dead.stdout)}.1.tmp"
    writing = folder / f".{stem}-9.{os.getpid()}.2.tmp"
    other = folder / f".{ann.user_stem('bob')}-7.{int(dead.stdout)}.1.tmp"
    for path in (left, writing, other):
        path.write_bytes(b"half an index")
    _agree(services, _query(embedder, QUERIES[0]))  # builds and saves this user's index
    assert not left.exists() and writing.exists() and other.exists()  # another user's is theirs to sweep


@pytest.mark.parametrize("exact", [False, True])
def test_the_vector_side_reads_beside_a_keyword_search_holding_the_connection(
    services: Services, embedder: MiniLMEmbedder, exact: bool
) -> None:
    """A search's vector side runs on another thread while its keyword side reads (service/search.py):
    it reads through a connection of its own, so it answers while the store's connection is held."""
    store = _store(services)
    vector = _query(embedder, "who asked about the boiler?")
    expected = _search(services, vector, exact=exact, filter=parse_filter({"tags": {"contains": "tenth"}}))
    answers: list[list[tuple[str, float]]] = []

    def vector_side() -> None:
        answers.append(_search(services, vector, exact=exact, filter=parse_filter({"tags": {"contains": "tenth"}})))

    with store.backend.db.read():  # what a keyword search holds while it ranks
        worker = threading.Thread(target=vector_side, daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive(), "the vector side waited for the store's connection"
    assert answers == [expected] and len(expected) == 10


def test_the_vector_side_sees_what_was_just_written(services: Services, embedder: MiniLMEmbedder) -> None:
    for exact in (False, True):
        made = services.memories.create(Caller(USER), {"content": f"the lighthouse keeper counted seagulls ({exact})"})
        vector = _query(embedder, f"the lighthouse keeper counted seagulls ({exact})")
        assert _ids(_search(services, vector, exact=exact, limit=1)) == [made.id]
        services.memories.delete(Caller(USER), made.id)
        assert made.id not in _ids(_search(services, vector, exact=exact))


def test_the_vector_side_connection_closes_with_the_store(db: Path, embedder: MiniLMEmbedder) -> None:
    store = open_store(str(db))
    assert isinstance(store.backend, SqliteBackend) and store.index.vector_db is not store.backend.db
    store.close()
    with pytest.raises(StoreError, match="closed database"), store.index.vector_db.read():
        pass
    memory = Store(SqliteBackend(":memory:"))
    assert memory.index.vector_db is memory.backend.db  # one connection is the whole database
    memory.close()


def test_a_memory_written_after_the_newest_was_purged_is_found(services: Services, embedder: MiniLMEmbedder) -> None:
    """The purged memory held the user's highest seq: the next memory must get a new one, or the index,
    which reads changes by seq, never sees it."""
    newest = services.memories.create(Caller(USER), {"content": "a quokka smiling at the zoo"})
    query = _query(embedder, "a quokka smiling at the zoo")
    assert _search(services, query, limit=1)[0][0] == newest.id
    services.memories.delete(Caller(USER), newest.id, permanent=True)
    after = services.memories.create(Caller(USER), {"content": "a quokka smiling at the zoo, once more"})
    assert _search(services, query, limit=1)[0][0] == after.id
    _agree(services, query, limit=5)
