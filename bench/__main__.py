"""Run the benchmarks: `python -m bench [--quick] [--only NAME ...] [--json FILE] [--relationships-size N]`."""

from __future__ import annotations

import argparse
import json
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import (
    analytics,
    answers,
    backends,
    browsing,
    calibrate,
    conflicts,
    cpus,
    crowd,
    current,
    dedup,
    embedder_costs,
    firsthour,
    floor,
    foundation,
    fusion,
    graph,
    home,
    hook,
    hostile,
    ideas,
    importing,
    infer,
    locomo,
    longmemeval,
    moving,
    multilingual,
    pgkeyword,
    prefill,
    recall_by_embedder,
    relationships,
    remote,
    rescoring,
    scale,
    scaleout,
    search,
    spaces,
    suggest,
    templates,
    toollist,
    truth,
)

SUITES: dict[str, Callable[[bool], dict[str, Any]]] = {
    "foundation": foundation.run,
    "firsthour": firsthour.run,
    "templates": templates.run,
    "locomo": locomo.run,
    "longmemeval": longmemeval.run,
    "conflicts": conflicts.run,
    "truth": truth.run,
    "current": current.run,
    "floor": floor.run,
    "fusion": fusion.run,
    "ideas": ideas.run,
    "rescoring": rescoring.run,
    "search": search.run,
    "suggest": suggest.run,
    "prefill": prefill.run,
    "infer": infer.run,
    "backends": backends.run,
    "toollist": toollist.run,
    "hook": hook.run,
    "hostile": hostile.run,
    "importing": importing.run,
    "remote": remote.run,
    "dedup": dedup.run,
    "moving": moving.run,
    "relationships": relationships.run,
    "scale": scale.run,
    "scaleout": scaleout.run,
    "crowd": crowd.run,
    "pgkeyword": pgkeyword.run,
    "browsing": browsing.run,
    "analytics": analytics.run,
    "home": home.run,
    "graph": graph.run,
    "answers": answers.run,
    "cpus": cpus.run,
    "calibrate": calibrate.run,
    "multilingual": multilingual.run,
    "embedders": embedder_costs.run,
    "byembedder": recall_by_embedder.run,
    "spaces": spaces.run,
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Benchmarks of remember.")
    parser.add_argument("--quick", action="store_true", help="fewer rounds, smaller data (a smoke run)")
    parser.add_argument("--only", nargs="+", choices=sorted(SUITES), help="run only these suites")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--relationships-size", type=int, default=relationships.SIZE, metavar="N",
        help=f"memories and relationships of the relationships suite (default {relationships.SIZE:,}; 100000 in docs)",
    )  # fmt: skip
    parser.add_argument("--scale-size", type=int, default=scale.SIZE, help="memories in the scale suite")
    parser.add_argument("--scale-no-postgres", action="store_true", help="the scale suite on SQLite only")
    parser.add_argument("--scale-no-sqlite", action="store_true", help="the scale suite on PostgreSQL only")
    parser.add_argument("--crowd-size", type=int, default=crowd.SIZE, help="other memories in the crowd suite")
    parser.add_argument("--spaces-size", type=int, default=spaces.SIZE, help="memories in the spaces suite")
    parser.add_argument("--pgkeyword-size", type=int, default=pgkeyword.SIZE, help="memories in the pgkeyword suite")
    parser.add_argument("--cpus-retrieval", action="store_true", help="LoCoMo on each emulated CPU (~25 min each)")
    args = parser.parse_args()
    cpus.RETRIEVAL = args.cpus_retrieval
    pgkeyword.SIZE = args.pgkeyword_size
    crowd.SIZE = args.crowd_size
    spaces.SIZE = args.spaces_size
    relationships.SIZE = args.relationships_size
    scale.SIZE, scale.POSTGRES, scale.SQLITE = args.scale_size, not args.scale_no_postgres, not args.scale_no_sqlite
    results = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}}
    for name in args.only or list(SUITES):
        results[name] = SUITES[name](args.quick)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
