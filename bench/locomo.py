"""Retrieval on LoCoMo (../shared/bench/locomo-dev.json), scored as its README says, through the real service.

Each conversation is its own user; each turn one memory ("<speaker>: <text>",
plus " [image: <caption>]"), dated with its session's date and carrying its
session as ``context.conversation_id``. Questions of categories 1-4 with
evidence are searched with their text; recall@k is the share of a question's
evidence turns in the top k, hit@5 whether any is in the top 5, MRR the mean
reciprocal rank of the first evidence turn in the top 20.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import Table

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo-dev.json"
KS = (5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def session_time(text: str) -> datetime:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turns(conversation: dict[str, Any], sample_id: str) -> list[tuple[str, dict[str, Any]]]:
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
            out.append((turn["dia_id"], {"content": text, "context": context}))
        n += 1
    return out


def evidence_ids(raw: list[str]) -> set[str]:
    found: set[str] = set()
    for item in raw:
        found.update(part.strip() for part in item.replace(";", " ").split() if ":" in part)
    return found


def ingest(services: Any, data: list[dict[str, Any]]) -> tuple[dict[str, dict[str, str]], float, int]:
    """Memories for every conversation; dia_id -> memory id per user; and the ingest rate."""
    ids: dict[str, dict[str, str]] = {}
    count = 0
    started = time.perf_counter()
    for sample in data:
        user = sample["sample_id"]
        pairs = turns(sample["conversation"], user)
        made = []
        for start in range(0, len(pairs), 1_000):
            made += services.memories.create_many(user, [fields for _, fields in pairs[start : start + 1_000]])
        ids[user] = {m.id: dia for (dia, _), m in zip(pairs, made, strict=True)}
        count += len(made)
    return ids, count / (time.perf_counter() - started), count


def score(services: Any, data: list[dict[str, Any]], ids: dict[str, dict[str, str]], alpha: float) -> dict[str, Any]:
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies = []
    for sample in data:
        user = sample["sample_id"]
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []))
            if qa.get("category") not in CATEGORIES or not evidence:
                continue
            started = time.perf_counter()
            hits = services.search.search(user, qa["question"], alpha=alpha, limit=20, record_access=False).hits
            latencies.append((time.perf_counter() - started) * 1000)
            ranked = [ids[user][h.memory.id] for h in hits]
            row = {f"recall@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
            row["hit@5"] = float(bool(evidence & set(ranked[:5])))
            first = next((i for i, d in enumerate(ranked) if d in evidence), None)
            row["mrr"] = 0.0 if first is None else 1 / (first + 1)
            rows["overall"].append(row)
            rows[CATEGORIES[qa["category"]]].append(row)
    means = {name: {key: sum(r[key] for r in group) / len(group) for key in group[0]} | {"n": len(group)}
             for name, group in rows.items()}  # fmt: skip
    return {"alpha": alpha, "scores": means, "search_ms": sorted(latencies)}


def run(quick: bool = False, data_path: Path = DATA) -> dict[str, Any]:
    from remember.search.embedders import MiniLMEmbedder
    from remember.service import Services
    from remember.store import open_store

    data = json.loads(data_path.read_text())
    if quick:
        data = data[:1]
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=MiniLMEmbedder())
        ids, rate, count = ingest(services, data)
        default = services.preferences.effective("x")["search.default_alpha"]
        results = [score(services, data, ids, alpha) for alpha in (default, 0.0, 1.0)]
        services.close()
    table = Table(
        f"LoCoMo retrieval ({count} memories, {len(data)} conversations)",
        ["alpha", "slice", "n", "recall@5", "recall@10", "recall@20", "hit@5", "MRR"],
    )
    for result in results:
        for name, s in result["scores"].items():
            if name == "overall" or result["alpha"] == default:
                table.add(
                    result["alpha"], name, s["n"], s["recall@5"], s["recall@10"], s["recall@20"], s["hit@5"], s["mrr"]
                )
    table.print()
    print(f"\ningest {rate:.0f} memories/s (batched, with embeddings); target recall@5 >= 0.65 at the default alpha")
    return {
        "ingest_per_s": rate,
        "memories": count,
        "results": [{k: v for k, v in r.items() if k != "search_ms"} for r in results],
    }
