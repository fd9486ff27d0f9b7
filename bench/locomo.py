"""Retrieval on LoCoMo (../shared/bench/locomo-dev.json), scored as its README says.

Each conversation is its own user; each turn one memory ("<speaker>: <text>",
plus " [image: <caption>]"), dated with its session's date. Questions of
categories 1-4 with evidence are searched with their text; recall@k is the share
of a question's evidence turns in the top k, hit@5 whether any is in the top 5,
MRR the mean reciprocal rank of the first evidence turn in the top 20.

Measured four ways: through the service and through the MCP stdio server (a real
subprocess, one tool call a memory, the ingest rate timed), each with every
session passed as ``context.conversation_id`` and with none (a client that passes
none); each by the default search and by today's constant blend (``alpha`` 0.3),
compared question by question. Anything fitted is reported
leave-one-conversation-out (bench/retrieval.py).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import Table
from bench.retrieval import DEPTH, Scored, comparison, figures, paired, summarise
from remember.caller import Caller

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SLICES = ("overall", "single-hop", "temporal", "multi-hop", "open-domain")
Search = Callable[[str, str], list[str]]  # (user, question) -> memory ids, best first


def session_time(text: str) -> datetime:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turns(conversation: dict[str, Any], sample_id: str, *, with_ids: bool = True) -> list[tuple[str, dict[str, Any]]]:
    """(dia_id, memory fields) for every turn, in order."""
    out = []
    n = 1
    while f"session_{n}" in conversation:
        when = session_time(conversation[f"session_{n}_date_time"]).isoformat()
        for turn in conversation[f"session_{n}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            context = {"conversation_id": f"{sample_id}/session_{n}", "timestamp": when}
            if not with_ids:
                del context["conversation_id"]
            out.append((turn["dia_id"], {"content": text, "context": context}))
        n += 1
    return out


def evidence_ids(raw: list[str]) -> set[str]:
    found: set[str] = set()
    for item in raw:
        found.update(part.strip() for part in item.replace(";", " ").split() if ":" in part)
    return found


def questions(data: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], set[str]]]:
    """(user, qa, evidence dia_ids) of every scored question."""
    out = []
    for sample in data:
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []))
            if qa.get("category") in CATEGORIES and evidence:
                out.append((sample["sample_id"], qa, evidence))
    return out


def ingest(
    services: Any, data: list[dict[str, Any]], *, with_ids: bool = True
) -> tuple[dict[str, dict[str, str]], float]:
    """Memories for every conversation; memory id -> dia_id per user; and the ingest rate."""
    ids: dict[str, dict[str, str]] = {}
    count = 0
    started = time.perf_counter()
    for sample in data:
        user = sample["sample_id"]
        pairs = turns(sample["conversation"], user, with_ids=with_ids)
        made = []
        for start in range(0, len(pairs), 1_000):
            made += services.memories.create_many(Caller(user), [fields for _, fields in pairs[start : start + 1_000]])
        ids[user] = {m.id: dia for (dia, _), m in zip(pairs, made, strict=True)}
        count += len(made)
    return ids, count / (time.perf_counter() - started)


def score(search: Search, data: list[dict[str, Any]], ids: dict[str, dict[str, str]]) -> list[Scored]:
    rows = []
    for user, qa, evidence in questions(data):
        ranked = [ids[user].get(i, "") for i in search(user, qa["question"])]
        rows.append(Scored(qa["question"], CATEGORIES[qa["category"]], user, figures(ranked, evidence)))
    return rows


def asked_at(data: list[dict[str, Any]]) -> dict[str, datetime]:
    """When each conversation's questions are asked: at its last session (for "last year" and the like)."""
    out = {}
    for sample in data:
        conversation = sample["conversation"]
        last = max(int(k.split("_")[1]) for k in conversation if k.endswith("_date_time"))
        out[sample["sample_id"]] = session_time(conversation[f"session_{last}_date_time"])
    return out


def service_search(services: Any, asked: dict[str, datetime] | None = None, **options: Any) -> Search:
    def search(user: str, question: str) -> list[str]:
        if asked is not None:
            services.search.clock = lambda: asked[user]
        found = services.search.search(Caller(user), question, limit=DEPTH, record_access=False, **options)
        return [h.memory.id for h in found.hits]

    return search


def via_service(
    data: list[dict[str, Any]],
    *,
    with_ids: bool,
    alphas: Sequence[float | None] = (None,),
    embedder: Any = None,
) -> dict[str, Any]:
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=embedder or cached_minilm())
        ids, _ = ingest(services, data, with_ids=with_ids)
        asked = asked_at(data)
        out = {str(a): score(service_search(services, asked, alpha=a), data, ids) for a in alphas}
        services.close()
    return out


