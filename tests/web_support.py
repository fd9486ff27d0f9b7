"""The dashboard tests' view of the server under test (``Site``), and axe-core run in a page.

axe-core is installed by scripts/test into .cache/axe (npm, pinned). ``axe_problems``
needs a page opened in a context that bypasses the page's CSP, so that the checker
(a script the page did not ship) can run in it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from http_support import HttpServer
from remember.service import Services
from remember.store import open_store

AXE = Path(__file__).resolve().parents[1] / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


class Site:
    """The server under test, its database, and ways to make users, tokens and memories in it."""

    def __init__(self, server: HttpServer, database_url: str, shots: Path) -> None:
        self.server = server
        self.url = server.url
        self.database_url = database_url
        self.shots = shots
        self.store = open_store(database_url)
        self.services = Services.over(self.store)
        self._users = 0

    def user(self, name: str = "user") -> str:
        """A user id no other test of the module uses."""
        self._users += 1
        return f"{re.sub(r'[^a-z0-9]+', '-', name.lower())}-{self._users}"

    def token(self, user: str, **options: Any) -> str:
        return self.services.tokens.create(user, **options).secret

    def session(self, user: str, **options: Any) -> str:
        """The id of a new dashboard session for ``user``, made from a new token (``options``: the token's)."""
        issued = self.services.tokens.create(user, **options)
        return self.services.dashboard_sessions.start(issued.token).secret

    def log_in(self, page: Any, user: str) -> None:
        """Give ``page``'s browser a session for ``user`` (as a login keeps it) and open the dashboard."""
        self.open_as(page, self.session(user), "#/memories")

    def open_as(self, page: Any, session: str, address: str) -> None:
        """Open ``address`` of the dashboard straight away, holding ``session`` (kept first from a page that
        runs no code of the dashboard's, so that no view starts drawing before the session is there)."""
        page.goto(f"{self.url}/health")
        page.evaluate("id => localStorage.setItem('remember.session', id)", session)
        page.goto(f"{self.url}/{address}")

    def shot(self, page: Any, name: str) -> Path:
        path = self.shots / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def shot_at_width(self, page: Any, name: str, *, phone_only: bool = False) -> Path | None:
        """``shot``, named ``NAME-phone`` at a phone's width; with ``phone_only``, none at a desktop's."""
        phone = page.viewport_size["width"] < 800
        if phone_only and not phone:
            return None
        return self.shot(page, f"{name}-phone" if phone else name)

    def close(self) -> None:
        self.store.close()


def axe_problems(page: Any) -> list[str]:
    """Every serious or critical WCAG 2 A/AA problem axe-core finds in ``page`` as it is now."""
    if not AXE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{AXE} is missing: scripts/test installs it")
        pytest.skip(f"{AXE} is missing: run scripts/test once")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']})).violations"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in SERIOUS
    ]


def sideways(page: Any) -> int:
    """How many pixels the page scrolls sideways (0 when it fits its window)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def axe_problems_at(browser: Any, page: Any, ready: Callable[[Any], None]) -> list[str]:
    """axe_problems of ``page``'s address opened again, at ``page``'s size and with its session, in a context
    that lets the checker run; ``ready(checked)`` waits there for what is to be checked."""
    size = page.viewport_size
    context = browser.new_context(bypass_csp=True, viewport=size, is_mobile=size["width"] < 800)
    context.set_default_timeout(15_000)
    try:
        checked = context.new_page()
        session = page.evaluate("() => localStorage.getItem('remember.session')")
        address = page.url.split("/", 3)[3]
        base = page.url.split("/#", 1)[0].rstrip("/")
        checked.goto(f"{base}/health")
        checked.evaluate("id => localStorage.setItem('remember.session', id)", session)
        checked.goto(f"{base}/{address}")
        ready(checked)
        return axe_problems(checked)
    finally:
        context.close()


WRITE = {"X-Remember-Request": "1"}  # the header the dashboard's API asks of a request that changes something


def client(server: HttpServer, services: Services, user: str, **token: Any) -> httpx2.Client:
    """An HTTP client of the dashboard's API with a new token of ``user`` (``token``: its options) and the write
    header."""
    secret = services.tokens.create(user, **token).secret
    return httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {secret}", **WRITE}, timeout=60)
