"""Memories in six languages among English ones: is a question's memory found first, in its language and another?

bench/data/multilingual.json: 72 personal memories written for this bench, 12 each in French, German,
Spanish, Italian, Portuguese and Dutch, each with a question in its own language (``same``) and one in
another (``other``: English, or another of the six). They are stored for one user among the turns of
LoCoMo's first two conversations (../shared/bench/locomo-dev.json, 788 English turns, each with its
session as conversation id), through the service on a SQLite file, with each embedder; every question is
searched by the default search (``alpha`` chosen per search) and by meaning alone (``alpha`` 1).

Top-1: the share of questions whose memory comes first; top-5 likewise within five. The dev part (even
items) is what anything was looked at on; the held-out part (odd items) is printed only with
``BENCH_HELD_OUT=1`` in the environment, to be looked at once choices are made.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.locomo import DATA, turns
from bench.report import Table
from remember.caller import Caller

SET = Path(__file__).resolve().parent / "data" / "multilingual.json"
DISTRACTOR_CONVERSATIONS = 2
USER = Caller("polyglot")


def items() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(SET.read_text("utf-8"))["items"]
    return found


def _store(services: Any, quick: bool) -> dict[int, str]:
    """The distractors, then the set's memories; the id of each item's memory."""
    data = json.loads(DATA.read_text())[:DISTRACTOR_CONVERSATIONS]
    distractors = [fields for sample in data for _, fields in turns(sample["conversation"], sample["sample_id"])]
    if quick:
        distractors = distractors[:200]
    services.memories.create_many(USER, distractors)
    made = services.memories.create_many(USER, [{"content": item["memory"]} for item in items()])
    return {n: m.id for n, m in enumerate(made)}


def _ranks(search: Callable[[str], list[str]], ids: dict[int, str]) -> list[dict[str, Any]]:
    out = []
    for n, item in enumerate(items()):
        for kind, question, asked_in in (("same", item["same"], item["lang"]), ("other", *item["other"][::-1])):
            found = search(question)
            rank = found.index(ids[n]) + 1 if ids[n] in found else None
            out.append({"item": n, "lang": item["lang"], "asked_in": asked_in, "kind": kind, "rank": rank})
    return out


def _share(rows: list[dict[str, Any]], k: int) -> float:
    return sum(r["rank"] is not None and r["rank"] <= k for r in rows) / len(rows) if rows else 0.0


def figures(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Top-1 and top-5 per part (dev: even items, held out: odd) and kind of question."""
    out: dict[str, dict[str, float]] = {}
    for part, keep in (("dev", 0), ("held out", 1)):
        chosen = [r for r in rows if r["item"] % 2 == keep]
        for kind in ("all", "same", "other"):
            picked = [r for r in chosen if kind == "all" or r["kind"] == kind]
            out[f"{part} {kind}"] = {"top1": _share(picked, 1), "top5": _share(picked, 5), "n": len(picked)}
    return out


def measure(embedder: Any, quick: bool = False) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "multilingual.db")), embedder=embedder)
        started = time.perf_counter()
        ids = _store(services, quick)
        stored = time.perf_counter() - started
        result: dict[str, Any] = {"ingest_seconds": stored}
        searches: list[tuple[str, float | None, bool]] = [("default", None, True), ("meaning only", 1.0, True)]
        if getattr(embedder, "crosses_languages", False):  # what weighing keywords by language does
            searches.append(("default, languages not weighed", None, False))
        for name, alpha, weighed in searches:
            if hasattr(embedder, "crosses_languages"):
                embedder.crosses_languages = weighed

            def search(question: str, alpha: float | None = alpha) -> list[str]:
                hits = services.search.search(USER, question, alpha=alpha, limit=5, record_access=False).hits
                return [h.memory.id for h in hits]

            rows = _ranks(search, ids)
            result[name] = {"figures": figures(rows), "rows": rows}
        if hasattr(embedder, "crosses_languages"):
            embedder.crosses_languages = True
        services.close()
    return result


def run(quick: bool = False) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder, MultilingualEmbedder

    out: dict[str, Any] = {}
    for name, embedder in (("MiniLM", MiniLMEmbedder()), ("multilingual", MultilingualEmbedder())):
        out[name] = measure(embedder, quick)
    table = Table(
        "Multilingual set: top-1 (top-5) of the question's memory among English LoCoMo turns",
        ["embedder", "search", "part", "all", "same language", "other language"],
    )
    for name, result in out.items():
        for search in [k for k in result if k != "ingest_seconds"]:
            f = result[search]["figures"]
            for part in ("dev", "held out") if os.environ.get("BENCH_HELD_OUT") == "1" else ("dev",):
                cells = [
                    f"{f[f'{part} {k}']['top1']:.3f} ({f[f'{part} {k}']['top5']:.3f})" for k in ("all", "same", "other")
                ]
                table.add(name, search, part, *cells)
    table.print()
    for name, result in out.items():
        print(f"{name}: ingest of the store {result['ingest_seconds']:.1f} s")
    return {name: {k: v["figures"] if isinstance(v, dict) else v for k, v in r.items()} for name, r in out.items()}
