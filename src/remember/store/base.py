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

from remember.models import HistoryEntry, Memory, MemoryQuery, Page


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
