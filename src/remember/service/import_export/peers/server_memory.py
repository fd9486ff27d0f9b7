"""The MCP reference memory server's knowledge graph (``@modelcontextprotocol/server-memory``).

Its file (``MEMORY_FILE_PATH``, JSON Lines) holds one object a line: an entity
``{"type": "entity", "name", "entityType", "observations": [...]}`` or a relation
``{"type": "relation", "from", "to", "relationType"}``. An entity becomes one memory
(title: its name; type: its entity type; text: its observations, one a line); a
relation becomes a link between the memories of two entity names. Writing goes the
other way (``entity_lines``): a memory becomes an entity, its lines the observations.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from remember.errors import excerpt
from remember.models import Memory, Relationship
from remember.preferences import TYPE_NAME
from remember.service.drafts import MemoryDraft
from remember.service.import_export.peers.records import ImportedLink, ImportedMemory, Parsed
from remember.service.import_export.peers.sources import refused, text_of

SOURCE = "server-memory"
ENTITY_KEYS = {"type", "name", "entityType", "observations"}
RELATION_KEYS = {"type", "from", "to", "relationType"}


def read(path: Path) -> Parsed:
    """Every entity and relation of the file; a line that is not JSON refuses the file (as server-memory does)."""
    parsed = Parsed()
    for number, line in enumerate(text_of(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise refused(
                path, f"line {number} is not JSON ({exc.msg}); server-memory files have one object a line."
            ) from exc
        where = f"line {number}"
        if not isinstance(item, dict):
            parsed.skipped.append((where, "not an object"))
        elif item.get("type") == "entity":
            _entity(parsed, item, where)
        elif item.get("type") == "relation":
            _relation(parsed, item, where)
        else:
            parsed.skipped.append((where, f"type {excerpt(item.get('type'))} is neither entity nor relation"))
    return parsed


def _entity(parsed: Parsed, item: dict[str, Any], where: str) -> None:
    name, kind, observations = item.get("name"), item.get("entityType"), item.get("observations", [])
    if not isinstance(name, str) or not name.strip():
        parsed.skipped.append((where, "an entity without a name"))
        return
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        parsed.skipped.append((where, f"entity {excerpt(name)}: observations are not a list of texts"))
        return
    parsed.unmapped += [(where, f"entity.{k}") for k in sorted(set(item) - ENTITY_KEYS)]
    usable = isinstance(kind, str) and TYPE_NAME.match(kind.strip())
    if kind is not None and not usable:
        parsed.unmapped.append((where, "entity.entityType (not a usable type: the default type is given)"))
    draft = MemoryDraft(
        content="\n".join(observations) or name,
        title=name,
        type=kind.strip() if usable and isinstance(kind, str) else None,
        context={"source": SOURCE},
    )
    parsed.memories.append(ImportedMemory(name, where, draft))


def _relation(parsed: Parsed, item: dict[str, Any], where: str) -> None:
    ends = (item.get("from"), item.get("to"), item.get("relationType"))
    if not all(isinstance(v, str) and v.strip() for v in ends):
        parsed.skipped.append((where, "a relation without from, to and relationType"))
        return
    parsed.unmapped += [(where, f"relation.{k}") for k in sorted(set(item) - RELATION_KEYS)]
    source, target, kind = (str(v) for v in ends)
    parsed.links.append(ImportedLink(source, target, kind, where=where))


def entity_name(memory: Memory) -> str:
    """The entity name of a memory: its title, else the start of its text."""
    return memory.title or " ".join(memory.content.split())[:60] or memory.id


def entity_lines(memories: Iterable[Memory], names: dict[str, str]) -> Iterator[str]:
    """One server-memory entity line per memory; names are made unique with the memory's id
    and kept in ``names`` (memory id -> entity name) for the relation lines."""
    taken = set(names.values())
    for memory in memories:
        name = entity_name(memory)
        if name in taken:
            name = f"{name} ({memory.id[:8]})"
        taken.add(name)
        names[memory.id] = name
        entity = {"type": "entity", "name": name, "entityType": memory.type, "observations": memory.content.split("\n")}
        yield json.dumps(entity, ensure_ascii=False)


def relation_lines(relationships: Iterable[Relationship], names: dict[str, str]) -> Iterator[str]:
    """server-memory's relations are of two entities: a relationship of more members is written
    as one relation from its first member to each other one; members not exported are left out."""
    for rel in relationships:
        ends = [names[m] for m in rel.memory_ids if m in names]
        for other in ends[1:]:
            first = ends[0]
            relation = {"type": "relation", "from": first, "to": other, "relationType": rel.relationship_type}
            yield json.dumps(relation, ensure_ascii=False)
