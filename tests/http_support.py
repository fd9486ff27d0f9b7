"""Helpers for the HTTP tests: a real ``remember serve --http`` subprocess on a free loopback port,
the SDK's client with a token, and a fingerprint of what users have stored (either backend)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from remember.caller import Caller
from remember.service.import_export.jsonl import export_records
from remember.store import Store

MODES = ("legacy", "2026-07-28")  # the session-based revisions, and the stateless one


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class HttpServer:
    """``remember serve --http`` in a subprocess; stopped with SIGTERM (or killed) when done."""

    def __init__(self, home: Path, database_url: str, *args: str, env: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.home = home
        base = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
        self.env = {
            **base,
            "REMEMBER_HOME": str(home),
            "REMEMBER_DATABASE_URL": database_url,
            "REMEMBER_EMBEDDER": "hash",  # the real model is tested elsewhere; here start-up speed counts
            **(env or {}),
        }
        self.args = args
        self.log = home / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> HttpServer:
        self.home.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "remember", "serve", "--http", "--port", str(self.port), *self.args]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()}")
            try:
                if httpx2.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx2.TransportError:
                time.sleep(0.1)
        raise AssertionError(f"the server did not start: {self.log.read_text()}")

    def stop(self) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()


@asynccontextmanager
async def connect(server: HttpServer, token: str | None, mode: str = "legacy", **headers: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending ``token`` as a bearer token."""
    sent = {**({"Authorization": f"Bearer {token}"} if token else {}), **headers}
    timeout = httpx2.Timeout(60.0, read=300.0)
    async with (
        httpx2.AsyncClient(headers=sent, timeout=timeout) as http,
        Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


def logical_fingerprint(store: Store, users: list[str]) -> str:
    """Everything the users have stored (memories with their access counts, history, templates,
    preferences, suggestion events), as text: equal means nothing of theirs was read or changed."""
    records = [r for r in export_records(store, [Caller(user) for user in users]) if "format" not in r]
    return json.dumps(records, sort_keys=True, default=str)


def initialize_body(version: str = "2025-06-18") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


INSPECTOR = Path(__file__).resolve().parents[1] / ".cache" / "node" / "node_modules" / ".bin" / "mcp-inspector"


def inspector(server: HttpServer, tmp_path: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The MCP Inspector's CLI (a third-party client) against ``server`` with ``token`` in a header."""
    if not INSPECTOR.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR}; scripts/test installs it")
        pytest.skip("the MCP Inspector is not installed; run scripts/test to install it")
    assert shutil.which("node"), "node is needed to run the MCP Inspector"
    command = [str(INSPECTOR), "--cli", f"{server.url}/mcp", "--transport", "http"]
    command += ["--header", f"Authorization: Bearer {token}", *args]
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "inspector.json")}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