def via_stdio(
    data: list[dict[str, Any]],
    *,
    with_ids: bool,
    suggest: bool = False,
    searches: dict[str, dict[str, Any]] | None = None,
) -> tuple[dict[str, list[Scored]], float]:
    """One real stdio server per conversation (its user), a tool call per memory and per question and
    search (``searches``: a name and the tool's arguments besides the query; by default the default search).

    Without ``suggest`` each call passes ``skip_template_suggestion`` (as a client storing chat
    turns would): the suggestions embed the text once more and are timed on their own.
    """
    from bench.stdio import StdioPeer

    asked = searches or {"default": {}}
    rows: dict[str, list[Scored]] = {name: [] for name in asked}
    count, seconds = 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")} | {"REMEMBER_HOME": tmp}
        for sample in data:
            user = sample["sample_id"]
            peer = StdioPeer([sys.executable, "-m", "remember", "--user", user, "serve"], env)
            peer.handshake()
            ids: dict[str, str] = {}
            started = time.perf_counter()
            for dia, fields in turns(sample["conversation"], user, with_ids=with_ids):
                made = peer.call("remember_create_memory", {**fields, "skip_template_suggestion": not suggest})
                ids[made["structuredContent"]["id"]] = dia
            seconds += time.perf_counter() - started
            count += len(ids)

            for name, arguments in asked.items():

                def search(_user: str, question: str, peer: StdioPeer = peer, given: Any = arguments) -> list[str]:
                    found = peer.call("remember_search_memory", {"query": question, "limit": DEPTH, **given})
                    return [r["memory"]["id"] for r in found["structuredContent"]["results"]]

                rows[name] += score(search, [sample], {user: ids})
            peer.close()
    return rows, count / seconds


def table(title: str, runs: dict[str, list[Scored]]) -> Table:
    out = Table(title, ["run", "slice", "n", "recall@5", "recall@10", "recall@20", "hit@5", "MRR"])
    for name, rows in runs.items():
        means = summarise(rows)
        for part in SLICES:
            if part in means:
                s = means[part]
                out.add(name, part, s["n"], s["recall@5"], s["recall@10"], s["recall@20"], s["hit@5"], s["mrr"])
    return out


METRICS = ("recall@5", "recall@10", "recall@20", "mrr")
BEFORE = 0.3  # the default search until the fusion chose alpha per search: a constant blend


def run(quick: bool = False, data_path: Path = DATA) -> dict[str, Any]:
    data = json.loads(data_path.read_text())
    if quick:
        data = data[:1]
    with_ids = via_service(data, with_ids=True, alphas=(None, BEFORE, 0.0, 1.0))
    without = via_service(data, with_ids=False, alphas=(None, BEFORE))
    runs = {"service, ids": with_ids["None"], "service, no ids": without["None"]}
    runs |= {"service, ids, alpha 0.3": with_ids[str(BEFORE)], "service, no ids, alpha 0.3": without[str(BEFORE)]}
    rates = {}
    for flag, label in ((True, "ids"), (False, "no ids")):
        found, rates[f"MCP stdio, {label}"] = via_stdio(
            data, with_ids=flag, searches={"": {}, ", alpha 0.3": {"alpha": BEFORE}}
        )
        runs |= {f"MCP stdio, {label}{name}": rows for name, rows in found.items()}
    table(f"LoCoMo retrieval ({len(data)} conversations)", runs).print()
    pairs = {f"{path}: default - alpha 0.3": (runs[f"{path}, alpha 0.3"], runs[path])
             for path in ("service, ids", "service, no ids", "MCP stdio, ids", "MCP stdio, no ids")}  # fmt: skip
    comparison("LoCoMo: the default against alpha 0.3, per question (95% interval)", pairs, SLICES, METRICS).print()
    alphas = Table("LoCoMo by alpha (service, ids)", ["alpha", "recall@5", "recall@10", "recall@20", "MRR"])
    for alpha, rows in with_ids.items():
        s = summarise(rows)["overall"]
        alphas.add("chosen per search" if alpha == "None" else alpha, s["recall@5"], s["recall@10"], s["recall@20"],
                   s["mrr"])  # fmt: skip
    alphas.print()
    for name, rate in rates.items():
        print(f"ingest over {name}: {rate:.0f} memories/s (one tool call each, embedding included)")
    print("targets: recall@5 >= 0.655 with and without ids; multi-hop and open-domain >= 0.45")
    return {
        "scores": {name: summarise(rows) for name, rows in runs.items()},
        "paired": {name: {m: paired(*pair, m) for m in METRICS} for name, pair in pairs.items()},
        "by_alpha": {a: summarise(rows)["overall"] for a, rows in with_ids.items()},
        "mcp_ingest_per_s": rates,
    }
