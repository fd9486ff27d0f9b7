"""What a tool's answer costs a client's context: the bytes of searches, listings and question contexts.

One LoCoMo conversation (../shared/bench/locomo-dev.json) is stored as one user's memories, a
turn each (as bench/locomo.py stores them), and a real stdio server answers its questions: a
10-hit `remember_search_memory` per question, and for comparison a 10-memory
`remember_list_memories` page and a `remember_query_memory` context. Measured: the bytes of the
text copy a client shows the model, of the structured result, and of the JSON-RPC line that
carried both; and how many null or empty values the answer still spells out.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.locomo import DATA, ingest, questions
from bench.report import Table
from bench.stdio import StdioPeer

HITS = 10
TARGET = 6_000  # bytes of the text of a 10-hit search


def _size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def empties(value: Any) -> int:
    """How many null, empty-list or empty-object values ``value`` holds, at any depth."""
    if isinstance(value, dict):
        return sum((v is None or v in ([], {})) + empties(v) for v in value.values())
    if isinstance(value, list):
        return sum(empties(v) for v in value)
    return 0


def measure(peer: StdioPeer, tool: str, arguments: dict[str, Any]) -> dict[str, int]:
    answer = peer.call(tool, arguments)
    text = "".join(block.get("text", "") for block in answer["content"])
    structured = answer.get("structuredContent", {})
    return {
        "text": len(text.encode()),
        "structured": _size(structured),
        "wire": peer.last_line_bytes,
        "empties": empties(structured),
        "hits": len(structured.get("results", structured.get("memories", structured.get("sources", [])))),
    }


def _stored(home: Path, sample: dict[str, Any]) -> tuple[Path, int]:
    """A database holding ``sample``'s turns as its user's memories, and how many there are."""
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    db = home / "answers.db"
    services = Services.over(open_store(str(db)), embedder=cached_minilm())
    ids, _ = ingest(services, [sample])
    services.close()
    return db, len(ids[sample["sample_id"]])


def _summary(rows: list[dict[str, int]]) -> dict[str, float]:
    return {key: statistics.median(row[key] for row in rows) for key in rows[0]} | {
        "text_p90": sorted(row["text"] for row in rows)[int(0.9 * (len(rows) - 1))],
        "text_max": max(row["text"] for row in rows),
    }


def run(quick: bool = False, data_path: Path = DATA) -> dict[str, Any]:
    sample = json.loads(data_path.read_text())[0]
    user = sample["sample_id"]
    asked = [qa["question"] for who, qa, _ in questions([sample]) if who == user][: 10 if quick else 50]
    with tempfile.TemporaryDirectory() as tmp:
        db, stored = _stored(Path(tmp), sample)
        env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")} | {"REMEMBER_HOME": tmp}
        peer = StdioPeer([sys.executable, "-m", "remember", "--db", str(db), "--user", user, "serve"], env)
        try:
            peer.handshake()
            searches = [measure(peer, "remember_search_memory", {"query": q, "limit": HITS}) for q in asked]
            listing = measure(peer, "remember_list_memories", {"limit": HITS})
            context = measure(peer, "remember_query_memory", {"question": asked[0], "answer": False})
        finally:
            peer.close()
    figures = {
        "memories": stored,
        "searches": len(searches),
        "search": _summary(searches),
        "list": listing,
        "query": context,
    }
    table = Table(f"Tool answers ({figures['memories']} LoCoMo turns of {user})", ["answer", "text", "structured",
                  "JSON-RPC line", "null or empty values", "note"])  # fmt: skip
    s = figures["search"]
    table.add(f"search, {HITS} hits (median of {len(searches)})", s["text"], s["structured"], s["wire"],
              s["empties"], f"bytes; largest text {s['text_max']}; target <= {TARGET}")  # fmt: skip
    table.add(f"list, {HITS} memories", listing["text"], listing["structured"], listing["wire"], listing["empties"],
              "bytes")  # fmt: skip
    table.add("query context (2,000 tokens)", context["text"], context["structured"], context["wire"],
              context["empties"], "bytes")  # fmt: skip
    table.print()
    return figures
