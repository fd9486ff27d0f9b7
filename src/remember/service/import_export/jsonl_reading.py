"""Reading remember's export, record by record, into the rows an import writes.

Each record is checked as it is read (``take``), and a problem names its line. ``contents`` reads a
whole file and says what it holds of each user, by id: what an import compares with the database
before it writes anything (``restore.py``).

An owner is a user, or a shared space (its key: an export of a space). Who stored a memory and who made
each change is what the import says (``Pending.author``: the member importing into a space, none in a
personal space), never what the file says: a file can name anyone.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from remember.clock import from_text
from remember.config import check_user_id
from remember.errors import ConfigError, ValidationFailed, excerpt
from remember.models import (
    HistoryEntry,
    Memory,
    PreferenceChange,
    Relationship,
    SuggestionEvent,
    TemplateRecord,
    TemplateVersion,
    memory_from_dict,
    relationship_from_dict,
)
from remember.space_keys import SPACE_KEY

FORMAT = "remember-export"
Record = dict[str, Any]


@dataclass
class Pending:
    user_id: str
    author: str | None = None  # the member recorded as storing and changing what is read (None: the owner)
    preferences: dict[str, Any] = field(default_factory=dict)
    changes: list[PreferenceChange] = field(default_factory=list)
    templates: list[tuple[TemplateRecord, tuple[TemplateVersion, ...]]] = field(default_factory=list)
    memories: list[tuple[Memory, tuple[HistoryEntry, ...], bytes | None]] = field(default_factory=list)
    events: list[SuggestionEvent] = field(default_factory=list)
    relationships: list[tuple[Relationship, tuple[HistoryEntry, ...]]] = field(default_factory=list)
    written: int = 0  # memories already written in earlier parts


@dataclass
class Contents:
    """What a file holds of one user, by id (and the line each is on): what an import checks against
    the target before it writes anything."""

    memories: dict[str, int] = field(default_factory=dict)
    trust: dict[str, float] = field(default_factory=dict)  # memory id -> the trust level it needs
    templates: dict[str, tuple[int, TemplateRecord]] = field(default_factory=dict)
    relationships: dict[str, tuple[int, tuple[str, ...]]] = field(default_factory=dict)  # id -> line, members
    preferences: dict[str, Any] = field(default_factory=dict)

    def take(self, pending: Pending, kind: Any, number: int) -> None:
        """Note the record just read into ``pending`` (line ``number``); one id twice is an error."""
        if kind == "memory":
            memory = pending.memories.pop()[0]
            self._once(self.memories, memory.id, number, "memory", number)
            self.trust[memory.id] = memory.trust
        elif kind == "template":
            record = pending.templates[-1][0]
            self._once(self.templates, record.id, number, "template", (number, record))
        elif kind == "relationship":
            rel = pending.relationships.pop()[0]
            self._once(self.relationships, rel.id, number, "relationship", (number, rel.memory_ids))
        elif kind == "preference":
            self.preferences.update(pending.preferences)

    @staticmethod
    def _once(seen: dict[str, Any], key: str, number: int, noun: str, value: Any) -> None:
        if key in seen:
            first = seen[key] if isinstance(seen[key], int) else seen[key][0]
            raise ValidationFailed.single(
                f"line {number}", "duplicate", f"Line {number} holds {noun} {excerpt(key)} again (line {first} "
                "has it): an export has each once. Remove one of them.",
            )  # fmt: skip
        seen[key] = value


def contents(records: Iterable[Record]) -> dict[str, Contents]:
    """Every record read and checked, nothing written: per user, what the file holds of them."""
    stream = iter(records)
    header(next(stream, None))
    found: dict[str, Contents] = {}
    pending: Pending | None = None
    for number, record in enumerate(stream, start=2):
        user = user_of(record, number)
        if pending is None or pending.user_id != user:
            pending = Pending(user)
        take(pending, record, number)
        found.setdefault(user, Contents()).take(pending, record.get("kind"), number)
    return found


def check_records(records: Iterable[Record]) -> dict[str, int]:
    """What ``import_records`` would write, every record read and checked, nothing written: per user, its memories."""
    return {user: len(found.memories) for user, found in contents(records).items()}


def header(header: Any) -> Record:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValidationFailed.single("file", "format", "This is not a remember export (its first line is no header).")
    return header


def user_of(record: Any, number: int) -> str:
    """The owner of the record: a user id, or a shared space's key."""
    if not isinstance(record, dict) or not isinstance(record.get("user_id"), str):
        raise ValidationFailed.single(f"line {number}", "invalid", f"Line {number} is not a record with a user_id.")
    if SPACE_KEY.match(record["user_id"]):
        return str(record["user_id"])
    try:
        return check_user_id(record["user_id"])
    except ConfigError as exc:
        raise ValidationFailed.single(f"line {number}", "user_id", f"Line {number}: {exc.message}") from exc


