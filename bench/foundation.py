"""Foundation figures: cold start, create latency, list latency at 10k, memory use.

Cold start is measured against a one-tool server on the same MCP SDK, run
alternately in the same loop, so the ratio holds on a noisy machine.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import remember
from bench.report import Table, percentiles
from bench.stdio import StdioPeer
from remember.caller import Caller

MINIMAL_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("minimal")

@server.tool()
def ping(text: str) -> str:
    \"\"\"Echo.\"\"\"
    return text

server.run()
"""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    return {**env, "REMEMBER_HOME": str(home)}


def compiled() -> None:
    """Compile remember's bytecode as installing it does (pip compiles a wheel's modules; the SDK's, which the
    minimal server imports, were compiled so). Without it, a ``PYTHONDONTWRITEBYTECODE`` in the environment
    makes every process spawned here compile remember's ~290 modules from source, which no installed server does."""
    compileall.compile_dir(Path(remember.__file__).parent, quiet=1)


def _cold_start(command: list[str], env: dict[str, str]) -> float:
    peer = StdioPeer(command, env)
    peer.handshake()
    peer.request("tools/list")
    elapsed = time.perf_counter() - peer.started
    peer.close()
    return elapsed * 1000


def cold_start(home: Path, rounds: int) -> dict[str, Any]:
    """Alternating runs of the minimal server, remember, and remember without its tool listing cache."""
    remember = [sys.executable, "-m", "remember", "serve"]
    minimal = [sys.executable, "-c", MINIMAL_SERVER]
    env = _env(home)
    _cold_start(remember, env)  # first run creates and migrates the database
    ours, floor, uncached = [], [], []
    for _ in range(rounds):
        floor.append(_cold_start(minimal, env))
        ours.append(_cold_start(remember, env))
        shutil.rmtree(home / "cache")  # as on the first start after an install or upgrade
        uncached.append(_cold_start(remember, env))
    p_ours, p_floor = percentiles(ours), percentiles(floor)
    return {
        "remember_ms": p_ours,
        "minimal_ms": p_floor,
        "first_start_ms": percentiles(uncached),
        "ratio_p50": p_ours["p50"] / p_floor["p50"],
    }


def create_via_service(home: Path, n: int, *, embed: bool) -> dict[str, float]:
    """Create latency through the service: keyword index only, or with the default MiniLM vector."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    embedder = MiniLMEmbedder() if embed else None
    if embedder is not None:
        embedder.load()
    services = Services.over(open_store(str(home / f"service-{embed}.db")), embedder=embedder)
    samples = []
    for i in range(n):
        started = time.perf_counter()
        services.memories.create(Caller("bench"), {"content": f"Memory number {i} about a meeting", "tags": ["bench"]})
        samples.append((time.perf_counter() - started) * 1000)
    services.close()
    return percentiles(samples)


def create_via_stdio(home: Path, n: int) -> tuple[dict[str, float], float]:
    peer = StdioPeer([sys.executable, "-m", "remember", "serve"], _env(home))
    peer.handshake()
    samples = []
    for i in range(n):
        started = time.perf_counter()
        peer.call("remember_create_memory", {"content": f"Memory number {i} over stdio", "tags": ["bench"]})
        samples.append((time.perf_counter() - started) * 1000)
    rss = peer.rss_mb()
    peer.close()
    return percentiles(samples), rss


def list_at_scale(home: Path, n: int, rounds: int) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(home / "scale.db")))
    started = time.perf_counter()
    for i in range(n):
        services.memories.create(
            Caller("bench"),
            {"content": f"Note {i}: something worth keeping", "type": ("book", "note", "person")[i % 3],
             "tags": [f"t{i % 20}"], "weight": (i % 10) / 10},
        )  # fmt: skip
    ingest = n / (time.perf_counter() - started)
    queries: dict[str, dict[str, Any]] = {
        "newest 20": {},
        "type=book": {"type": "book"},
        "tag t7": {"tags": ["t7"]},
        "weight>=0.8, by weight": {"filters": {"weight": {"gte": 0.8}}, "sort_by": "weight"},
        "page at offset 5000": {"offset": 5000},
    }
    results = {}
    for name, kwargs in queries.items():
        samples = []
        for _ in range(rounds):
            t = time.perf_counter()
            services.memories.list(Caller("bench"), **kwargs)
            samples.append((time.perf_counter() - t) * 1000)
        results[name] = percentiles(samples)
    services.close()
    return {"ingest_per_s": ingest, "list_ms": results}


def run(quick: bool = False) -> dict[str, Any]:
    compiled()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        cold = cold_start(home, 5 if quick else 15)
        service = create_via_service(home, 300 if quick else 2000, embed=False)
        embedded = create_via_service(home, 300 if quick else 2000, embed=True)
        stdio, rss = create_via_stdio(home, 100 if quick else 500)
        scale = list_at_scale(home, 2000 if quick else 10_000, 20 if quick else 100)
    table = Table("Foundation", ["measure", "p50", "p95", "note"])
    table.add("cold start: remember", cold["remember_ms"]["p50"], cold["remember_ms"]["p95"], "ms, spawn to tools/list")
    table.add("cold start: minimal server", cold["minimal_ms"]["p50"], cold["minimal_ms"]["p95"], "ms, same SDK")
    first = cold["first_start_ms"]
    table.add("cold start: first after install", first["p50"], first["p95"], "ms, tool listing not cached yet")
    table.add("cold start ratio", cold["ratio_p50"], None, "target <= 1.15")
    table.add("create via service", service["p50"], service["p95"], "ms, keyword index only; target p50 < 2")
    table.add("create via service + MiniLM", embedded["p50"], embedded["p95"], "ms, vector in the same transaction")
    table.add("create via MCP stdio", stdio["p50"], stdio["p95"], "ms, round trip")
    table.add("server RSS after creates", rss, None, "MB")
    table.add("ingest via service", scale["ingest_per_s"], None, "memories/s")
    for name, p in scale["list_ms"].items():
        table.add(f"list at 10k: {name}", p["p50"], p["p95"], "ms")
    table.print()
    return {
        "cold_start": cold,
        "create_service_ms": service,
        "create_service_embedded_ms": embedded,
        "create_stdio_ms": stdio,
        "rss_mb": rss,
        **scale,
    }
