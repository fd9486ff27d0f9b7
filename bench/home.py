"""The dashboard's first page and its search as you type, for a user with 100,000 memories, in Chromium.

One ``remember serve --http`` per backend (the real embedding model) over a database holding ``SIZE``
memories of one user, every other one a Book Review (``browsing.batches``), told 50 to a conversation
(``context.conversation_id``), each with a vector: a random
unit vector, since what a vector search costs does not depend on what its vectors say and embedding
100,000 texts would take minutes; the questions are embedded by the real model. The search indexes are
built first, as ``remember import`` builds them. Measured:

- over HTTP, the requests the home page makes (its memories stored last, its timeline, the templates
  in use) and its search, by words and blended (the default);
- in Debian's Chromium, the first page: ``#/home`` reloaded, from the start of the navigation until its
  three parts show;
- in Chromium, search as you type: a question typed into the home page's box at 8 keys a second, from
  its last key until its results show (the page waits 300 ms after the last key before it asks), and
  the ``/api/search`` request alone (the browser's Resource Timing). Both are timed by the page's own
  clock (``PAGE_CLOCK``): Playwright's waits poll hundreds of milliseconds apart. Questions alternate between a
  common word (a fifth of the memories hold it) and a number only one memory holds.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.browsing import USER, batches
from bench.postgres import embedded_postgres_url
from bench.report import Table, percentiles

SIZE = 100_000
DIMENSION = 384
CONVERSATION = 50  # memories told in one conversation
WORDS = ("tea", "books", "trains", "rain", "maps")
KEY_DELAY = 125  # ms between keys: 8 a second
LAST_SEARCH = "performance.getEntriesByType('resource').filter(e => e.name.includes('/api/search')).pop().duration"
HOW = {"words": "By words", "both": "Both (a blend chosen each time)"}


def with_vectors(n: int) -> Iterator[list[tuple[Any, Any]]]:
    import numpy as np

    rng = np.random.default_rng(5)
    for batch in batches(n):
        vectors = rng.standard_normal((len(batch), DIMENSION)).astype("<f4")
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        pairs = zip(batch, vectors, strict=True)
        yield [(told(memory), replace(entry, vector=v.tobytes())) for (memory, entry), v in pairs]


def told(memory: Any) -> Any:
    """The memory as told in its conversation (the store finds a memory's predecessor by it)."""
    return replace(memory, context={"conversation_id": f"c{int(memory.id[1:]) // CONVERSATION}"})


def load(url: str, n: int) -> str:
    """The database filled and its indexes built; a dashboard session's id for its user."""
    from remember.search.embedders.minilm import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    started = time.perf_counter()
    # Loaded with no index kept in files (each batch past their threshold would update them), then built in bulk.
    loading = Services.over(open_store(url, vector_index_min=None, keyword_index_min=None), embedder=MiniLMEmbedder())
    assert loading.indexer.state() == "ready", loading.indexer.state()  # MiniLM recorded as the database's embedder
    with loading.store.index.bulk_vectors(n):
        for batch in with_vectors(n):
            loading.store.memories.insert_many(batch)
    loading.close()
    print(f"  {n:,} memories loaded in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    services = Services.over(open_store(url), embedder=MiniLMEmbedder())
    services.indexer.build_vector_index(USER)
    services.indexer.build_keyword_index(USER)
    session = services.dashboard_sessions.start(services.tokens.create(USER).token).secret
    services.close()
    return session


def questions(n: int, rounds: int) -> list[str]:
    rng = random.Random(11)
    return [WORDS[i % len(WORDS)] if i % 2 else str(rng.randrange(n)) for i in range(rounds + 1)]


def over_http(server: Any, token: str, n: int, rounds: int) -> dict[str, Any]:
    import httpx2

    calls = {
        "stored_last": ("/api/memories", {"limit": 8}),
        "timeline": ("/api/memories", {"sort_by": "occurred_at", "limit": 12}),
        "templates_in_use": ("/api/analytics/templates", {}),
    }
    out: dict[str, Any] = {}
    with httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        for name, (path, params) in calls.items():
            out[name] = _timed(lambda path=path, params=params: http.get(path, params=params), rounds)
        for how, alpha in (("words", {"alpha": 0}), ("both", {})):
            asked = iter(questions(n, rounds))

            def search(alpha: dict[str, int] = alpha, asked: Iterator[str] = asked) -> Any:
                return http.get("/api/search", params={"q": next(asked), "limit": 8, **alpha})

            out[f"search_{how}"] = _timed(search, rounds)
    return out


def _timed(call: Any, rounds: int) -> dict[str, float]:
    assert call().status_code == 200  # warm
    samples = []
    for _ in range(rounds):
        t = time.perf_counter()
        answer = call()
        samples.append((time.perf_counter() - t) * 1000)
        assert answer.status_code == 200, answer.text
    return percentiles(samples)


# Times taken in the page, by its own clock (Playwright's waits poll, hundreds of ms apart): when the home
# page's three parts first all show, when the search box was last typed in, and when its results show.
PAGE_CLOCK = """
window.__shown = null; window.__typed = 0; window.__found = null;
const parts = ["#recent-h + div ul.recent li", "ul.used li", "ol.timeline li"];
new MutationObserver(() => {
  if (window.__shown === null && parts.every((p) => document.querySelector(p))) window.__shown = performance.now();
  const found = document.querySelector(".home-search ul.recent li");
  if (window.__found === null && found) window.__found = performance.now();
}).observe(document, { subtree: true, childList: true });
document.addEventListener("input", (e) => {
  if (e.target.name === "q") { window.__typed = performance.now(); window.__found = null; }
}, true);
"""


def in_browser(server: Any, session: str, n: int, rounds: int) -> dict[str, Any]:
    from playwright.sync_api import expect, sync_playwright

    out: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        context = browser.new_context(bypass_csp=True)  # the page's clock is a script the page did not ship
        context.add_init_script(PAGE_CLOCK)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{server.url}/health")  # the session kept in the dashboard origin's storage, as a login does
        page.evaluate("id => localStorage.setItem('remember.session', id)", session)
        shown = []
        for _ in range(rounds + 1):
            page.goto(f"{server.url}/#/home")
            page.reload()
            page.wait_for_function("window.__shown !== null")
            shown.append(page.evaluate("window.__shown"))  # since the navigation started
        out["first_page_ms"] = percentiles(shown[1:])
        box = page.get_by_label("Search your memories")
        results = page.locator(".home-search ul.recent li")
        for how, label in HOW.items():
            page.get_by_label(label).check()
            typed, requested = [], []
            for question in questions(n, rounds):
                box.fill("")
                expect(results).to_have_count(0)
                page.evaluate("performance.clearResourceTimings()")
                box.press_sequentially(question, delay=KEY_DELAY)
                page.wait_for_function("window.__found !== null")
                typed.append(page.evaluate("window.__found - window.__typed"))
                requested.append(page.evaluate(LAST_SEARCH))
            out[f"typed_{how}_ms"] = percentiles(typed[1:])
            out[f"request_{how}_ms"] = percentiles(requested[1:])
        browser.close()
    return out


def measure(url: str, folder: Path, n: int, rounds: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from http_support import HttpServer
    from remember.service import Services
    from remember.store import open_store

    session = load(url, n)
    services = Services.over(open_store(url))
    token = services.tokens.create(USER).secret
    services.close()
    server = HttpServer(folder / "home", url, env={"REMEMBER_EMBEDDER": "onnx"}).start()
    try:
        return {"http": over_http(server, token, n, rounds), "browser": in_browser(server, session, n, rounds)}
    finally:
        server.stop()


def run(quick: bool = False) -> dict[str, Any]:
    n, rounds = (5_000, 5) if quick else (SIZE, 20)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        figures["sqlite"] = measure(f"sqlite:///{Path(tmp) / 'home.db'}", Path(tmp) / "s", n, rounds)
        with embedded_postgres_url(Path(tmp) / "pg") as url:
            figures["postgres"] = measure(url, Path(tmp) / "p", n, rounds)
    requests = Table(f"The home page's requests over HTTP, {n:,} memories (ms)", ["request", "backend", "p50", "p95"])
    for name in ("stored_last", "timeline", "templates_in_use", "search_words", "search_both"):
        for backend in ("sqlite", "postgres"):
            got = figures[backend]["http"][name]
            requests.add(name, backend, got["p50"], got["p95"])
    requests.print()
    shown = Table(f"The home page in Chromium, {n:,} memories (ms)", ["measure", "backend", "p50", "p95"])
    for name in ("first_page", "typed_words", "request_words", "typed_both", "request_both"):
        for backend in ("sqlite", "postgres"):
            got = figures[backend]["browser"][f"{name}_ms"]
            shown.add(name, backend, got["p50"], got["p95"])
    shown.print()
    return {"memories": n, **figures}
