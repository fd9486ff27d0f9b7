"""The MCP reference memory server (npm ``@modelcontextprotocol/server-memory``), driven by the SDK's client.

scripts/test installs it into .cache/server-memory; the tests use it to write real
knowledge-graph files and to read back the ones remember exports.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

SERVER = (
    Path(__file__).resolve().parents[1]
    / ".cache" / "server-memory" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
)  # fmt: skip


def params(memory_file: Path) -> StdioServerParameters:
    node = shutil.which("node")
    assert node, "node is needed to run server-memory"
    assert SERVER.exists(), f"{SERVER} is missing: run scripts/test once to install server-memory"
    return StdioServerParameters(command=node, args=[str(SERVER)], env={"MEMORY_FILE_PATH": str(memory_file)})


async def call(memory_file: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Make the tool calls against one server-memory process writing ``memory_file``; their structured results."""
    results = []
    async with Client(params(memory_file)) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result
            results.append(result.structured_content or json.loads(result.content[0].text))  # type: ignore[union-attr]
    return results


GRAPH_CALLS: list[tuple[str, dict[str, Any]]] = [
    (
        "create_entities",
        {
            "entities": [
                {
                    "name": "Sarah Chen",
                    "entityType": "person",
                    "observations": ["Product manager at Google", "Met at PyCon 2025"],
                },
                {"name": "Project Falcon", "entityType": "project", "observations": ["Launch moved to 3 June"]},
                {"name": "Google", "entityType": "organization", "observations": []},
            ]
        },
    ),
    (
        "create_relations",
        {
            "relations": [
                {"from": "Sarah Chen", "to": "Google", "relationType": "works_at"},
                {"from": "Sarah Chen", "to": "Project Falcon", "relationType": "leads"},
            ]
        },
    ),
    ("add_observations", {"observations": [{"entityName": "Sarah Chen", "contents": ["Prefers async updates"]}]}),
]
