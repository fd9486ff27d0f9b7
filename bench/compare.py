"""Two commits side by side: `python -m bench.compare BASE [--rounds N] [--scale-size N] [--quick]`.

Runs the suites that say whether a change kept the product's figures (LoCoMo recall,
search at scale on SQLite and PostgreSQL, ingest, cold start) on BASE and on the
working tree, alternating which goes first each round, then prints each figure of
both with its change. BASE is checked out as a git worktree beside this checkout
(so that ``../shared/`` holds the bench data for both) and removed at the end; each
run imports its own tree's code (``PYTHONPATH``) in this virtualenv.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
SUITES = ("locomo", "foundation", "scale")

Figure = Callable[[dict[str, Any]], float | None]


def _at(*path: str | int) -> Figure:
    def read(data: dict[str, Any]) -> float | None:
        node: Any = data
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return None
        return float(node) if isinstance(node, int | float) else None

    return read


def _backend(name: str, *path: str) -> Figure:
    def read(data: dict[str, Any]) -> float | None:
        for side in data.get("scale", {}).get("backends", []):
            if side.get("backend") == name:
                return _at(*path)(side)
        return None

    return read


FIGURES: tuple[tuple[str, Figure, str], ...] = (
    ("LoCoMo recall@5, service with ids", _at("locomo", "scores", "service, ids", "overall", "recall@5"), "higher"),
    ("LoCoMo recall@10, service with ids", _at("locomo", "scores", "service, ids", "overall", "recall@10"), "higher"),
    ("LoCoMo recall@5, stdio no ids", _at("locomo", "scores", "MCP stdio, no ids", "overall", "recall@5"), "higher"),
    ("LoCoMo ingest over MCP stdio (memories/s)", _at("locomo", "mcp_ingest_per_s", "MCP stdio, ids"), "higher"),
    ("cold start p50 (ms)", _at("foundation", "cold_start", "remember_ms", "p50"), "lower"),
    ("cold start ratio to a minimal server", _at("foundation", "cold_start", "ratio_p50"), "lower"),
    ("create via service p50 (ms)", _at("foundation", "create_service_ms", "p50"), "lower"),
    ("create via service + MiniLM p50 (ms)", _at("foundation", "create_service_embedded_ms", "p50"), "lower"),
    ("ingest via service (memories/s)", _at("foundation", "ingest_per_s"), "higher"),
    *(
        (f"{name} {label}", _backend(name, *path), better)
        for name in ("SQLite", "PostgreSQL")
        for label, path, better in (
            ("import (memories/s)", ("ingest_per_s",), "higher"),
            ("hybrid p50 (ms)", ("default", "hybrid_ms", "p50"), "lower"),
            ("hybrid p95 (ms)", ("default", "hybrid_ms", "p95"), "lower"),
            ("keyword p50 (ms)", ("default", "keyword_ms", "p50"), "lower"),
            ("keyword p95 (ms)", ("default", "keyword_ms", "p95"), "lower"),
            ("semantic p50 (ms)", ("default", "semantic_ms", "p50"), "lower"),
            ("semantic p95 (ms)", ("default", "semantic_ms", "p95"), "lower"),
            ("hybrid with a rare tag p50 (ms)", ("default", "hybrid_rare_tag_ms", "p50"), "lower"),
        )
    ),
)


@contextmanager
def checked_out(ref: str) -> Iterator[Path]:
    sha = _git("rev-parse", "--short", ref)
    tree = HERE.parent / f"bench-base-{sha}"
    if not tree.exists():
        _git("worktree", "add", "--detach", str(tree), sha)
    try:
        yield tree
    finally:
        _git("worktree", "remove", "--force", str(tree))


def run_suites(tree: Path, scale_size: int, out: Path, quick: bool) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
    command = [sys.executable, "-m", "bench", "--only", *SUITES, "--scale-size", str(scale_size), "--json", str(out)]
    command += ["--quick"] if quick else []
    subprocess.run(command, cwd=tree, env=env, check=True)
    loaded: dict[str, Any] = json.loads(out.read_text())
    return loaded


def table(base: list[dict[str, Any]], head: list[dict[str, Any]], ref: str) -> str:
    lines = [f"| figure | {ref} | working tree | change |", "|---|---|---|---|"]
    for label, read, better in FIGURES:
        before, after = _median(read, base), _median(read, head)
        if before is None and after is None:
            continue
        lines.append(f"| {label} | {_show(before)} | {_show(after)} | {_change(before, after, better)} |")
    return "\n".join(lines)


def _median(read: Figure, runs: list[dict[str, Any]]) -> float | None:
    values = [v for v in (read(r) for r in runs) if v is not None]
    return statistics.median(values) if values else None


def _show(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if abs(value) < 1 else f"{value:,.1f}"


def _change(before: float | None, after: float | None, better: str) -> str:
    if before is None or after is None or before == 0:
        return ""
    change = (after - before) / before * 100
    return f"{change:+.1f}% ({better} is better)"


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(HERE), *args], check=True, capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the commit to compare the working tree with (e.g. a tag or a sha)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each tree; the table shows medians")
    parser.add_argument("--scale-size", type=int, default=100_000, help="memories in the scale suite")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every run's figures as JSON")
    parser.add_argument("--quick", action="store_true", help="each suite's smoke run (figures not comparable)")
    args = parser.parse_args()
    base: list[dict[str, Any]] = []
    head: list[dict[str, Any]] = []
    with checked_out(args.base) as tree, tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            order = [(tree, base), (HERE, head)]
            for where, runs in order if round_ % 2 == 0 else order[::-1]:
                runs.append(run_suites(where, args.scale_size, Path(tmp) / f"{len(base)}-{len(head)}.json", args.quick))
    print(table(base, head, args.base))
    if args.json:
        args.json.write_text(json.dumps({"base": args.base, "base_runs": base, "head_runs": head}, indent=1))


if __name__ == "__main__":
    main()
