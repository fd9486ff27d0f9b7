"""The first hour of a new user: what each first step waits for, measured from a process's spawn.

- ``remember add`` with a template suggestion and with ``--no-suggestion``, run
  alternately in the same home (its database made by an earlier add), and once in a
  home never used (the first add after an install).
- A stdio server spawned afresh: spawn to its first ``tools/list`` answered, and spawn
  to its first ``remember_create_memory`` answered (with suggestions, the default),
  alternately; then the same for a home never used. Beside them, the create sent as a
  client sends it, a second after ``tools/list`` (the user typing), timed from the call.
- Ingest over MCP stdio: memories created one call after another by one server.
- ``remember_infer_templates`` over 2,000 memories (the service's ``propose``, the
  memories stored with their vectors beforehand): wall and CPU time of a call.

Targets: add within 1.5x of ``--no-suggestion``; first create within 1.5x of the first
``tools/list``; ingest >= 100 memories/s.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.foundation import _env, compiled
from bench.infer import mix
from bench.report import Table, percentiles
from bench.stdio import StdioPeer
from remember.caller import Caller

TEXT = "Had lunch with Pedro at the Italian place on Elm Street, the carbonara was great ({n})"
REMEMBER = [sys.executable, "-m", "remember"]
INFER_MEMORIES = 2000


def _add(home: Path, n: int, *, suggest: bool) -> float:
    """Milliseconds from spawn to exit of one ``remember add``."""
    command = [*REMEMBER, "add", TEXT.format(n=n), *([] if suggest else ["--no-suggestion"])]
    started = time.perf_counter()
    subprocess.run(command, env=_env(home), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def cli_add(home: Path, rounds: int) -> dict[str, Any]:
    """``remember add`` with and without a suggestion, alternately; then in homes never used."""
    _add(home, 0, suggest=False)  # the database is made once
    with_, without = [], []
    for n in range(rounds):
        with_.append(_add(home, 2 * n + 1, suggest=True))
        without.append(_add(home, 2 * n + 2, suggest=False))
    first = []
    for _ in range(max(1, rounds // 3)):
        with tempfile.TemporaryDirectory() as fresh:
            first.append(_add(Path(fresh), 0, suggest=True))
    p_with, p_without = percentiles(with_), percentiles(without)
    return {"suggest_ms": p_with, "no_suggestion_ms": p_without, "first_ever_ms": percentiles(first),
            "ratio_p50": p_with["p50"] / p_without["p50"]}  # fmt: skip


def _spawn_until(home: Path, method: str) -> float:
    """Milliseconds from spawn to the answer of a fresh server's first ``tools/list`` or create."""
    peer = StdioPeer([*REMEMBER, "serve"], _env(home))
    try:
        peer.handshake()
        if method == "tools/list":
            peer.request("tools/list")
        else:
            peer.call("remember_create_memory", {"content": TEXT.format(n=time.time_ns())})
        return (time.perf_counter() - peer.started) * 1000
    finally:
        peer.close()


def _create_after_listing(home: Path, pause: float = 1.0) -> float:
    """Milliseconds of a fresh server's first create sent ``pause`` seconds after its ``tools/list``, from the call."""
    peer = StdioPeer([*REMEMBER, "serve"], _env(home))
    try:
        peer.handshake()
        peer.request("tools/list")
        time.sleep(pause)
        started = time.perf_counter()
        peer.call("remember_create_memory", {"content": TEXT.format(n=time.time_ns())})
        return (time.perf_counter() - started) * 1000
    finally:
        peer.close()


