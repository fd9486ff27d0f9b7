"""Each template's suggestion totals (store/sql/suggestion_totals.py) against a count of the whole record.

The totals move with every event appended; what they must equal is what ``FROM_EVENTS`` counts
over all of a user's events, whatever the order and the batches the events came in.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from remember.models import SuggestionEvent, SuggestionStats, UserDump
from remember.store import Store, open_store
from remember.store.sql import suggestion_totals

START = datetime(2026, 2, 2, 9, 30, tzinfo=UTC)
TEMPLATES = ("builtin:book_review", "builtin:meeting", "builtin:person", "tpl_recipe")


def counted(store: Store, user_id: str) -> dict[str, SuggestionStats]:
    """The user's totals counted over their whole record, as the store counted them on every suggestion."""
    with store.suggestions.sql.reading() as s:
        rows = [r for r in s.all(suggestion_totals.FROM_EVENTS) if r[0] == user_id]
        moment = s.dialect.from_optional_moment
    return {t: SuggestionStats(t, int(sh), int(ap), moment(last), int(ig)) for _, t, sh, ap, last, ig in rows}


def random_events(rng: random.Random, n: int) -> list[SuggestionEvent]:
    """Shown and applied events over a few memories, some without a memory, in no particular time order."""
    events = []
    for _ in range(n):
        memory = rng.choice(["m1", "m2", "m3", "m4", None])
        kind = "applied" if memory is not None and rng.random() < 0.3 else "shown"
        at = START + timedelta(minutes=rng.randrange(10_000))
        events.append(SuggestionEvent(rng.choice(TEMPLATES), kind, at, memory, round(rng.random(), 2)))  # type: ignore[arg-type]
    return events


def test_the_totals_equal_a_count_of_the_whole_record_in_any_batches(store: Store) -> None:
    rng = random.Random(7)
    for _ in range(40):
        store.suggestions.log("alice", random_events(rng, rng.randrange(0, 5)))
        store.suggestions.log("bob", random_events(rng, 1))
        assert store.suggestions.stats("alice") == counted(store, "alice")
    assert store.suggestions.stats("bob") == counted(store, "bob")
    assert any(s.ignored for s in store.suggestions.stats("alice").values())
    assert store.suggestions.stats("carol") == {}


def test_a_template_applied_to_a_memory_ignores_the_others_shown_for_it(store: Store) -> None:
    book, meeting = TEMPLATES[:2]
    store.suggestions.log(
        "alice", [SuggestionEvent(book, "shown", START, "m1"), SuggestionEvent(meeting, "shown", START, "m1")]
    )
    store.suggestions.log("alice", [SuggestionEvent(meeting, "shown", START, "m1")])
    store.suggestions.log("alice", [SuggestionEvent(book, "applied", START + timedelta(hours=1), "m1")])
    store.suggestions.log("alice", [SuggestionEvent(book, "applied", START, "m1")])  # an earlier one, logged late
    stats = store.suggestions.stats("alice")
    assert stats[book] == SuggestionStats(book, 1, 2, START + timedelta(hours=1), 0)
    assert stats[meeting] == SuggestionStats(meeting, 2, 0, None, 2)


def test_an_import_moves_the_totals_of_the_user_it_writes(store: Store) -> None:
    rng = random.Random(11)
    store.suggestions.log("alice", random_events(rng, 30))
    imported = tuple(random_events(rng, 30))
    store.transfer.restore(UserDump("alice", {}, (), (), (), imported))
    assert store.suggestions.stats("alice") == counted(store, "alice")


def test_the_migration_counts_the_events_stored_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = open_store(str(path))
    store.suggestions.log("alice", random_events(random.Random(3), 50))
    expected = store.suggestions.stats("alice")
    store.close()
    with sqlite3.connect(path) as conn:  # the database as 0012 left it
        conn.execute("DROP TABLE suggestion_totals")
        conn.execute("DROP INDEX suggestion_events_memory")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0013_suggestion_totals'")
    again = open_store(str(path))
    try:
        assert again.suggestions.stats("alice") == expected
        assert expected == counted(again, "alice")
    finally:
        again.close()


def test_appending_reads_the_events_of_the_memories_it_names_alone(tmp_path: Path) -> None:
    """The counts before and after an append look up the named memories' events by index: an append costs
    the same however long the user's record is."""
    store = open_store(str(tmp_path / "remember.db"))
    conn = store.backend.db.connection
    counted_again: list[str] = []
    conn.set_trace_callback(lambda sql: counted_again.append(sql) if "FROM suggestion_events e" in sql else None)
    store.suggestions.log("alice", random_events(random.Random(5), 20))
    conn.set_trace_callback(None)
    try:
        assert counted_again
        for statement in counted_again:
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement)]
            reads = [step for step in plan if " e " in f"{step} " or " a " in f"{step} "]
            assert reads and all("suggestion_events_memory (user_id=? AND memory_id=?" in s for s in reads), plan
    finally:
        store.close()
