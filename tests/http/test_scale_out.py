"""Three ``remember serve --http`` workers over one PostgreSQL database are one service (``bench/scaleout.py``
at a reduced size): an OAuth grant and a dashboard session work on every worker whichever made them, a
keyword index on each worker catches up with writes made through the others, ``kill -9`` of a worker
under load loses no acknowledged write, a rate limit counts per worker, and a connector's grant outlives
restarts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from bench.remote import Server, tokens_for
from bench.scaleout import (
    keywords_across,
    kill_under_load,
    mcp_status,
    one_service,
    rate_limit_per_worker,
    restarts,
    start_workers,
    stop_all,
)
from remember.caller import Caller
from remember.search.embedders.hashing import HashEmbedder
from remember.service import Services
from remember.store import open_store

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

USER = "team"
SEEDED = 1_000  # the lowest REMEMBER_KEYWORD_INDEX_MIN: the user's keyword search goes through each worker's index
HASH = {"REMEMBER_EMBEDDER": "hash"}


@pytest.fixture(scope="module")
def database(postgres_server: Any) -> str:
    url: str = postgres_server.url(postgres_server.create_database())
    services = Services.over(open_store(url), embedder=HashEmbedder())
    try:
        services.memories.create_many(Caller(USER), [{"content": f"seeded note {i}"} for i in range(SEEDED)])
    finally:
        services.close()
    return url


@pytest.fixture(scope="module")
def token(database: str) -> str:
    return tokens_for(database, [USER])[USER]


@pytest.fixture(scope="module")
def workers(database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    env = {**HASH, "REMEMBER_OAUTH_SERVER": "1", "REMEMBER_KEYWORD_INDEX_MIN": str(SEEDED)}
    running = start_workers(database, tmp_path_factory.mktemp("workers"), 3, **env)
    yield running
    stop_all(running)


def test_an_oauth_grant_and_a_dashboard_session_work_on_every_worker(workers: list[Server], token: str) -> None:
    found = one_service(workers, token)
    assert found["access_on_every_worker"] == [200, 200, 200]
    assert found["refreshed_elsewhere"] == [200, 200, 200]
    assert found["replaced_access_refused"] == [401, 401, 401]
    assert found["replay_on_another_worker"] == 400  # a replaced refresh token, presented to another worker
    assert found["grant_revoked_everywhere"] == [401, 401, 401]
    assert found["session_on_every_worker"] == [200, 200, 200]
    assert found["session_ended_everywhere"] == [401, 401, 401]


def test_each_workers_keyword_index_catches_up_with_the_others_writes(workers: list[Server], token: str) -> None:
    found = anyio.run(keywords_across, workers, token, "quokka")
    assert found["found_on"] == [True, True, True]
    assert found["found_after_delete_on"] == [False, False, False]
    assert found["answered_by"] == ["ranked index"]  # each worker's own index, not the database's search


def test_the_rate_limit_counts_per_worker(database: str, tmp_path: Path, token: str) -> None:
    pair = start_workers(database, tmp_path, 2, **HASH, REMEMBER_HTTP_RATE_LIMIT="10")
    try:
        found = rate_limit_per_worker(pair, token, limit=10)
        assert mcp_status(pair[0].url, token) == 429
    finally:
        stop_all(pair)
    assert 20 <= found["passed"] <= 22  # 10 a minute on each worker (and what refills while the test runs)


def test_a_connectors_grant_outlives_restarts(database: str, tmp_path: Path) -> None:
    found = restarts(database, tmp_path, count=3, **HASH)
    assert found == {"restarts": 3, "grant_alive_after": 3}


def test_kill_9_of_a_worker_under_load_loses_no_acknowledged_write(
    database: str, workers: list[Server], token: str
) -> None:
    found = kill_under_load(database, workers, token, USER, clients=4, seconds=6.0)
    assert found["acknowledged"] > 20
    assert found["lost_writes"] == []
    assert found["failures_elsewhere"] == []
    assert found["errors_before_the_kill"] == 0
    assert found["errors"] <= 4  # at most one request per writer was on the killed worker
    assert found["taken_out"] == [workers[1].url]
    assert all(found["sent"].get(w.url, 0) > 0 for w in workers)
