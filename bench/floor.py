"""The relevance floor (`search.min_score`): chosen on half of LoCoMo's conversations, checked elsewhere.

A search leaves out the candidates that match nothing: no term of the question in them and a
cosine below the floor. For each floor of `FLOORS` (-1: nothing left out), every question is
searched with it, as `python -m bench --only locomo longmemeval` searches (limit 20):

- LoCoMo's conversations are split in two, alternately (`CHOOSE`: the 1st, 3rd and 5th; the
  others are held out). On the choosing half, at the default alpha, at 0.6 and at 1 (by meaning
  alone, where a floor costs most), the highest floor at which no recall@5, @10 or @20 is below
  that of no floor is the last that costs nothing there; the default is one step below it
  (`MARGIN`), for questions that share fewer words with their memories than LoCoMo's do. It is
  then scored on the held-out half and on LongMemEval.
- Off-topic questions (`OFF_TOPIC`: subjects none of the conversations touches) are asked of
  every LoCoMo conversation at the default limit (10): how many hits come back, and how many
  of them were found by meaning alone (no keyword of the question in them). Every one is
  irrelevant.
- Relationship search, over observations drawn as the relationships suite draws them: hits
  of its on-topic queries and of the off-topic ones, at each floor.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench import locomo, longmemeval, relationships
from bench.report import Table
from bench.retrieval import Scored, summarise
from remember.caller import Caller

FLOORS = (-1.0, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
ALPHAS = (None, 0.6, 1.0)  # None: the default
CHOOSE = slice(0, None, 2)  # LoCoMo's conversations the floor is chosen on
MARGIN = 1  # steps of FLOORS below the highest floor that costs nothing on the choosing half
OFF_TOPIC = [
    "tracer bullets",
    "How do I configure a Kubernetes ingress controller?",
    "What torque do the lug nuts on my car need?",
    "sourdough starter hydration ratio",
    "Which VAT rate applies to my quarterly invoices?",
    "Rust borrow checker lifetime errors",
    "boiling point of liquid nitrogen",
    "How do I refinance my mortgage?",
    "PostgreSQL vacuum settings for a busy table",
    "Sicilian defence chess opening lines",
    "replacing the timing belt on a diesel engine",
    "What is the capital of Mongolia?",
    "solar inverter warranty claim",
    "quantum error correction codes",
    "how to prune an apple tree in winter",
    "symptoms of iron deficiency anaemia",
    "compile the Linux kernel with custom modules",
    "exchange rate of the Swiss franc",
    "soldering surface mount resistors",
    "the API rate limit of the payment gateway",
    "beekeeping hive inspection checklist",
    "tax deduction for a home office",
    "calibrating a 3D printer bed",
    "Dentist appointment",
]
OBSERVATIONS = 500  # relationships of the relationship-search part
Runs = dict[str, dict[str, list[Scored]]]  # alpha -> floor -> scored questions


def name(floor: float) -> str:
    return "none" if floor <= -1 else f"{floor:g}"


def on_locomo(data: list[dict[str, Any]]) -> tuple[Runs, dict[str, dict[str, float]]]:
    """Each alpha's and floor's scored questions (fold: the conversation), and what off-topic questions get."""
    from bench.embedcache import cached_minilm
    from remember.service import Services
    from remember.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "locomo.db")), embedder=cached_minilm())
        ids, _ = locomo.ingest(services, data)
        asked = locomo.asked_at(data)
        runs = {
            str(a): {name(f): locomo.score(locomo.service_search(services, asked, alpha=a, min_score=f), data, ids)
                     for f in FLOORS}
            for a in ALPHAS
        }  # fmt: skip
        off = {name(f): off_topic(services, [s["sample_id"] for s in data], f) for f in FLOORS}
        services.close()
    return runs, off


def off_topic(services: Any, users: Sequence[str], floor: float) -> dict[str, float]:
    """Mean hits an off-topic question gets back at the default limit, and those found by meaning alone."""
    hits = alone = 0
    for user in users:
        for question in OFF_TOPIC:
            found = services.search.search(Caller(user), question, min_score=floor, explain=True, record_access=False)
            hits += len(found.hits)
            alone += sum(1 for h in found.hits if h.why is not None and h.why["keyword"] == 0)
    asked = len(users) * len(OFF_TOPIC)
    return {"hits": hits / asked, "by meaning alone": alone / asked, "questions": asked}


def on_longmemeval(quick: bool) -> dict[str, list[Scored]]:
    questions = longmemeval.load()[: 5 if quick else None]
    searches = {name(f): partial(longmemeval.default_search, min_score=f) for f in FLOORS}
    return longmemeval.evaluate(questions, searches)


def on_relationships() -> dict[str, dict[str, float]]:
    """Mean hits a relationship search gets back (limit 10), on-topic and off-topic, at each floor."""
    from bench.embedcache import cached_minilm
    from remember.service import RelationshipDraft, Services
    from remember.store import open_store

    user = Caller("floor")
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "rel.db")), embedder=cached_minilm())
        people = [services.memories.create(user, {"content": f"{p} is a friend."}).id for p in relationships.PEOPLE]
        for i, observation in enumerate(relationships.observations(OBSERVATIONS)):
            pair = [people[i % len(people)], people[(i + 1) % len(people)]]
            services.relationships.create(user, RelationshipDraft(pair, "knows", observation))
        for f in FLOORS:
            out[name(f)] = {
                kind: sum(len(services.related.search(user, q, min_score=f).hits) for q in queries) / len(queries)
                for kind, queries in (("on-topic", relationships.QUERIES), ("off-topic", OFF_TOPIC))
            }
        services.close()
    return out


def chosen(runs: Runs, keep: set[str]) -> str:
    """``MARGIN`` steps below the highest floor at which, on the conversations ``keep``, at every alpha, no
    recall@k is below that of no floor (nor at any floor below it)."""

    def costs_nothing(floor: float) -> bool:
        for by_floor in runs.values():
            base, now = part(by_floor[name(FLOORS[0])], keep), part(by_floor[name(floor)], keep)
            if any(now[f"recall@{k}"] < base[f"recall@{k}"] - 1e-9 for k in (5, 10, 20)):
                return False
        return True

    free = 0
    while free + 1 < len(FLOORS) and costs_nothing(FLOORS[free + 1]):
        free += 1
    return name(FLOORS[max(0, free - MARGIN)])


def part(rows: list[Scored], keep: set[str] | None = None) -> dict[str, float]:
    return summarise([r for r in rows if keep is None or r.fold in keep])["overall"]


def run(quick: bool = False) -> dict[str, Any]:
    data = json.loads(locomo.DATA.read_text())[: 2 if quick else None]
    choose = {s["sample_id"] for s in data[CHOOSE]}
    held = {s["sample_id"] for s in data} - choose
    runs, off = on_locomo(data)
    lme = on_longmemeval(quick)
    rels = on_relationships()
    pick = chosen(runs, choose)
    _print(runs, lme, off, rels, (choose, held), pick)
    return {
        "chosen": pick,
        "locomo_choose": {a: {k: part(v, choose) for k, v in r.items()} for a, r in runs.items()},
        "locomo_held_out": {a: {k: part(v, held) for k, v in r.items()} for a, r in runs.items()},
        "longmemeval": {k: part(v) for k, v in lme.items()},
        "off_topic": off,
        "relationships": rels,
    }


def _print(
    runs: Runs,
    lme: dict[str, list[Scored]],
    off: dict[str, dict[str, float]],
    rels: dict[str, dict[str, float]],
    halves: tuple[set[str], set[str]],
    pick: str,
) -> None:
    choose, held = halves
    table = Table(
        f"Relevance floor, default alpha (chosen on {', '.join(sorted(choose))}: {pick})",
        ["floor", "choose r@5", "held-out r@5", "r@10", "r@20", "LME r@5", "r@10", "r@20",
         "off-topic hits", "by meaning", "rel. on / off"],
    )  # fmt: skip
    for f in FLOORS:
        key = name(f)
        c, h, m = part(runs["None"][key], choose), part(runs["None"][key], held), part(lme[key])
        table.add(
            key, c["recall@5"], h["recall@5"], h["recall@10"], h["recall@20"], m["recall@5"], m["recall@10"],
            m["recall@20"], off[key]["hits"], off[key]["by meaning alone"],
            f"{rels[key]['on-topic']:.1f} / {rels[key]['off-topic']:.1f}",
        )  # fmt: skip
    table.print()
    print("r@k: recall@k; held-out: LoCoMo's other conversations; LME: LongMemEval_S dev turn recall")
    print(f"off-topic: mean hits of {len(OFF_TOPIC)} off-topic questions asked of each LoCoMo conversation (limit 10)")
    by_alpha = Table("LoCoMo recall@5 / @10 / @20 by alpha", ["alpha", "floor", "choosing half", "held-out half"])
    for alpha, by_floor in runs.items():
        for key, rows in by_floor.items():
            by_alpha.add(alpha, key, _recalls(part(rows, choose)), _recalls(part(rows, held)))
    by_alpha.print()


def _recalls(figures: dict[str, float]) -> str:
    return " / ".join(f"{figures[f'recall@{k}']:.3f}" for k in (5, 10, 20))
