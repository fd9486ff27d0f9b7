"""Moving out: a user's live memories in another server's form (Markdown notes, server-memory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from remember.models import Memory, MemoryQuery
from remember.service.moving import markdown, server_memory
from remember.service.visibility import within_reach
from remember.store import MemoryStore

PAGE = 500
EXPORT_FORMATS = ("jsonl", "markdown", "server-memory")


def live_memories(store: MemoryStore, user_id: str) -> Iterator[Memory]:
    """The user's memories within the caller's reach, oldest first (the trash is left out)."""
    offset = 0
    while True:
        query = MemoryQuery(
            filter=within_reach(None), sort_by="created_at", descending=False, limit=PAGE, offset=offset
        )
        page = store.list_memories(user_id, query)
        yield from page.items
        offset += len(page.items)
        if not page.has_more:
            return


def to_markdown(store: MemoryStore, user_id: str, folder: Path) -> int:
    return markdown.write_folder(folder, live_memories(store, user_id))


def to_server_memory(store: MemoryStore, user_id: str, out: IO[str]) -> int:
    """server-memory's file: entity lines joined by newlines (as it writes them itself)."""
    written = 0
    for line in server_memory.entity_lines(live_memories(store, user_id)):
        out.write(("\n" if written else "") + line)
        written += 1
    return written
