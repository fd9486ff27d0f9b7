"""What a reader makes of another memory server's data, before anything is written.

A reader turns a file (or a folder) into ``ImportedMemory`` drafts, ``ImportedLink``
relations between them, and notes of what it could not map. The importer checks
and writes the drafts; every note, link and refused record ends up counted in the
``ImportReport``: nothing is dropped silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from remember.service.drafts import MemoryDraft


@dataclass(frozen=True)
class Origin:
    """What remember's own export says of a memory beyond its fields, kept by the import: its id (when
    the user has no memory of that id yet), when it was stored and last changed, and its version."""

    memory_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    version: int | None = None
    supersedes: tuple[str, ...] = ()  # the keys (permalinks) of the notes it replaced
    superseded_by: str | None = None  # the key of the note that replaced it


@dataclass(frozen=True)
class ImportedMemory:
    key: str  # how the source names it (an entity name, a permalink, an id); links refer to it
    where: str  # where it was read ("line 3", "notes/a.md"), for the report
    draft: MemoryDraft
    origin: Origin | None = None  # remember's own export only


@dataclass(frozen=True)
class ImportedTemplate:
    """One of the user's own templates that travels with remember's Markdown export: its definition
    document, its id included."""

    where: str
    definition: dict[str, Any]


@dataclass(frozen=True)
class ImportedLink:
    source_key: str
    target_key: str
    relation_type: str
    observation: str | None = None
    where: str = ""


@dataclass
class Parsed:
    """Everything a reader read: memories, links, and what it could not map (where, what)."""

    memories: list[ImportedMemory] = field(default_factory=list)
    links: list[ImportedLink] = field(default_factory=list)
    templates: list[ImportedTemplate] = field(default_factory=list)
    unmapped: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # records not read at all, and why


@dataclass
class ImportReport:
    format: str
    dry_run: bool
    read: int = 0  # memories read from the source
    created: int = 0  # written (or, in a dry run, that would be)
    already_present: int = 0  # the same memory is stored already (an earlier import)
    replaced: int = 0  # stored already under the same id, and replaced (a remember export, on_conflict replace)
    repeated_in_source: int = 0  # the same memory twice in the source: stored once
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unmapped: Counter[str] = field(default_factory=Counter)
    links: Counter[str] = field(default_factory=Counter)  # outcome -> count
    templates: Counter[str] = field(default_factory=Counter)  # outcome -> count
    examples: list[dict[str, Any]] = field(default_factory=list)  # a few of what is (or would be) created
    memory_ids: dict[str, str] = field(default_factory=dict)  # source key -> the memory holding it

    def as_dict(self) -> dict[str, Any]:
        counts = ("format", "dry_run", "read", "created", "already_present", "replaced", "repeated_in_source")
        return {
            **{name: getattr(self, name) for name in counts},
            "skipped": [{"where": w, "why": why} for w, why in self.skipped],
            "unmapped": dict(sorted(self.unmapped.items())),
            "links": dict(self.links),
            "templates": dict(self.templates),
            "examples": self.examples,
        }
