"""The dashboard's analytics at scale: memories over time for a user with 100,000 memories, on both backends.

One user holds ``size`` memories (five types, four templates, one every five minutes: about a
year), another user 20% more beside them. Measured through ``AnalyticsService.overview`` (the
span, the counts per period by type and template in one GROUP BY, the series filled in) for each
bucket, at full trust and at a trust level that hides half the memories, and the same counts
without the ``memories_timeline`` index, to show what it buys.
"""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.postgres import embedded_postgres_url
from bench.report import Table, timed
from remember.caller import Caller

TYPES = ("note", "book_review", "meeting", "person", "recipe")
BATCH = 2_000


def memories(user: str, n: int, minutes: int) -> list[tuple[Any, None]]:
    from remember.models import Memory

    rng = random.Random(n)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        at = start + timedelta(minutes=minutes * i)
        kind = TYPES[i % len(TYPES)]
        memory = Memory(
            id=f"{user}{i:07}", user_id=user, content=f"memory {i} of {user}", type=kind, weight=0.5,
            trust=rng.random(), created_at=at, updated_at=at, occurred_at=at,
            template_id=None if kind == "note" else f"builtin:{kind}",
        )  # fmt: skip
        out.append((memory, None))
    return out


def measure(name: str, url: str, size: int, rounds: int) -> list[dict[str, Any]]:
    from remember.service import Services
    from remember.store import open_store

    store = open_store(url)
    batch = memories("bench", size, 5) + memories("other", size // 5, 7)
    for i in range(0, len(batch), BATCH):
        store.memories.insert_many(batch[i : i + BATCH])
    services = Services.over(store)
    rows = []
    for bucket in (None, "week", "month", "day"):
        for trust in (1.0, 0.5):

            def overview(_: int, bucket: str | None = bucket, trust: float = trust) -> None:
                services.analytics.overview(Caller("bench", trust), bucket=bucket)

            overview(0)  # warm
            rows.append({"backend": name, "bucket": bucket or "auto", "trust": trust, **timed(overview, range(rounds))})
    drop = "DROP INDEX memories_timeline"
    with store.sql.writing() as s:
        s.run(drop)
    week = timed(lambda _: services.analytics.overview(Caller("bench"), bucket="week"), range(rounds))
    rows.append({"backend": name, "bucket": "week", "trust": "1.0, no index", **week})
    store.close()
    return rows


def run(quick: bool = False) -> dict[str, Any]:
    size = 10_000 if quick else 100_000
    rounds = 3 if quick else 7
    folder = Path(tempfile.mkdtemp(prefix="bench-analytics-"))
    rows = measure("sqlite", f"sqlite:///{folder / 'analytics.db'}", size, rounds)
    with embedded_postgres_url(folder / "pg") as url:
        rows += measure("postgres", url, size, rounds)
    table = Table(
        f"Analytics overview of a user with {size:,} memories (ms)", ["backend", "bucket", "trust", "p50", "p95"]
    )
    for row in rows:
        table.add(row["backend"], row["bucket"], row["trust"], row["p50"], row["p95"])
    table.print()
    return {"size": size, "rows": rows}
