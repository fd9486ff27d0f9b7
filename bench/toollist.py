"""What the tool list costs a client's context: the `tools/list` answer as the server sends it.

Bytes are those of the JSON-RPC line on stdio; tokens are estimated at four bytes each
(close to what common tokenizers give for JSON schema text).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.portability import findings, inspector_warnings
from bench.report import Table
from bench.stdio import StdioPeer

BYTES_PER_TOKEN = 4
LIMIT_TOTAL = 40_000
LIMIT_TOOL = 3_000


def _size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def measure(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Sizes of a `tools/list` result's tools, as compact JSON."""
    per_tool = {
        tool["name"]: {
            "description_and_input": len(tool.get("description", "").encode()) + _size(tool["inputSchema"]),
            "output": _size(tool.get("outputSchema", {})),
            "total": _size(tool),
        }
        for tool in tools
    }
    largest = max(per_tool.items(), key=lambda item: item[1]["description_and_input"])
    return {
        "tools": len(tools),
        "bytes": _size({"tools": tools}),
        "output_schema_bytes": sum(t["output"] for t in per_tool.values()),
        "largest_tool": largest[0],
        "largest_tool_bytes": largest[1]["description_and_input"],
        "per_tool": per_tool,
    }


def listing(home: Path) -> tuple[list[dict[str, Any]], int]:
    """The tools a freshly started server lists, and the bytes of the line that carried them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    peer = StdioPeer([sys.executable, "-m", "remember", "serve"], {**env, "REMEMBER_HOME": str(home)})
    try:
        peer.handshake()
        result = peer.request("tools/list")
    finally:
        peer.close()
    return result["tools"], peer.last_line_bytes


def run(quick: bool = False) -> dict[str, Any]:
    del quick  # one listing is as quick as it gets
    with tempfile.TemporaryDirectory() as tmp:
        tools, wire = listing(Path(tmp))
    found = findings(tools)
    warnings, flagged = inspector_warnings(found)
    figures = {**measure(tools), "wire_bytes": wire, "tokens_estimate": wire // BYTES_PER_TOKEN}
    figures |= {"portability_warnings": warnings, "portability_tools": flagged, "portability_findings": len(found)}
    table = Table("Tool list", ["measure", "value", "note"])
    table.add("tools", figures["tools"], None)
    table.add("tools/list on the wire", figures["wire_bytes"], f"bytes; target < {LIMIT_TOTAL}")
    table.add("tokens, estimated", figures["tokens_estimate"], f"{BYTES_PER_TOKEN} bytes a token")
    table.add("output schemas", figures["output_schema_bytes"], "bytes")
    table.add(
        "largest description + input schema",
        figures["largest_tool_bytes"],
        f"bytes, {figures['largest_tool']}; target <= {LIMIT_TOOL}",
    )
    table.add("schema portability warnings", warnings, f"the MCP Inspector's rules, in {flagged} tools; target 0")
    table.add("non-portable constructs", len(found), "those and untyped values (bench/portability.py); target 0")
    table.print()
    return figures
