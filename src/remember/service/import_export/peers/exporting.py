"""Moving out: a user's live memories in another server's form (Markdown notes with the user's
templates, server-memory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from remember.caller import Caller
from remember.models import Memory, MemoryQuery, Relationship
from remember.service.import_export.peers import markdown, server_memory, template_files
from remember.service.visibility import within_reach
from remember.store import Store

PAGE = 500
EXPORT_FORMATS = ("jsonl", "markdown", "server-memory")


def live_memories(store: Store, caller: Caller) -> Iterator[Memory]:
    """The user's memories within the caller's reach, oldest first (the trash is left out)."""
    offset = 0
    while True:
        query = MemoryQuery(
            filter=within_reach(caller, None), sort_by="created_at", descending=False, limit=PAGE, offset=offset
        )
        page = store.memories.page(caller.user, query)
        yield from page.items
        offset += len(page.items)
        if not page.has_more:
            return


def to_markdown(store: Store, caller: Caller, folder: Path) -> tuple[int, int]:
    """One note per live memory, each with its relationships to the other notes written, and a file per
    template of the user's own (``template_files.py``): how many notes, how many templates."""
    permalinks = {m.id: markdown.file_name(m).removesuffix(".md") for m in live_memories(store, caller)}
    linked = _links(store, caller, list(permalinks))

    def relations(memory: Memory) -> list[tuple[str, str]]:
        return [
            (rel.relationship_type, permalinks[other])
            for rel in linked.get(memory.id, [])
            for other in rel.memory_ids
            if other != memory.id and other in permalinks
        ]

    notes = markdown.write_folder(folder, live_memories(store, caller), relations, permalinks)
    return notes, template_files.write(folder, store.templates.of_user(caller.user))


def to_server_memory(store: Store, caller: Caller, out: IO[str]) -> int:
    """server-memory's file: entity lines, then relation lines for the relationships between
    them, joined by newlines (as it writes them itself); the number of entities written."""
    names: dict[str, str] = {}  # memory id -> entity name
    written = 0
    for line in server_memory.entity_lines(live_memories(store, caller), names):
        out.write(("\n" if written else "") + line)
        written += 1
    for line in server_memory.relation_lines(relationships_of(store, caller, list(names)), names):
        out.write("\n" + line)
    return written


def _links(store: Store, caller: Caller, memory_ids: list[str]) -> dict[str, list[Relationship]]:
    """Per memory, its visible relationships (newest first), read a page of memories at a time."""
    linked: dict[str, list[Relationship]] = {}
    for at in range(0, len(memory_ids), PAGE):
        linked.update(store.relationships.links_of(caller.user, memory_ids[at : at + PAGE], trust=caller.trust))
    return linked


def relationships_of(store: Store, caller: Caller, memory_ids: list[str]) -> Iterator[Relationship]:
    """Each visible relationship of these memories once, in the order first met."""
    seen: set[str] = set()
    for rels in _links(store, caller, memory_ids).values():
        for rel in rels:
            if rel.id not in seen:
                seen.add(rel.id)
                yield rel
