"""Under load and under failure: concurrent writers (on both backends), a PostgreSQL restart mid-run."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import Conflict, StoreUnavailable
from remember.service import Services
from remember.store import open_store

WRITER = """
import sys
from remember.caller import Caller
from remember.service import Services
from remember.store import open_store
services = Services.over(open_store(sys.argv[1]))
for i in range(int(sys.argv[3])):
    services.memories.create(Caller("alice"), {"content": f"{sys.argv[2]} {i}", "tags": [sys.argv[2]]})
services.close()
"""


def in_threads(count: int, work: Callable[[int], None]) -> None:
    """Run ``work(n)`` in ``count`` threads released together; re-raise the first failure."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            start.wait()
            work(n)
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@pytest.mark.slow
@pytest.mark.postgres
def test_eight_processes_writing_lose_nothing(postgres_url: str) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, postgres_url, f"w{n}", "150"], stderr=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    services = Services.over(open_store(postgres_url))
    for n in range(8):
        assert services.memories.list(Caller("alice"), tags=[f"w{n}"], limit=1).total == 150
    contents = {
        m.content
        for off in range(0, 1200, 100)
        for m in services.memories.list(Caller("alice"), limit=100, offset=off).items
    }
    assert len(contents) == 1200
    services.close()


def test_eight_threads_updating_one_memory_lose_no_update(services: Services) -> None:
    memory = services.memories.create(Caller("alice"), {"content": "counter"})
    conflicts = [0] * 8

    def update(n: int) -> None:
        for i in range(20):
            while True:
                try:
                    services.memories.update(Caller("alice"), memory.id, {"content": f"t{n} {i}"})
                    break
                except Conflict:
                    conflicts[n] += 1

    in_threads(8, update)
    final = services.memories.get(Caller("alice"), memory.id, record_access=False)
    assert final.version == 1 + 160
    assert len(services.memories.history(Caller("alice"), memory.id)) == 160


def test_eight_threads_reading_count_every_access(services: Services) -> None:
    memory = services.memories.create(Caller("alice"), {"content": "popular"})
    in_threads(8, lambda n: [services.memories.get(Caller("alice"), memory.id) for _ in range(25)])
    assert services.memories.get(Caller("alice"), memory.id, record_access=False).access_count == 200


def test_eight_threads_changing_preferences_keep_every_change(services: Services) -> None:
    in_threads(
        8,
        lambda n: [
            services.preferences.update(Caller("alice"), "search.default_limit", 10 + i, reason=f"t{n}")
            for i in range(10)
        ],
    )
    assert services.preferences.effective(Caller("alice"))["search.default_limit"] in range(10, 20)


@pytest.mark.slow
@pytest.mark.postgres
def test_a_server_restart_mid_run_gives_clear_errors_then_recovers(own_postgres_server: Any) -> None:
    server = own_postgres_server
    database = server.create_database()
    services = Services.over(open_store(server.url(database, pool_timeout=1)))
    written: list[str] = []
    failures: list[BaseException] = []
    stop = threading.Event()

    def write_continuously() -> None:
        while not stop.is_set():
            try:
                written.append(services.memories.create(Caller("alice"), {"content": f"m{len(written)}"}).id)
            except StoreUnavailable as exc:
                failures.append(exc)
                time.sleep(0.05)

    writer = threading.Thread(target=write_continuously)
    writer.start()
    try:
        _wait_for(lambda: len(written) >= 20)
        server.stop()
        _wait_for(lambda: bool(failures))
        down_since = time.monotonic()
        with pytest.raises(StoreUnavailable, match=rf"{database}.*Check that the server is running") as caught:
            services.memories.list(Caller("alice"))
        assert time.monotonic() - down_since < 3  # pool_timeout=1: fails fast, does not hang
        assert "reconnects by itself" in str(caught.value) or "could be opened" in str(caught.value)
        before_restart = len(written)
        server.start()
        restarted = time.monotonic()
        _wait_for(lambda: len(written) >= before_restart + 20, within=30)
        recovery = time.monotonic() - restarted
    finally:
        stop.set()
        writer.join()
    assert recovery < 15
    stored = {m.id for off in range(0, len(written) + 100, 100) for m in _page(services, off)}
    assert set(written) <= stored  # every write that reported success is there
    services.close()


def _page(services: Services, offset: int) -> Any:
    return services.memories.list(Caller("alice"), limit=100, offset=offset).items


def _wait_for(condition: Callable[[], bool], within: float = 15) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {within} s")
        time.sleep(0.02)


@pytest.mark.postgres
def test_preference_history_is_numbered_per_user_without_gaps_under_contention(postgres_url: str) -> None:
    import psycopg

    services = Services.over(open_store(postgres_url))
    for user in ("alice", "bob"):
        in_threads(8, lambda n, user=user: [  # type: ignore[misc]
            services.preferences.update(Caller(user), "search.default_limit", 10 + i) for i in range(10)
        ])  # fmt: skip
    services.close()
    with psycopg.connect(postgres_url) as conn:
        for user in ("alice", "bob"):
            seqs = [r[0] for r in conn.execute("SELECT seq FROM preference_history WHERE user_id = %s", (user,))]
            assert sorted(seqs) == list(range(1, 81))
