"""Shared fixtures: every test gets its own data folder and real SQLite file."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remember.service import Services
from remember.store import Store, open_store


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point REMEMBER_HOME at a temp folder and drop any REMEMBER_* settings of the machine."""
    import os

    for name in list(os.environ):
        if name.startswith("REMEMBER_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    monkeypatch.setenv("REMEMBER_HOME", str(home))
    return home


class TickingClock:
    """A clock that moves one second per reading, so timestamps order deterministically."""

    def __init__(self, start: datetime = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self._ticks = itertools.count()
        self.start = start

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=next(self._ticks))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "remember.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = open_store(f"sqlite:///{db_path}")
    yield s
    s.close()


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture
def services(store: Store, clock: TickingClock) -> Services:
    return Services.over(store, clock)
