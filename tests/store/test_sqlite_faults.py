"""A SQLite file under faults: damaged, read-only (file, folder, medium) and on a full disk.

Read-only media and a full disk are real where the machine allows it: a read-only bind
mount and a small tmpfs need root and the right to mount (CI containers usually have
both). Where a mount is not possible the test is skipped and says why, except where a
plain permission or SQLite's own page limit reproduces the same fault.
"""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from disks import fill_disk, mount
from remember.caller import Caller
from remember.errors import StoreDamaged, StoreError, StoreReadOnly
from remember.models import MemoryQuery
from remember.service import Services
from remember.store import open_store
from remember.store.sqlite import health
from support import fingerprint, run, run_json

ALICE = "alice"


def filled(path: Path, count: int, size: int = 900) -> list[str]:
    """A database at ``path`` with ``count`` memories of about ``size`` characters; their ids."""
    services = Services.over(open_store(str(path)))
    rng = random.Random(7)
    words = ["river", "lantern", "copper", "meadow", "violet", "harbor", "thunder", "pepper"]
    drafts = [
        {"content": f"note {n} " + " ".join(rng.choice(words) for _ in range(size // 7)), "tags": ["t"]}
        for n in range(count)
    ]
    ids = [
        m.id
        for start in range(0, count, 500)
        for m in services.memories.create_many(Caller(ALICE), drafts[start : start + 500])
    ]
    services.close()
    return ids


def damage(path: Path, length: int, at: float = 0.5) -> None:
    """Write ``length`` random bytes into the middle of the file (seeded: the same damage every run)."""
    data = bytearray(path.read_bytes())
    start = int(len(data) * at)
    data[start : start + length] = random.Random(21).randbytes(length)
    path.write_bytes(bytes(data))


def cli(capsys: pytest.CaptureFixture[str], db: Path, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "--db", f"sqlite:///{db}", "--user", ALICE, *argv)


def cli_json(capsys: pytest.CaptureFixture[str], db: Path, *argv: str) -> Any:
    return run_json(capsys, "--db", f"sqlite:///{db}", "--user", ALICE, *argv)


# damaged


def test_a_damaged_file_is_found_at_open_and_writes_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "remember.db"
    filled(db, 2_000)
    assert db.stat().st_size > 2_000_000
    damage(db, 16 * 1024)
    before = fingerprint(db)
    code, out, err = cli(capsys, db, "add", "written to a damaged file")
    assert (code, out) == (1, "")
    assert "is damaged" in err and "remember db check" in err and ".recover" in err
    assert fingerprint(db) == before
    code, _, err = cli(capsys, db, "db", "check")
    assert code == 1 and "is damaged:\n- " in err and "restore the file from a backup" in err


def test_damage_found_by_a_read_stops_later_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "remember.db"
    ids = filled(db, 1_500)
    damage(db, db.stat().st_size // 3, at=0.3)
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.0)  # as for a file too large to check at open
    store = open_store(str(db))
    services = Services.over(store)

    def read_everything() -> None:
        for start in range(0, len(ids), 200):
            store.memories.get_many(ALICE, ids[start : start + 200])
        store.memories.page(ALICE, MemoryQuery(limit=100, offset=1_400))

    with pytest.raises(StoreDamaged, match="is damaged"):
        read_everything()
    with pytest.raises(StoreDamaged, match="writes are refused"):
        services.memories.create(Caller(ALICE), {"content": "after the damage showed"})
    store.close()


def test_damage_found_by_the_vector_side_stops_later_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vector side of a search reads through a connection of its own; what it finds damaged
    is the database's damage, as if the store's connection had found it."""
    db = tmp_path / "remember.db"
    filled(db, 1_500)
    damage(db, db.stat().st_size // 3, at=0.3)
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.0)
    store = open_store(str(db))
    services = Services.over(store)

    def read_everything() -> None:
        with store.index.vector_db.read() as conn:  # type: ignore[attr-defined]
            for table in ("memories", "memory_index", "memory_fts_data"):
                conn.execute(f"SELECT * FROM {table}").fetchall()

    with pytest.raises(StoreDamaged, match="is damaged"):
        read_everything()
    with pytest.raises(StoreDamaged, match="writes are refused"):
        services.memories.create(Caller(ALICE), {"content": "after the damage showed"})
    store.close()


def test_a_sound_file_passes_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "remember.db"
    filled(db, 10)
    assert run_json(capsys, "--db", f"sqlite:///{db}", "db", "check") == {"ok": True, "problems": []}


def test_a_file_that_is_not_a_database_says_how_to_recover(tmp_path: Path) -> None:
    db = tmp_path / "remember.db"
    db.write_bytes(random.Random(3).randbytes(64 * 1024))
    with pytest.raises(StoreDamaged, match=r"Cannot open the SQLite database.*remember db check"):
        open_store(str(db))


# read-only


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A folder and a read-only view of it (a read-only bind mount, like read-only media)."""
    source, view = tmp_path / "source", tmp_path / "view"
    source.mkdir()
    view.mkdir()
    why = mount("--bind", str(source), str(view))
    if why is None:
        why = mount("-o", "remount,bind,ro", str(view))
        if why is not None:
            subprocess.run(["umount", str(view)], check=False)
    if why is not None:
        pytest.skip(f"no read-only mount on this machine ({why})")
    yield source, view
    subprocess.run(["umount", str(view)], check=True)


def test_a_database_on_read_only_media_reads_and_refuses_writes(
    read_only_folder: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    source, view = read_only_folder
    ids = filled(source / "remember.db", 30, size=60)
    db = view / "remember.db"
    assert cli_json(capsys, db, "list")["total"] == 30
    assert cli_json(capsys, db, "search", "lantern")
    assert cli_json(capsys, db, "get", ids[0])["id"] == ids[0]
    code, _, err = cli(capsys, db, "add", "a new note")
    assert code == 1 and "read-only" in err and "writes are refused" in err


def test_a_read_only_file_opens_read_only(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can write a file without write permission; the read-only mount test covers root")
    db = tmp_path / "remember.db"
    filled(db, 5, size=60)
    db.chmod(0o444)
    store = open_store(str(db))
    services = Services.over(store)
    assert services.search.search(Caller(ALICE), "note", alpha=0.0).hits
    with pytest.raises(StoreReadOnly, match="the file is not writable"):
        services.memories.create(Caller(ALICE), {"content": "x"})
    store.close()


# a full disk


def fill_up(services: Services) -> list[str]:
    """Create memories until the disk is full; the ids created."""
    made: list[str] = []

    def create_until_full() -> None:
        for n in range(100_000):
            batch = [{"content": f"filler {n} {i} " + "x" * 4000} for i in range(20)]
            made.extend(m.id for m in services.memories.create_many(Caller(ALICE), batch))

    with pytest.raises(StoreError, match="full"):
        create_until_full()
    return made


def test_on_a_full_disk_reads_keep_working_and_writes_resume_once_space_is_freed(small_disk: Path) -> None:
    store = open_store(str(small_disk / "remember.db"))
    services = Services.over(store)
    made = [
        m.id for m in services.memories.create_many(Caller(ALICE), [{"content": f"kept note {n}"} for n in range(50)])
    ]
    ballast = small_disk / "ballast"
    fill_disk(ballast)  # another program fills the disk
    fill_up(services)
    assert services.search.search(
        Caller(ALICE), "kept", alpha=0.0
    ).hits  # counting the reads cannot be written: skipped
    assert services.memories.get(Caller(ALICE), made[0]).id == made[0]
    assert services.memories.list(Caller(ALICE), limit=5).total >= 50
    with pytest.raises(StoreError, match="free some space"):
        services.memories.create(Caller(ALICE), {"content": "one more " + "y" * 50_000})
    ballast.unlink()
    assert services.memories.create(Caller(ALICE), {"content": "after space was freed"}).version == 1
    store.close()


def test_a_full_database_still_reads(tmp_path: Path) -> None:
    """The same fault without a mount: SQLite's page limit stands in for the end of the disk."""
    store = open_store(str(tmp_path / "remember.db"))
    services = Services.over(store)
    services.memories.create(Caller(ALICE), {"content": "before the disk filled"})
    pages = store.backend.db.connection.execute("PRAGMA page_count").fetchone()[0]
    store.backend.db.connection.execute(f"PRAGMA max_page_count = {pages + 8}")
    made = fill_up(services)
    assert services.search.search(Caller(ALICE), "disk", alpha=0.0).hits
    assert services.memories.list(Caller(ALICE), limit=5).total == len(made) + 1
    store.close()


def test_the_check_at_open_stops_at_its_deadline_and_leaves_the_connection_usable(tmp_path: Path) -> None:
    """SQLite runs the whole check as one step that no progress handler can stop: the deadline holds
    all the same (a timer interrupts it), and a later statement is never interrupted by it."""
    import sqlite3
    import time

    db = tmp_path / "large.db"
    with sqlite3.connect(str(db)) as made:  # 64 MB of pages: their check takes ten times the deadline below
        made.execute("CREATE TABLE pages (data BLOB)")
        made.executemany("INSERT INTO pages VALUES (?)", [(random.Random(n).randbytes(3_000),) for n in range(20_000)])
    made.close()
    damage(db, 4_096, at=0.9)
    conn = sqlite3.connect(str(db), check_same_thread=False)
    assert health.quick_check(conn, seconds=0.0) is None  # no time: nothing checked
    assert health.quick_check(conn, seconds=0.005) is None  # stopped before it reached the damage
    assert health.quick_check(conn, seconds=600) is not None  # the whole check finds it
    time.sleep(0.05)
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 1
    conn.close()
