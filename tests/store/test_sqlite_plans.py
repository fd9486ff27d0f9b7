"""How SQLite finds the rows a create reads: by index, on a database that has no planner statistics yet.

A new database has none until it is closed (``PRAGMA optimize``) or written in bulk, and without them
SQLite may walk all of a user's rows in the order an ORDER BY or GROUP BY asks for rather than look
the few it needs up by their index. A create reads its text's twins and appends suggestion events;
each of those reads must cost the same however many memories and events the user has.
"""

from __future__ import annotations

from pathlib import Path

from remember.caller import Caller
from remember.service import Services
from remember.store import open_store

GROWING = ("memories", "suggestion_events", "memory_index")  # tables that grow with every create


def walks(plan: list[str]) -> list[str]:
    """The steps of a plan that read a growing table by the user alone (or all of it)."""
    return [
        step
        for step in plan
        if any(f" {table} " in f"{step} " for table in GROWING)
        and (step.startswith("SCAN") or step.endswith("(user_id=?)"))
    ]


def test_a_create_reads_its_rows_by_index_on_a_database_without_statistics(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "remember.db"))
    services = Services.over(store)
    conn = store.backend.db.connection  # type: ignore[attr-defined]
    caller = Caller("alice")
    for n in range(5):
        services.memories.store_new(caller, {"content": f"Lunch with Pedro at Luigi's, note {n}"})
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    stored = services.memories.store_new(caller, {"content": "Finished reading Dune, five stars"})
    services.suggestions.for_memory(caller, stored.memory)
    conn.set_trace_callback(None)
    try:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()[0] == 0
        reads = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "max(seq)" not in s]
        assert any("content_hash" in s for s in reads) and any("suggestion_events e" in s for s in reads)
        for statement in reads:
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement)]
            assert walks(plan) == [], (statement, plan)
    finally:
        store.close()
