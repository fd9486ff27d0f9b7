"""Moving in from other memory servers and out to their formats (docs/importing.md).

``read(format, path)`` turns another server's data into drafts and links
(``records.Parsed``); ``importer.run`` writes them, and relates the memories the links
join (``linking.py``). ``FORMATS`` names what can be read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from remember.service.import_export.peers import basic_memory, mcp_memory_service, mem0, server_memory
from remember.service.import_export.peers.importer import run
from remember.service.import_export.peers.records import ImportedLink, ImportedMemory, ImportReport, Parsed

READERS: dict[str, Callable[[Path], Parsed]] = {
    "server-memory": server_memory.read,
    "mcp-memory-service": mcp_memory_service.read,
    "basic-memory": basic_memory.read,
    "mem0": mem0.read,
}
FORMATS = tuple(READERS)

__all__ = [
    "FORMATS",
    "ImportReport",
    "ImportedLink",
    "ImportedMemory",
    "Parsed",
    "read",
    "run",
]


def read(source: str, path: Path) -> Parsed:
    return READERS[source](path)
