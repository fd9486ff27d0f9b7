"""The dashboard's graph of the whole memory: its first draw at 1,000 and 10,000 relationships.

One user's memories linked by preferential attachment (a few hubs, many leaves, as people's memories are):
1,000 relationships over 600 memories, and 10,000 over 6,000 (past the page's limit of 1,000 memories: the
most connected are drawn). Measured, over a real ``remember serve --http``:

- ``GET /api/graph`` with no filter, from the request to the whole answer read (httpx), on SQLite and
  PostgreSQL;
- in Chromium (Debian's) on the SQLite file, the page ``#/graph`` loaded until the drawing is on the page
  (the page's ``graph-drawn`` performance mark, from the navigation's start: the API call, the layout in its
  worker, the SVG built), and of that the layout alone (from ``graph-answered`` to ``graph-laid-out``).
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles

USER = "bench"
SIZES = ((600, 1_000), (6_000, 10_000))  # (memories, relationships)
BATCH = 1_000


def furnish(url: str, memories: int, relationships: int) -> None:
    """The user's memories and relationships, written in bulk (no vectors: the graph reads none)."""
    from remember.models import IndexEntry, Memory, Relationship
    from remember.search import text
    from remember.store import open_store

    store = open_store(url)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    rng = random.Random(7)
    made = []
    for i in range(memories):
        at = start + timedelta(hours=i)
        words = f"memory {i} about {rng.choice(['tea', 'books', 'trains', 'rain', 'maps'])}"
        memory = Memory(id=f"m{i:06}", user_id=USER, content=words, title=f"Memory {i}", type="note", weight=0.5,
                        trust=0.5, tags=(), created_at=at, updated_at=at, occurred_at=at)  # fmt: skip
        made.append((memory, IndexEntry(text.index_text(None, words, (), None), text.date_text(at), None)))
    for first in range(0, len(made), BATCH):
        store.memories.insert_many(made[first : first + BATCH])
    ends: list[str] = []  # one entry per link end: choosing from it prefers the well linked
    rels = []
    for n in range(relationships):
        a = f"m{n % memories:06}" if n < memories else rng.choice(ends)
        b = rng.choice(ends) if ends and rng.random() < 0.7 else f"m{rng.randrange(memories):06}"
        if a == b:
            b = f"m{(int(a[1:]) + 1) % memories:06}"
        at = start + timedelta(minutes=n)
        kind = rng.choice(["knows", "about", "part_of", "follows"])
        rels.append((Relationship(f"r{n:06}", USER, (a, b), kind, "", rng.random(), 0.8, at, at, valid_from=at), [], [],
                     None))  # fmt: skip
        ends += [a, b]
    for first in range(0, len(rels), BATCH):
        store.relationships.restore(USER, rels[first : first + BATCH])
    store.close()


@contextmanager
def served(url: str, folder: Path) -> Iterator[tuple[Any, str]]:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from http_support import HttpServer
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(url))
    issued = services.tokens.create(USER)
    session = services.dashboard_sessions.start(issued.token).secret
    services.close()
    server = HttpServer(folder, url).start()
    try:
        yield server, f"{issued.secret} {session}"
    finally:
        server.stop()


def api_times(server: Any, secret: str, rounds: int) -> dict[str, Any]:
    import httpx2

    samples = []
    with httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {secret}"}, timeout=120) as http:
        answer = http.get("/api/graph").json()  # warm
        for _ in range(rounds):
            t = time.perf_counter()
            http.get("/api/graph").json()
            samples.append((time.perf_counter() - t) * 1000)
    totals = {k: answer[k] for k in ("total_memories", "total_relationships")}
    return {"ms": percentiles(samples), "nodes": len(answer["nodes"]), "edges": len(answer["edges"]), **totals}


def browser_times(server: Any, session: str, rounds: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    drawn, answered, laid = [], [], []
    mark = "name => performance.getEntriesByName(name)[0].startTime"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        page.goto(f"{server.url}/health")
        page.evaluate("id => localStorage.setItem('remember.session', id)", session)
        for _ in range(rounds + 1):
            page.goto(f"{server.url}/#/graph")
            page.reload()
            page.wait_for_function("() => performance.getEntriesByName('graph-drawn').length > 0", timeout=120_000)
            drawn.append(float(page.evaluate(mark, "graph-drawn")))
            answered.append(float(page.evaluate(mark, "graph-answered")))
            laid.append(float(page.evaluate(mark, "graph-laid-out")) - answered[-1])
        browser.close()
    return {"first_draw_ms": percentiles(drawn[1:]), "answered_ms": percentiles(answered[1:]),
            "layout_ms": percentiles(laid[1:])}  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    rounds = 3 if quick else 10
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for memories, relationships in SIZES:
            key = f"{relationships}"
            sqlite_url = f"sqlite:///{Path(tmp) / f'graph{key}.db'}"
            furnish(sqlite_url, memories, relationships)
            with served(sqlite_url, Path(tmp) / f"home{key}") as (server, secrets):
                secret, session = secrets.split()
                figures[f"sqlite_{key}"] = api_times(server, secret, rounds)
                figures[f"browser_{key}"] = browser_times(server, session, rounds)
            with embedded_postgres_url(Path(tmp) / f"pg{key}") as url:
                furnish(url, memories, relationships)
                with served(url, Path(tmp) / f"pghome{key}") as (server, secrets):
                    figures[f"postgres_{key}"] = api_times(server, secrets.split()[0], rounds)
    table = Table("The graph's first draw", ["relationships", "drawn", "API SQLite p50/p95", "API PostgreSQL p50/p95",
                                             "browser p50/p95", "of which layout"])  # fmt: skip
    for _, relationships in SIZES:
        key = f"{relationships}"
        lite, pg, page = figures[f"sqlite_{key}"], figures[f"postgres_{key}"], figures[f"browser_{key}"]
        table.add(
            f"{relationships:,}", f"{lite['nodes']:,} of {lite['total_memories']:,} memories, {lite['edges']:,} lines",
            _p(lite["ms"]), _p(pg["ms"]), _p(page["first_draw_ms"]), _p(page["layout_ms"]),
        )  # fmt: skip
    table.print()
    return figures


def _p(figures: dict[str, float]) -> str:
    return f"{figures['p50']:.0f} / {figures['p95']:.0f} ms"
