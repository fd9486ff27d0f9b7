"""Real `remember serve` processes: killed mid-ingest, and several writing one file at once.

Smaller versions of the fault runs in the hardening notes: every write a server
acknowledged is there after `kill -9` and a restart, and servers and command-line
writers sharing one SQLite file lose nothing and never report it locked.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from remember.store import open_store

pytestmark = pytest.mark.slow

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def server_env(home: Path, db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    # The hashing embedder: what is measured is the storage, and the model's load time would only slow it down.
    settings = {"REMEMBER_USER": "alice", "REMEMBER_DATABASE_URL": f"sqlite:///{db}", "REMEMBER_EMBEDDER": "hash"}
    return {**env, "REMEMBER_HOME": str(home), **settings}


class Server:
    """A `remember serve` subprocess spoken to in raw JSON-RPC lines."""

    def __init__(self, home: Path, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "remember", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(home, db),
            bufsize=0,
        )
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        assert "result" in self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")

    def receive(self, seconds: float = 300) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], seconds)
        assert ready, f"no answer within {seconds} s"
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def create(self, request_id: int, content: str) -> None:
        arguments = {"content": content, "tags": ["durable"]}
        params = {"name": "remember_create_memory", "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    def stop(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        self.proc.stdout.close()

    def kill(self) -> None:
        """``kill -9``: no chance to finish anything."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):
                    pipe.close()


def acknowledged(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert not result.get("isError"), result
    return str(result["structuredContent"]["id"])


def stored_ids(db: Path) -> set[str]:
    store = open_store(str(db))
    try:
        ids: set[str] = set()
        after: tuple[str, str] | None = None
        while page := store.memories.ids_page(after, 1_000):
            ids |= {memory_id for _, memory_id in page}
            after = page[-1]
        return ids
    finally:
        store.close()


def test_every_acknowledged_write_survives_kill_9_mid_ingest(tmp_path: Path) -> None:
    db = tmp_path / "remember.db"
    acked: set[str] = set()
    for round_ in range(3):
        server = Server(tmp_path / "home", db)
        for n in range(30):  # pipelined: the kill lands while requests are being written
            server.create(n + 1, f"round {round_} memory {n}")
        acked |= {acknowledged(server.receive()) for _ in range(10 + 5 * round_)}
        server.kill()
    assert acked <= stored_ids(db)
    assert len(acked) == 10 + 15 + 20


def test_servers_and_command_line_writers_share_one_file(tmp_path: Path) -> None:
    db = tmp_path / "remember.db"
    servers = [Server(tmp_path / f"home{i}", db) for i in range(3)]
    acked: set[str] = set()
    lock = threading.Lock()
    errors: list[str] = []

    def cli_writer(index: int) -> None:
        for n in range(8):
            done = subprocess.run(
                [sys.executable, "-m", "remember", "add", f"from the command line {index}/{n}", "--json"],
                capture_output=True, text=True, env=server_env(tmp_path / "cli", db), check=False, timeout=300,
            )  # fmt: skip
            if done.returncode != 0:
                errors.append(done.stderr)
                continue
            with lock:
                acked.add(json.loads(done.stdout)["id"])

    writers = [threading.Thread(target=cli_writer, args=(i,)) for i in range(2)]
    for writer in writers:
        writer.start()
    for n in range(20):
        for i, server in enumerate(servers):  # distinct texts: the same call from two servers is stored once
            server.create(n + 1, f"from server {i}, note {n}")
        if n % 10 == 0:
            servers[0].send({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/call", "params": {
                "name": "remember_search_memory", "arguments": {"query": "server"}}})  # fmt: skip
    for server in servers:
        answers = [server.receive() for _ in range(20 + (2 if server is servers[0] else 0))]
        acked |= {acknowledged(a) for a in answers if a["id"] < 1000}
        assert all(not a["result"].get("isError") for a in answers), answers
        server.stop()
    for writer in writers:
        writer.join()
    assert errors == []
    assert len(acked) == 3 * 20 + 2 * 8
    assert acked <= stored_ids(db)