def stdio_first(home: Path, rounds: int) -> dict[str, Any]:
    """A fresh server's first ``tools/list`` and first create, alternately; then in homes never used."""
    _spawn_until(home, "tools/list")  # the database and the kept tool listing are made once
    listed, created, later = [], [], []
    for _ in range(rounds):
        listed.append(_spawn_until(home, "tools/list"))
        created.append(_spawn_until(home, "create"))
        later.append(_create_after_listing(home))
    first = []
    for _ in range(max(1, rounds // 3)):
        with tempfile.TemporaryDirectory() as fresh:
            first.append(_spawn_until(Path(fresh), "create"))
    p_list, p_create = percentiles(listed), percentiles(created)
    return {"tools_list_ms": p_list, "first_create_ms": p_create, "first_ever_create_ms": percentiles(first),
            "create_after_listing_ms": percentiles(later), "ratio_p50": p_create["p50"] / p_list["p50"]}  # fmt: skip


def stdio_ingest(home: Path, n: int) -> dict[str, Any]:
    """Memories per second created one call after another by one server (after its first call)."""
    peer = StdioPeer([*REMEMBER, "serve"], _env(home))
    peer.handshake()
    peer.call("remember_create_memory", {"content": "warm up"})
    texts = [text for text, _ in mix(seed=5, per_kind=n // 5 + 1)][:n]
    started = time.perf_counter()
    for text in texts:
        peer.call("remember_create_memory", {"content": text})
    elapsed = time.perf_counter() - started
    peer.close()
    return {"memories": n, "per_s": n / elapsed}


def infer(home: Path, n: int, rounds: int) -> dict[str, Any]:
    """Wall and CPU milliseconds of ``propose`` over ``n`` stored memories with their vectors."""
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(home / "infer.db")), embedder=MiniLMEmbedder())
    caller = Caller("bench")
    texts = [text for text, _ in mix(seed=7, per_kind=(n - 20) // 5)]
    for start in range(0, len(texts), 200):
        services.memories.create_many(caller, [{"content": t} for t in texts[start : start + 200]])
    walls, cpus, proposals = [], [], 0
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        found = services.inference.propose(caller)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        proposals = len(found.proposals)
    services.close()
    return {"memories": len(texts), "wall_ms": percentiles(walls), "cpu_ms": percentiles(cpus),
            "proposals": proposals}  # fmt: skip


def run(quick: bool = False) -> dict[str, Any]:
    rounds = 3 if quick else 9
    compiled()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        add = cli_add(home / "cli", rounds)
        stdio = stdio_first(home / "stdio", rounds)
        ingest = stdio_ingest(home / "ingest", 100 if quick else 500)
        inferred = infer(home, 500 if quick else INFER_MEMORIES, 2 if quick else 3)
    table = Table("First hour (from spawn)", ["measure", "p50", "p95", "note"])
    table.add("remember add", add["suggest_ms"]["p50"], add["suggest_ms"]["p95"], "ms, with a suggestion")
    none = add["no_suggestion_ms"]
    table.add("remember add --no-suggestion", none["p50"], none["p95"], "ms")
    table.add("add ratio", add["ratio_p50"], None, "target <= 1.5")
    first = add["first_ever_ms"]
    table.add("remember add, home never used", first["p50"], first["p95"], "ms, with a suggestion")
    table.add("stdio: first tools/list", stdio["tools_list_ms"]["p50"], stdio["tools_list_ms"]["p95"], "ms")
    created = stdio["first_create_ms"]
    table.add("stdio: first create", created["p50"], created["p95"], "ms, with suggestions")
    table.add("first create ratio", stdio["ratio_p50"], None, "target <= 1.5")
    later = stdio["create_after_listing_ms"]
    table.add("stdio: first create 1 s after tools/list", later["p50"], later["p95"], "ms from the call")
    ever = stdio["first_ever_create_ms"]
    table.add("stdio: first create, home never used", ever["p50"], ever["p95"], "ms")
    table.add("ingest via MCP stdio", ingest["per_s"], None, "memories/s, target >= 100")
    table.add(f"infer templates over {inferred['memories']}", inferred["wall_ms"]["p50"], None,
              f"ms wall; {inferred['proposals']} proposals")  # fmt: skip
    table.add("infer templates, CPU", inferred["cpu_ms"]["p50"], None, "ms of CPU")
    table.print()
    return {"add": add, "stdio": stdio, "ingest": ingest, "infer": inferred}
