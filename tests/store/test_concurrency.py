"""Several writers on one SQLite file lose nothing."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from remember.caller import Caller
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


@pytest.mark.slow
def test_two_processes_writing_1000_each_lose_none(db_path: Path) -> None:
    open_store(str(db_path)).close()  # migrate once, so the writers only write
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), name, "1000"], stderr=subprocess.PIPE, text=True)
        for name in ("first", "second")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    services = Services.over(open_store(str(db_path)))
    for name in ("first", "second"):
        page = services.memories.list(Caller("alice"), tags=[name], limit=1)
        assert page.total == 1000
    contents = {
        m.content
        for off in range(0, 2000, 100)
        for m in services.memories.list(Caller("alice"), limit=100, offset=off).items
    }
    assert len(contents) == 2000
    services.close()


def test_threads_sharing_one_store(services: Services) -> None:
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            for i in range(100):
                m = services.memories.create(Caller("alice"), {"content": f"{name} {i}"})
                services.memories.update(Caller("alice"), m.id, {"title": name})
                services.memories.list(Caller("alice"), limit=5)
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(f"t{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert services.memories.list(Caller("alice")).total == 400
