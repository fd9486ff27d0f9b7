"""What both backends' search indexes share: their settings, rebuilding entries, term statistics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from remember.models import IndexEntry, Memory
from remember.store.sql.base import SqlBase
from remember.store.sql.session import Session
from remember.store.sql.terms import TermStatistics

SETTING_UPSERT = (
    "INSERT INTO index_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


class IndexTables(SqlBase):
    term_stats: TermStatistics

    def index_settings(self) -> dict[str, str]:
        """What the stored vectors were made with (``embedding_model``, ``embedding_dimension``)."""
        with self.reading() as s:
            return {str(k): str(v) for k, v in s.all("SELECT key, value FROM index_settings")}

    def set_index_settings(self, settings: dict[str, str]) -> None:
        with self.writing() as s:
            s.many(SETTING_UPSERT, list(settings.items()))
            self.index_settings_written(s)

    def write_index_entries(self, batch: Sequence[tuple[Memory, IndexEntry]]) -> list[Memory]:
        """(Re)index stored memories in one transaction (used to rebuild the index).

        An entry is written only if its memory is still at the version it was made
        from: a memory changed (or purged) since was indexed by that change, which
        is newer. Those memories are returned, to be read and indexed again.
        """
        stale: list[Memory] = []
        with self.writing() as s:
            s.lock_users(m.user_id for m, _ in batch)
            for memory, entry in batch:
                if self._stored_version(s, memory) != memory.version:
                    stale.append(memory)
                    continue
                self.write_index(s, memory, entry)
        return stale

    def _stored_version(self, s: Session, memory: Memory) -> int | None:
        found = s.value(
            f"SELECT version FROM memories WHERE user_id = ? AND id = ?{self.dialect.for_update}",
            (memory.user_id, memory.id),
        )
        return None if found is None else int(found)

    def index_settings_written(self, s: Session) -> None:
        """The index settings changed in this transaction (a backend may build an index for them)."""


def conversation_of(memory: Memory) -> str | None:
    conversation: Any = memory.context.get("conversation_id")
    return conversation if isinstance(conversation, str) else None


def previous_in_conversation(s: Session, memory: Memory) -> str | None:
    """The memory whose text is this one's context: the one indexed before it in its conversation.

    A memory re-indexed in the same conversation keeps the predecessor it had.
    """
    conversation = conversation_of(memory)
    existing = s.one(
        "SELECT conversation_id, context_of FROM memory_index WHERE user_id = ? AND memory_id = ?",
        (memory.user_id, memory.id),
    )
    if existing is not None and existing[0] == conversation:
        return None if existing[1] is None else str(existing[1])
    if conversation is None:
        return None
    found = s.value(
        "SELECT memory_id FROM memory_index WHERE user_id = ? AND conversation_id = ? AND memory_id <> ? "
        "ORDER BY seq DESC LIMIT 1",
        (memory.user_id, conversation, memory.id),
    )
    return None if found is None else str(found)
