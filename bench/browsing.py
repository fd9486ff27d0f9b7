"""The dashboard's memory pages at scale (100,000 memories of one user), SQLite and PostgreSQL.

What ``GET /api/memories`` and ``GET /api/search`` cost: a keyset page (the first,
one deep in the list reached by its cursor, one under a structured filter), against
the offset page ``remember_list_memories`` reads (with its total), and a hybrid
search (keywords only: the memories carry no vectors) under the same filter. Every
other memory is a Book Review with a rating, so ``rating >= 4`` matches about 20%.
In Chromium (Debian's, over a real ``remember serve --http`` on the SQLite file):
the memories page loaded until its first page shows, and a filtered search from
the click until its results show.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles
from remember.caller import Caller

SIZE = 100_000
BATCH = 1_000
USER = "bench"
BOOK = "builtin:book_review"
CHROMIUM = "/usr/bin/chromium"
RATED = {"and": [{"template_id": BOOK}, {"structured_content.rating": {"gte": 4}}]}


def batches(n: int) -> Iterator[list[tuple[Any, Any]]]:
    from remember.models import IndexEntry, Memory
    from remember.search import text

    rng = random.Random(3)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    for first in range(0, n, BATCH):
        out = []
        for i in range(first, min(n, first + BATCH)):
            at = start + timedelta(minutes=i)
            words = f"memory {i} about {rng.choice(['tea', 'books', 'trains', 'rain', 'maps'])}"
            fields = {"title": f"Book {i}", "author": "A", "rating": rng.randint(1, 5)} if i % 2 else None
            memory = Memory(
                id=f"m{i:07}", user_id=USER, content=words, type="book_review" if fields else "note", weight=0.5,
                trust=0.5, tags=("common",), created_at=at, updated_at=at, occurred_at=at,
                template_id=BOOK if fields else None, structured_content=fields,
            )  # fmt: skip
            out.append((memory, IndexEntry(text.index_text(None, words, memory.tags, None), text.date_text(at), None)))
        yield out


def in_browser(url: str, folder: Path, rounds: int) -> dict[str, Any]:
    """The memories page in Chromium over a real server: loaded until its first page shows, and a
    filtered search from the click until its results show."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from playwright.sync_api import sync_playwright

    from http_support import HttpServer
    from remember.service import Services
    from remember.store import open_store

    store = open_store(url)
    services = Services.over(store)
    session = services.dashboard_sessions.start(services.tokens.create(USER).token).secret
    services.close()
    server = HttpServer(folder / "home", url).start()
    load, search = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
            )
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{server.url}/health")  # the session is kept in the dashboard origin's storage, as a login does
            page.evaluate("id => localStorage.setItem('remember.session', id)", session)
            rows = page.locator(".results table tbody tr")
            for _ in range(rounds + 1):
                t = time.perf_counter()
                page.goto(f"{server.url}/#/memories")
                page.reload()
                rows.first.wait_for()
                load.append((time.perf_counter() - t) * 1000)
                page.get_by_label("Search").fill("books")
                page.get_by_label("Template", exact=True).select_option(BOOK)
                page.get_by_label("rating: condition").select_option("gte")
                page.get_by_label("rating: value").fill("4")
                page.evaluate("document.querySelector('.results').replaceChildren()")
                t = time.perf_counter()
                page.get_by_role("button", name="Search").click()
                rows.first.wait_for()
                search.append((time.perf_counter() - t) * 1000)
            browser.close()
    finally:
        server.stop()
    return {"page_load_ms": percentiles(load[1:]), "search_click_ms": percentiles(search[1:])}


def measure(url: str, n: int, rounds: int) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(url))
    for batch in batches(n):
        services.store.memories.insert_many(batch)
    memories = services.memories
    deep_cursor = None
    for _ in range(min(200, n // 20 - 1)):  # 200 pages in: the 4,001st memory on
        deep_cursor = memories.browse(Caller(USER), cursor=deep_cursor).next_cursor

    def ms(call: Any) -> dict[str, float]:
        call()  # warm
        samples = []
        for _ in range(rounds):
            t = time.perf_counter()
            call()
            samples.append((time.perf_counter() - t) * 1000)
        return percentiles(samples)

    last_offset = n - 20
    out = {
        "first_page_ms": ms(lambda: memories.browse(Caller(USER))),
        "deep_page_ms": ms(lambda: memories.browse(Caller(USER), cursor=deep_cursor)),
        "filtered_page_ms": ms(lambda: memories.browse(Caller(USER), filters=RATED)),
        "filtered_deep_page_ms": ms(lambda: memories.browse(Caller(USER), filters=RATED, cursor=deep_cursor)),
        "offset_last_page_ms": ms(lambda: memories.list(Caller(USER), offset=last_offset)),
        "search_filtered_ms": ms(
            lambda: services.search.search(Caller(USER), "books", alpha=0.0, filters=RATED, record_access=False)
        ),
    }
    services.close()
    return out


def run(quick: bool = False) -> dict[str, Any]:
    n, rounds = (5_000, 5) if quick else (SIZE, 20)
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = f"sqlite:///{Path(tmp) / 'browse.db'}"
        figures = {"sqlite": measure(sqlite_url, n, rounds)}
        figures["browser_sqlite"] = in_browser(sqlite_url, Path(tmp), rounds)
        with embedded_postgres_url(Path(tmp) / "pg") as url:
            figures["postgres"] = measure(url, n, rounds)
    table = Table(f"Dashboard memory pages, {n:,} memories", ["measure", "SQLite p50", "PostgreSQL p50", "note"])
    notes = {
        "first_page_ms": "keyset page of 20, newest first",
        "deep_page_ms": "keyset page 201 (by its cursor)",
        "filtered_page_ms": "template_id and rating >= 4, first page",
        "filtered_deep_page_ms": "the same filter, after page 200's cursor",
        "offset_last_page_ms": "for comparison: remember_list_memories' last page (offset, total)",
        "search_filtered_ms": "hybrid search (keywords), the same filter",
    }
    for key, note in notes.items():
        sqlite, postgres = figures["sqlite"][key]["p50"], figures["postgres"][key]["p50"]
        table.add(key.removesuffix("_ms"), sqlite, postgres, f"ms; {note}")
    table.print()
    shown = Table(f"The memories page in Chromium, {n:,} memories (SQLite)", ["measure", "p50", "p95", "note"])
    browser = figures["browser_sqlite"]
    shown.add(
        "page load", browser["page_load_ms"]["p50"], browser["page_load_ms"]["p95"], "ms; to the first page shown"
    )
    shown.add("search", browser["search_click_ms"]["p50"], browser["search_click_ms"]["p95"], "ms; click to results")
    shown.print()
    return {"memories": n, **figures}
