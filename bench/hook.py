"""What `remember hook claude-code` costs per event: spawn to answer, the process started anew each time as
the assistant starts it, over a database of a few hundred memories.

Warm means the median of the calls after the first, the first shown apart: with a process answering each event
(``REMEMBER_HOOK_KEEP_WARM=0``), warm means the files are in the page cache; with the warm worker, the first event
is answered in its own process and starts the worker, and the next ones are handed to it. Beside them, a bare
`python -c pass` and the SessionStart event (no query to embed) say where the time goes.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Table

MEMORIES = 300
ROUNDS = 7
TARGET_MS = 300
WORKER_WARM_UP_S = 5  # the worker loads the model after it starts listening
PROMPT = "what should I get Anna for her birthday?"


def _fill(env: dict[str, str], count: int) -> None:
    lines = [json.dumps({"content": f"Note {i}: a meeting about project {i % 17} with person {i % 23}."})
             for i in range(count)]  # fmt: skip
    lines.append(json.dumps({"content": "Anna's birthday is on 14 March; she likes orchids", "weight": 0.9}))
    script = (
        "import json, sys\n"
        "from remember.app import open_services\nfrom remember.caller import Caller\n"
        "from remember.config import Settings\n"
        "s = Settings.from_env()\nservices = open_services(s)\n"
        "services.memories.create_many(Caller(s.user), [json.loads(line) for line in sys.stdin])\nservices.close()\n"
    )
    subprocess.run([sys.executable, "-c", script], input="\n".join(lines), text=True, env=env, check=True)


def _spawn(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
    return (time.perf_counter() - start) * 1000, done.stdout


def _times(argv: list[str], stdin: bytes, env: dict[str, str], rounds: int) -> dict[str, float]:
    first, out = _spawn(argv, stdin, env)
    warm = [_spawn(argv, stdin, env)[0] for _ in range(rounds)]
    return {"first_ms": first, "warm_ms": statistics.median(warm), "answered": float(bool(out))}


def run(quick: bool = False) -> dict[str, Any]:
    rounds = 3 if quick else ROUNDS
    hook = [sys.executable, "-m", "remember", "hook", "claude-code"]
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "session_id": "b"}).encode()
    session = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "session_id": "b"}).encode()
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(prefix="rh", dir="/tmp") as sockets:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("REMEMBER_", "XDG_RUNTIME_DIR"))}
        env = base | {"REMEMBER_HOME": tmp, "TMPDIR": sockets, "REMEMBER_HOOK_KEEP_WARM": "0"}
        _fill(env, 30 if quick else MEMORIES)
        figures = {
            "python -c pass": _times([sys.executable, "-c", "pass"], b"", env, rounds),
            "SessionStart, a process each": _times(hook, session, env, rounds),
            "UserPromptSubmit, a process each": _times(hook, prompt, env, rounds),
        }
        warm = env | {"REMEMBER_HOOK_KEEP_WARM": "60"}
        try:
            figures["UserPromptSubmit, warm worker"] = _times_with_worker(hook, prompt, warm, rounds)
            figures["SessionStart, warm worker"] = _times(hook, session, warm, rounds)
        finally:
            subprocess.run(["pkill", "-f", f"remember.cli.hook_worker {sockets}"], check=False)
    table = Table(
        f"remember hook claude-code, spawn to answer ({rounds} warm calls)", ["event", "first", "warm", "note"]
    )
    for name, t in figures.items():
        note = f"target < {TARGET_MS} ms warm" if name.startswith("UserPromptSubmit") else None
        table.add(name, f"{t['first_ms']:.0f} ms", f"{t['warm_ms']:.0f} ms", note)
    table.print()
    return figures


def _times_with_worker(argv: list[str], stdin: bytes, env: dict[str, str], rounds: int) -> dict[str, float]:
    """The first event (answered in its own process, which starts the worker), then the events the worker
    answers once it has loaded the model."""
    first, out = _spawn(argv, stdin, env)
    folder = Path(env["TMPDIR"]) / f"remember-{os.getuid()}"
    deadline = time.monotonic() + 120
    while not list(folder.glob("*.sock")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(WORKER_WARM_UP_S)
    warm = [_spawn(argv, stdin, env)[0] for _ in range(rounds)]
    return {"first_ms": first, "warm_ms": statistics.median(warm), "answered": float(bool(out))}
