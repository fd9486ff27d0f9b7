"""The dashboard tests' view of the server under test (``Site``), shared by tests/web and bench."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from http_support import HttpServer
from remember.service import Services
from remember.store import open_store


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

    def log_in(self, page: Any, user: str) -> None:
        """Give ``page``'s browser a session for ``user`` (the cookie a login sets) and open the dashboard."""
        page.context.add_cookies([{"name": "remember_session", "value": self.token(user), "url": self.url}])
        page.goto(f"{self.url}/#/memories")

    def shot(self, page: Any, name: str) -> Path:
        path = self.shots / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.store.close()
