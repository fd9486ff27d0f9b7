"""Fixtures of the HTTP tests: a server over the test's database, its token service and its dashboard sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from http_support import HttpServer
from oauth_support import Callback
from remember.service.dashboard_sessions import DashboardSessionService
from remember.service.tokens import TokenService
from remember.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def http_server(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    """A server over the test's database (SQLite or PostgreSQL), with tokens required."""
    server = HttpServer(tmp_path / "home", store.url).start()
    yield server
    server.stop()


@pytest.fixture
def tokens(store: Store) -> TokenService:
    return TokenService(store.tokens)


@pytest.fixture
def callback() -> Iterator[Callback]:
    """A connector's redirect listener on loopback (the built-in authorization server's tests)."""
    made = Callback()
    yield made
    made.close()


@pytest.fixture
def sessions(store: Store, tokens: TokenService) -> DashboardSessionService:
    return DashboardSessionService(store.dashboard_sessions, tokens)
