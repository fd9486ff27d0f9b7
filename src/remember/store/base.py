"""The ``Store`` protocol: everything the service needs from a database.

Every method takes the ``user_id`` it acts for and touches only that user's
rows. Every method is atomic: a change of several rows happens in one
transaction or not at all. Backends: ``remember.store.sqlite`` (embedded
default) and ``remember.store.postgres``; one contract suite tests both.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from remember.models import (
    Compliance,
    HistoryEntry,
    Memory,
    MemoryChange,
    MemoryQuery,
    Page,
    TemplateRecord,
    TemplateUsage,
)


class Store(Protocol):
    url: str

    def close(self) -> None: ...

    # memories
    def insert_memory(self, memory: Memory) -> None:
        """Store a new memory (its id must be new for its user)."""

    def get_memory(self, user_id: str, memory_id: str) -> Memory | None:
        """The memory, deleted or not, or None if the user has no such memory."""

    def replace_memory(self, memory: Memory, *, expected_version: int, history: HistoryEntry) -> None:
        """Write ``memory`` over the stored one and record ``history``, atomically.

        Raises Conflict when the stored version is no longer ``expected_version``
        (another writer got there first) and NotFound when it is gone.
        """

    def purge_memory(self, user_id: str, memory_id: str) -> bool:
        """Delete a memory and its history for good; False if there was none."""

    def list_memories(self, user_id: str, query: MemoryQuery) -> Page:
        """One page of the user's memories matching ``query``, and the total."""

    def memory_history(self, user_id: str, memory_id: str) -> list[HistoryEntry]:
        """The memory's past changes, newest first."""

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        """Count one access of each memory and note when it happened."""

    # preferences
    def get_preferences(self, user_id: str) -> dict[str, Any]:
        """The user's stored preference values by dot path (defaults not included)."""

    def set_preference(
        self, user_id: str, path: str, value: Any, *, old_value: Any, reason: str | None, at: datetime
    ) -> None:
        """Store one preference value and a history row of the change."""

    # templates (the user's own; built-ins live in the package, not the database)
    def insert_template(self, record: TemplateRecord) -> None:
        """Store a new template and its first version; Conflict if the user has one of that name."""

    def get_template(self, user_id: str, template_id: str) -> TemplateRecord | None: ...

    def list_templates(self, user_id: str) -> list[TemplateRecord]:
        """The user's own templates, by name."""

    def replace_template(
        self, record: TemplateRecord, *, expected_version: str, compliance: Sequence[Compliance]
    ) -> None:
        """Write a changed template, keep its new version, and update derived memories' compliance,
        all in one transaction; Conflict when the stored version is not ``expected_version``."""

    def delete_template(self, user_id: str, template_id: str, *, trash: Sequence[MemoryChange]) -> None:
        """Delete a template (and its versions), applying ``trash`` (memories moved to the trash) with it."""

    def set_compliance(self, user_id: str, compliance: Sequence[Compliance]) -> None:
        """Update memories' template compliance and errors (not a content change: no version bump)."""

    def template_children(self, user_id: str, template_id: str) -> list[str]:
        """Ids of the user's templates whose parent is ``template_id``."""

    def template_usage(self, user_id: str) -> dict[str, TemplateUsage]:
        """Per template id: how many of the user's memories were made with it, and the latest."""

    def memories_of_templates(
        self, user_id: str, template_ids: Sequence[str], *, include_deleted: bool
    ) -> list[Memory]:
        """The user's memories made with any of these templates, oldest first."""
