"""Is the SQLite file damaged? A check bounded in time at open, a full one on demand, and what to do.

A damaged file still serves what can be read, but is never written: a write
could spread the damage, and a write that seemed to succeed on a damaged file
is a loss the user learns of too late.
"""

from __future__ import annotations

import sqlite3
import threading

from remember.errors import StoreDamaged

CHECK_SECONDS = 0.2  # the most the check at open may take; a larger file is checked on its first error
_DAMAGE = ("malformed", "not a database", "disk image", "corrupt")


def quick_check(conn: sqlite3.Connection, seconds: float = CHECK_SECONDS) -> str | None:
    """What ``PRAGMA quick_check`` finds wrong, or None when it finds nothing (or ran out of time).

    The check runs as one step of SQLite's virtual machine, which a progress handler cannot stop
    (a 7 GB file took 2 s), so a timer interrupts it from another thread, never after it is done.
    No time at all (``seconds`` 0) checks nothing."""
    if seconds <= 0:
        return None
    done = threading.Lock()
    timer = threading.Timer(seconds, lambda: _interrupt_unless_done(conn, done))
    timer.start()
    try:
        rows = conn.execute("PRAGMA quick_check(20)").fetchall()
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc):
            return None
        if is_damage(exc):
            return str(exc)
        raise
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        done.acquire()  # from here on the timer does nothing
        timer.cancel()
    found = [str(row[0]) for row in rows if row[0] != "ok"]
    return "; ".join(found) or None


def _interrupt_unless_done(conn: sqlite3.Connection, done: threading.Lock) -> None:
    if done.acquire(blocking=False):
        try:
            conn.interrupt()
        finally:
            done.release()


def integrity_check(conn: sqlite3.Connection) -> list[str]:
    """Every problem ``PRAGMA integrity_check`` finds (up to 100), none when the file is sound."""
    try:
        rows = conn.execute("PRAGMA integrity_check(100)").fetchall()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    return [str(row[0]) for row in rows if row[0] != "ok"]


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return any(word in text for word in _DAMAGE)


def damaged(path: str, detail: str) -> StoreDamaged:
    return StoreDamaged(
        f"The database {path} is damaged ({detail}); writes are refused so that nothing more is lost, "
        f"and reads may fail. {recovery(path)}"
    )


def unopenable(path: str, detail: str) -> StoreDamaged:
    return StoreDamaged(
        f"Cannot open the SQLite database at {path}: {detail}. Check that it is a remember database; "
        f"if it is, it is damaged. {recovery(path)}"
    )


def recovery(path: str) -> str:
    return (
        "Run `remember db check` to see the damage. To recover: restore the file from a backup, or salvage "
        f"what can be read into a new file with the sqlite3 tool (sqlite3 '{path}' .recover | sqlite3 "
        "recovered.db) and point REMEMBER_DATABASE_URL (or --db) at it."
    )
