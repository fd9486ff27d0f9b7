"""Template figures: validation throughput, create-with-template latency, a structured filter at scale."""

from __future__ import annotations

import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import Table, percentiles
from remember.caller import Caller

# 10 fields, two computed and one conditional (the shape its 20,000/s target is set for).
BENCH_TEMPLATE: dict[str, Any] = {
    "name": "Bench",
    "fields": [
        {"name": "first_name", "required": True},
        {"name": "last_name", "required": True},
        {"name": "email", "validation": {"pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"}},
        {"name": "age", "type": "integer", "validation": {"min": 0, "max": 150}},
        {"name": "rating", "type": "number", "validation": {"min": 1, "max": 5}},
        {"name": "last_contact", "type": "date"},
        {"name": "has_children", "type": "boolean"},
        {"name": "children_names", "type": "array", "item_type": "string",
         "conditional": {"show_if": "has_children == true"}},
        {"name": "full_name", "type": "computed", "formula": "concat(first_name, ' ', last_name)"},
        {"name": "days_since_contact", "type": "computed", "formula": "date_diff(now(), last_contact)"},
    ],
}  # fmt: skip
BENCH_CONTENT = {
    "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "age": 36, "rating": 4.5,
    "last_contact": "2026-01-15", "has_children": True, "children_names": ["Byron", "Annabella", "Ralph"],
}  # fmt: skip


def validations_per_second(n: int) -> float:
    from remember.templates import parse_template, resolve, validate_content

    resolved = resolve(parse_template(BENCH_TEMPLATE))
    now = datetime(2026, 2, 11, tzinfo=UTC)
    assert validate_content(resolved, BENCH_CONTENT, now=now).valid
    best = 0.0
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(n):
            validate_content(resolved, BENCH_CONTENT, now=now)
        best = max(best, n / (time.perf_counter() - started))
    return best


def book(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "title": f"Book {i}",
        "author": rng.choice(["Frank Herbert", "Ursula K. Le Guin", "Iain M. Banks", "Ann Leckie"]),
        "rating": rng.randint(1, 5),
        "genre": rng.choice(["scifi", "fantasy", "history"]),
        "date_finished": f"2025-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}",
    }


def at_scale(home: Path, n: int, rounds: int) -> dict[str, Any]:
    from remember.service import Services
    from remember.store import open_store

    services = Services.over(open_store(str(home / "templates.db")))
    rng = random.Random(7)
    template_id = "builtin:book_review"
    create_ms = []
    started = time.perf_counter()
    for i in range(n):
        t = time.perf_counter()
        services.memories.create(Caller("bench"), {"template_id": template_id, "structured_content": book(rng, i)})
        create_ms.append((time.perf_counter() - t) * 1000)
    ingest = n / (time.perf_counter() - started)
    query = {"and": [{"structured_content.rating": {"gte": 4}}, {"template_id": template_id}]}
    filter_ms = []
    total = 0
    for _ in range(rounds):
        t = time.perf_counter()
        total = services.memories.list(Caller("bench"), filters=query, limit=20).total
        filter_ms.append((time.perf_counter() - t) * 1000)
    page_ms = dashboard_page_ms(services, template_id, rounds)
    services.close()
    return {
        "dashboard_memories_ms": percentiles(page_ms),
        "create_ms": percentiles(create_ms),
        "ingest_per_s": ingest,
        "filter_ms": percentiles(filter_ms),
        "filter_matches": total,
        "memories": n,
    }


def dashboard_page_ms(services: Any, template_id: str, rounds: int) -> list[float]:
    """The dashboard's ``GET /api/templates/{id}/memories`` (compliance counts, a page of 20 checked
    again against the template), its handler called as the server calls it, without HTTP."""
    from remember.caller import Caller
    from remember.web.api.templates import memories
    from remember.web.responses import Call

    caller = Caller("bench", 1.0)
    call = Call(services, caller, {"template_id": template_id}, {"compliance": "all"}, None, {})
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        memories(call)
        out.append((time.perf_counter() - t) * 1000)
    return out


def run(quick: bool = False) -> dict[str, Any]:
    rate = validations_per_second(2_000 if quick else 20_000)
    with tempfile.TemporaryDirectory() as tmp:
        scale = at_scale(Path(tmp), 5_000 if quick else 100_000, 5 if quick else 20)
    table = Table("Templates", ["measure", "p50", "p95", "note"])
    table.add("validations per second", rate, None, "10 fields, 2 computed, 1 conditional; target >= 20,000")
    table.add(
        "create with template (service)", scale["create_ms"]["p50"], scale["create_ms"]["p95"], "ms; target p50 < 3"
    )
    table.add("templated ingest", scale["ingest_per_s"], None, "memories/s")
    table.add(
        f"rating >= 4 and template_id, {scale['memories']:,} memories",
        scale["filter_ms"]["p50"],
        scale["filter_ms"]["p95"],
        f"ms, {scale['filter_matches']:,} match, page of 20 with total; target < 50",
    )
    table.add(
        f"dashboard: a template's memories, {scale['memories']:,} memories",
        scale["dashboard_memories_ms"]["p50"],
        scale["dashboard_memories_ms"]["p95"],
        "ms, compliance counts and a page of 20 re-checked (the handler, without HTTP)",
    )
    table.print()
    return {"validations_per_s": rate, **scale}
