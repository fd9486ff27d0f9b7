"""Fixtures of the dashboard tests: a real server, a real Chromium driven by Playwright, real users.

One ``remember serve --http`` (tokens required) over a SQLite file serves each test
module; each test acts for users of its own (``Site.user``), so tests share the
server without sharing data. The browser is Debian's Chromium (``/usr/bin/chromium``,
installed by ``scripts/test``); without it the browser tests are skipped, except in CI
(``CI=true``), where they fail. ``REMEMBER_SCREENSHOTS=DIR`` keeps the screenshots the
tests take (``Site.shot``) in DIR: docs/dashboard.md shows the ones in docs/dashboard/.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from http_support import HttpServer
from remember.service import Services
from remember.store import Store, open_store
from web_support import Site

CHROMIUM = Path(os.environ.get("REMEMBER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium_or_skip() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing: `apt-get install chromium` (scripts/test does it as root)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("dashboard")
    url = f"sqlite:///{folder / 'remember.db'}"
    open_store(url).close()  # migrated before the server and the tests open it
    server = HttpServer(folder / "home", url).start()
    shots = Path(os.environ.get("REMEMBER_SCREENSHOTS") or folder / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    found = Site(server, url, shots)
    yield found
    found.close()
    server.stop()


WIDTHS = {"desktop": 1280, "phone": 390}


@pytest.fixture(params=sorted(WIDTHS))
def sized(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page 1280 px wide (desktop) or 390 (phone); the test fails on any error the page's code raises or the
    console prints (a missing file, a refused script), as a person with the console open would see it."""
    width = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": 860}, is_mobile=width < 800)
    context.set_default_timeout(15_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if _unexpected(message) else None)
    yield opened
    context.close()
    assert errors == [], f"the page's code failed: {errors}"


def _unexpected(message: Any) -> bool:
    """A console error, other than the browser's note of an API answer the page shows as a refusal
    (a 422 of a form with a problem is the form working: its message is shown beside the field)."""
    if message.type != "error":
        return False
    refusal = "status of 422" in message.text or "status of 409" in message.text
    return not (refusal and "/api/" in (message.location or {}).get("url", ""))


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], f"the page's code failed: {errors}"


@pytest.fixture
def served(tmp_path: Path, store: Store) -> Iterator[tuple[HttpServer, Services]]:
    """The HTTP server over the test's database (SQLite or PostgreSQL), and services over the same store."""
    server = HttpServer(tmp_path / "home", store.url).start()
    yield server, Services.over(store)
    server.stop()
