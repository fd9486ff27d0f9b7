"""LoCoMo and LongMemEval dev recall with each local embedder, side by side, through the service.

LoCoMo: its five dev conversations, each its own user, the default search (``bench/locomo.py``'s
``via_service``, conversation ids given). LongMemEval: the first ``LME_QUESTIONS`` questions of the dev
fifth (each ~500 turns, most of a paragraph: multilingual-e5-small embeds such a turn 15-20 times slower
than MiniLM, so the whole fifth does not fit a run here), the default search. Vectors are cached under
``.cache/`` per model (queries apart from memories for e5, which reads them differently).
"""

from __future__ import annotations

import json
from typing import Any

from bench import locomo, longmemeval
from bench.report import Table
from bench.retrieval import summarise

LME_QUESTIONS = 6


def run(quick: bool = False) -> dict[str, Any]:
    from bench.embedcache import cached_e5, cached_minilm

    data = json.loads(locomo.DATA.read_text())
    questions = longmemeval.load(longmemeval.DATA)[: 2 if quick else LME_QUESTIONS]
    if quick:
        data = data[:1]
    out: dict[str, Any] = {}
    table = Table(
        f"Dev recall by embedder (LoCoMo {len(data)} conversations; LongMemEval first {len(questions)} questions)",
        ["embedder", "set", "n", "recall@5", "recall@10", "MRR", "session recall@5"],
    )
    for name, make in (("MiniLM", cached_minilm), ("multilingual (e5)", cached_e5)):
        embedder = make()
        rows = locomo.via_service(data, with_ids=True, embedder=embedder)["None"]
        found = summarise(rows)["overall"]
        table.add(name, "LoCoMo", found["n"], found["recall@5"], found["recall@10"], found["mrr"], None)
        searched = longmemeval.evaluate(
            questions, {"default": longmemeval.default_search}, with_ids=True, embedder=embedder
        )["default"]
        lme = summarise(searched)["overall"]
        table.add(name, "LongMemEval", lme["n"], lme["recall@5"], lme["recall@10"], lme["mrr"], lme["session_recall@5"])
        out[name] = {"locomo": found, "longmemeval": lme, "locomo_rows": rows, "longmemeval_rows": searched}
    table.print()
    return {name: {k: v for k, v in r.items() if not k.endswith("_rows")} for name, r in out.items()}
