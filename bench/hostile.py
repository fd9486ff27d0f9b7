"""Answers to hostile input: how large an error answer gets when a call carries a huge value.

Every parameter of every tool is given a huge text in turn, and a few places that take
names (a field, a filter key or operator, a context key, a parameter name) get a huge
name; a validation gets an array of a million items. The figure is the size of the
largest answer (its text and structured content), which must stay small whatever the input.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Table

Call = tuple[str, str, dict[str, Any]]


def hostile_calls(huge: str, template_id: str) -> list[Call]:
    calls: list[Call] = [
        ("validate: huge field name", "remember_validate_memory", {"template_id": template_id, "content": {huge: 1}}),
        (
            "validate: 1e6-item array",
            "remember_validate_memory",
            {"template_id": template_id, "content": {"items": list(range(1_000_000))}},
        ),
        ("list: huge filter key", "remember_list_memories", {"filters": {huge: 1}}),
        ("list: huge filter operator", "remember_list_memories", {"filters": {"weight": {huge: 1}}}),
        (
            "search: huge structured key",
            "remember_search_memory",
            {"query": "x", "filters": {"structured_content." + huge: 1}},
        ),
        ("create: huge context key", "remember_create_memory", {"content": "x", "context": {huge: 1}}),
        ("create: huge parameter name", "remember_create_memory", {"content": "x", huge: 1}),
    ]
    return calls


async def _probe(size: int) -> list[tuple[str, int, float]]:
    from mcp import Client

    from remember.mcp.server import build_server
    from remember.service import Services
    from remember.store import open_store

    folder = Path(tempfile.mkdtemp(prefix="remember-bench-hostile-"))
    services = Services.over(open_store(str(folder / "hostile.db")))
    huge = "x" * size
    rows: list[tuple[str, int, float]] = []
    async with Client(build_server(services, lambda: "alice")) as client:
        made = await client.call_tool(
            "remember_create_template",
            {"template_name": "Probe", "fields": [{"name": "items", "type": "array", "item_type": "integer"}]},
        )
        template_id = str((made.structured_content or {})["id"])
        tools = (await client.list_tools()).tools
        calls = hostile_calls(huge, template_id)
        for tool in tools:
            for name in tool.input_schema.get("properties", {}):
                calls.append((f"{tool.name.removeprefix('remember_')}: huge {name}", tool.name, {name: huge}))
        for label, tool_name, arguments in calls:
            started = time.perf_counter()
            result = await client.call_tool(tool_name, arguments)
            seconds = time.perf_counter() - started
            size_out = sum(len(getattr(c, "text", "")) for c in result.content)
            size_out += len(json.dumps(result.structured_content or {}, ensure_ascii=False))
            rows.append((label, size_out, seconds))
    services.store.close()
    return rows


def run(quick: bool) -> dict[str, Any]:
    size = 1_000_000 if quick else 10_000_000
    rows = asyncio.run(_probe(size))
    rows.sort(key=lambda row: -row[1])
    table = Table(f"Error answers to a {size // 1_000_000} MB value (largest first)", ["call", "answer bytes", "s"])
    for label, answer, seconds in rows[:15]:
        table.add(label, answer, seconds)
    table.print()
    return {"value_bytes": size, "largest_answer_bytes": rows[0][1], "largest": rows[0][0], "calls": len(rows)}
