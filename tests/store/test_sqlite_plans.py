"""How SQLite finds the rows a create reads: by index, on a database that has no planner statistics yet.

A new database has none until it is closed (``PRAGMA optimize``) or written in bulk, and without them
SQLite may walk all of a user's rows in the order an ORDER BY or GROUP BY asks for rather than look
the few it needs up by their index. A create reads its text's twins and appends suggestion events;
each of those reads must cost the same however many memories and events the user has.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remember.caller import Caller
from remember.service import Services
from remember.store import open_store
from remember.store.sqlite import connection

GROWING = ("memories", "suggestion_events", "memory_index")  # tables that grow with every create


def walks(plan: list[str]) -> list[str]:
    """The steps of a plan that read a growing table by the user alone (or all of it)."""
    return [
        step
        for step in plan
        if any(f" {table} " in f"{step} " for table in GROWING)
        and (step.startswith("SCAN") or step.endswith("(user_id=?)"))
    ]


@pytest.mark.parametrize("statistics", ["none", "of a tiny table"])
def test_a_create_reads_its_rows_by_index(tmp_path: Path, statistics: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without statistics, and with statistics taken while the user had one memory: a server that runs on
    refreshes them as its tables grow (``OPTIMIZE_EVERY`` writes, here 10), where SQLite alone would keep
    them until the database is closed."""
    monkeypatch.setattr(connection, "OPTIMIZE_EVERY", 10)
    store = open_store(str(tmp_path / "remember.db"))
    services = Services.over(store)
    conn = store.backend.db.connection  # type: ignore[attr-defined]
    caller = Caller("alice")
    for n in range(5 if statistics == "none" else 40):
        services.memories.store_new(caller, {"content": f"Lunch with Pedro at Luigi's, note {n}"})
        if n == 0 and statistics != "none":
            conn.execute("ANALYZE")
    if statistics != "none":
        rows = conn.execute("SELECT stat FROM sqlite_stat1 WHERE idx = 'memories_content_hash'").fetchone()[0]
        assert int(rows.split()[0]) > 1  # refreshed since
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    stored = services.memories.store_new(caller, {"content": "Finished reading Dune, five stars"})
    services.suggestions.for_memory(caller, stored.memory)
    conn.set_trace_callback(None)
    try:
        has_statistics = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()[0]
        assert has_statistics == (statistics != "none")
        reads = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "max(seq)" not in s]
        assert any("content_hash" in s for s in reads) and any("suggestion_events e" in s for s in reads)
        for statement in reads:
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement)]
            assert walks(plan) == [], (statement, plan)
    finally:
        store.close()