def take(pending: Pending, record: Record, number: int) -> None:
    kind = record.get("kind")
    try:
        if kind == "preference":
            pending.preferences[str(record["path"])] = record["value"]
        elif kind == "preference_change":
            pending.changes.append(
                PreferenceChange(
                    record["preference_path"],
                    record["old_value"],
                    record["new_value"],
                    record.get("reason"),
                    from_text(record["at"]),
                )
            )
        elif kind == "template":
            pending.templates.append(_template(pending.user_id, record))
        elif kind == "memory":
            pending.memories.append(_memory(pending.user_id, record, pending.author))
        elif kind == "relationship":
            pending.relationships.append(_relationship(pending.user_id, record, pending.author))
        elif kind == "suggestion_event":
            pending.events.append(
                SuggestionEvent(
                    record["template_id"],
                    record["event"],
                    from_text(record["at"]),
                    record.get("memory_id"),
                    record.get("confidence"),
                )
            )
        else:
            raise ValueError(f"unknown kind {excerpt(kind)}")
    except (KeyError, ValueError, TypeError) as exc:
        raise ValidationFailed.single(f"line {number}", "invalid", f"Line {number} cannot be read: {exc}.") from exc


def _template(user: str, record: Record) -> tuple[TemplateRecord, tuple[TemplateVersion, ...]]:
    versions = tuple(
        TemplateVersion(str(v["version"]), v["definition"], from_text(v["at"])) for v in record.get("versions", [])
    )
    definition = record["definition"]
    stored = TemplateRecord(
        user, str(definition["id"]), definition, from_text(record["created_at"]), from_text(record["updated_at"])
    )
    return stored, versions


def _memory(user: str, record: Record, author: str | None) -> tuple[Memory, tuple[HistoryEntry, ...], bytes | None]:
    memory = replace(memory_from_dict(user, record["memory"]), created_by=author)
    history = _history(memory.id, user, record, author, effective=True)
    vector = base64.b64decode(record["vector"]) if record.get("vector") else None
    return memory, history, vector


def _relationship(user: str, record: Record, author: str | None) -> tuple[Relationship, tuple[HistoryEntry, ...]]:
    rel = relationship_from_dict(user, record["relationship"])
    history = _history(rel.id, user, record, author, effective=False)
    return rel, history


def _history(
    owner_id: str, user: str, record: Record, author: str | None, *, effective: bool
) -> tuple[HistoryEntry, ...]:
    """A record's history entries (a memory's carry when each change took effect; a relationship's do not)."""
    entries = []
    for h in record.get("history", []):
        took_effect = from_text(h["effective_at"]) if effective and h.get("effective_at") else None
        entries.append(HistoryEntry(
            owner_id, user, int(h["version"]), h["action"], h["previous"], h.get("reason"), from_text(h["at"]),
            took_effect, author,
        ))  # fmt: skip
    return tuple(entries)
