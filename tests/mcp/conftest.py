from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from remember.mcp.server import build_server
from remember.service import Services


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server_for(services: Services) -> Callable[[str], MCPServer]:
    return lambda user: build_server(services, lambda: user)


@pytest.fixture
async def client(server_for: Callable[[str], MCPServer]) -> AsyncIterator[Client]:
    async with Client(server_for("alice")) as c:
        yield c


@pytest.fixture
async def bob(server_for: Callable[[str], MCPServer]) -> AsyncIterator[Client]:
    async with Client(server_for("bob")) as c:
        yield c


@pytest.fixture
def db(db_path: Path) -> Path:
    return db_path
