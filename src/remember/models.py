"""The plain data the layers pass to each other.

Dataclasses, frozen: the store builds them from rows, the service builds new
ones instead of mutating, the edges turn them into JSON with ``as_dict``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from remember.clock import from_text, to_text
from remember.jsontypes import JsonValue

DeletedMode = Literal["exclude", "include", "only"]
SortField = Literal["created_at", "updated_at", "weight", "occurred_at"]
HistoryAction = Literal["update", "delete", "restore", "merge", "move", "copy"]
Progress = Callable[[int, int], None]  # (done, total) of a long task: an import, a reindex, an index build
#: What an import of remember's own export does with a record whose id is stored already: refuse the
#: import, skip the record (what is stored stays), or replace what is stored with it.
OnConflict = Literal["refuse", "skip", "replace"]
ON_CONFLICT: tuple[OnConflict, ...] = ("refuse", "skip", "replace")


def name_key(name: str) -> str:
    """Template names are unique per user regardless of case and spacing: what makes two the same."""
    return " ".join(name.split()).casefold()


Words = Sequence[str]  # a search's terms: plain words, matched as the backend stems them
#: A memory with no conversation id continues the user's previous one without an id when the two
#: happened at most this far apart: a client that passes no ids still stores a chat's turns in order
#: (measured on LoCoMo without ids: docs/search.md).
IMPLICIT_GAP = timedelta(minutes=30)


@dataclass(frozen=True)
class Memory:
    """One remembered thing, owned by one user.

    ``occurred_at`` is when the remembered thing happened (``context.timestamp``
    in the public form); ``created_at`` is when it was stored. ``valid_from`` and
    ``valid_until`` are when it is true in the world (from ``occurred_at`` unless given;
    no end: still true); ``supersedes`` names the memories it replaced, ``superseded_by``
    the one that replaced it.
    """

    id: str
    user_id: str
    content: str
    type: str
    weight: float
    trust: float
    created_at: datetime
    updated_at: datetime
    occurred_at: datetime
    title: str | None = None
    tags: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)
    location: Mapping[str, Any] | None = None
    template_id: str | None = None
    template_version: str | None = None
    structured_content: Mapping[str, Any] | None = None
    template_compliance: bool | None = None
    template_validation_errors: tuple[Mapping[str, Any], ...] = ()
    version: int = 1
    deleted_at: datetime | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    valid_from: datetime | None = None  # None: from occurred_at (filled in on construction)
    valid_until: datetime | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    identity_key: str | None = None  # its template's identity values, normalised (service/identity.py)
    created_by: str | None = None  # in a shared space, the member who stored it (None: the owner)

    def __post_init__(self) -> None:
        if self.valid_from is None:
            object.__setattr__(self, "valid_from", self.occurred_at)

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def starts(self) -> datetime:
        """When it is true from (``valid_from``, never None once built)."""
        return self.valid_from or self.occurred_at

    def true_at(self, moment: datetime) -> bool:
        """Whether it was true in the world at ``moment``."""
        return self.starts <= moment and (self.valid_until is None or self.valid_until > moment)

    def as_dict(self) -> dict[str, Any]:
        """The public JSON form (``user_id`` left out: callers only see their own)."""
        return {
            "id": self.id,
            "content": self.content,
            "title": self.title,
            "type": self.type,
            "weight": self.weight,
            "trust": self.trust,
            "tags": list(self.tags),
            "references": list(self.references),
            "context": {**self.context, "timestamp": to_text(self.occurred_at)},
            "location": dict(self.location) if self.location is not None else None,
            "template_id": self.template_id,
            "template_version": self.template_version,
            "structured_content": plain(self.structured_content),
            "template_compliance": self.template_compliance,
            "template_validation_errors": [dict(e) for e in self.template_validation_errors],
            "created_at": to_text(self.created_at),
            "updated_at": to_text(self.updated_at),
            "version": self.version,
            "deleted_at": _text_or_none(self.deleted_at),
            "access_count": self.access_count,
            "last_accessed_at": _text_or_none(self.last_accessed_at),
            "valid_from": to_text(self.starts),
            "valid_until": _text_or_none(self.valid_until),
            "supersedes": list(self.supersedes),
            "superseded_by": self.superseded_by,
            **({"created_by": self.created_by} if self.created_by is not None else {}),
        }


def conversation_of(memory: Memory) -> str | None:
    """The conversation id the memory's context names, if any."""
    conversation: Any = memory.context.get("conversation_id")
    return conversation if isinstance(conversation, str) else None


def memory_from_dict(user_id: str, data: Mapping[str, Any]) -> Memory:
    """The inverse of ``Memory.as_dict`` (for imports): ``context.timestamp`` becomes ``occurred_at``."""

    def moment(key: str) -> datetime | None:
        value = data.get(key)
        return from_text(value) if value else None

    context = dict(data.get("context") or {})
    occurred = from_text(context.pop("timestamp")) if context.get("timestamp") else from_text(data["created_at"])
    return Memory(
        id=str(data["id"]),
        user_id=user_id,
        content=str(data["content"]),
        type=str(data["type"]),
        weight=float(data["weight"]),
        trust=float(data["trust"]),
        created_at=from_text(data["created_at"]),
        updated_at=from_text(data["updated_at"]),
        occurred_at=occurred,
        title=data.get("title"),
        tags=tuple(data.get("tags") or ()),
        references=tuple(data.get("references") or ()),
        context=context,
        location=data.get("location"),
        template_id=data.get("template_id"),
        template_version=data.get("template_version"),
        structured_content=data.get("structured_content"),
        template_compliance=data.get("template_compliance"),
        template_validation_errors=tuple(data.get("template_validation_errors") or ()),
        version=int(data.get("version", 1)),
        deleted_at=moment("deleted_at"),
        access_count=int(data.get("access_count", 0)),
        last_accessed_at=moment("last_accessed_at"),
        valid_from=moment("valid_from"),
        valid_until=moment("valid_until"),
        supersedes=tuple(data.get("supersedes") or ()),
        superseded_by=data.get("superseded_by"),
        identity_key=data.get("identity_key"),
        created_by=data.get("created_by"),
    )


@dataclass(frozen=True)
class HistoryEntry:
    """What one change replaced: the fields' previous values, and why."""

    memory_id: str
    user_id: str
    version: int  # the version this change replaced
    action: HistoryAction
    previous: Mapping[str, Any]
    reason: str | None
    at: datetime
    effective_at: datetime | None = None  # when the values it brought became true in the world (None: ``at``)
    actor: str | None = None  # in a shared space, the member who made the change (None: the owner)

    @property
    def effective(self) -> datetime:
        return self.effective_at or self.at

    def as_dict(self) -> dict[str, Any]:
        out = {
            "version": self.version,
            "action": self.action,
            "previous": plain(self.previous),
            "reason": self.reason,
            "at": to_text(self.at),
        }
        if self.effective_at is not None:
            out["effective_at"] = to_text(self.effective_at)
        if self.actor is not None:
            out["by"] = self.actor
        return out


@dataclass(frozen=True)
class MemoryQuery:
    """What to list: a filter tree (see ``remember.filters``), order and page."""

    filter: Any = None  # remember.filters.Filter | None; typed loosely to keep this module at the bottom
    sort_by: SortField = "created_at"
    descending: bool = True
    limit: int = 20
    offset: int = 0
    deleted: DeletedMode = "exclude"
    #: keyset pages: the sort value and id of the last memory of the previous page (offset unused)
    after: tuple[datetime | float, str] | None = None


@dataclass(frozen=True)
class Page:
    """One page of memories and the total that match."""

    items: tuple[Memory, ...]
    total: int
    limit: int
    offset: int

    @property
    def has_more(self) -> bool:
        return self.offset + len(self.items) < self.total


@dataclass(frozen=True)
class MemoryChange:
    """A new state of a stored memory, the version it replaces, and the history entry to keep."""

    memory: Memory
    expected_version: int
    history: HistoryEntry


@dataclass(frozen=True)
class IndexEntry:
    """What search indexes for one memory: its keyword text, its date words and its vector.

    ``vector`` is float32, little-endian, unit length; None when no embedder could
    make one (the memory is then found by keywords only until a reindex).
    """

    text: str
    date: str
    vector: bytes | None


@dataclass(frozen=True)
class VectorRow:
    """One memory's vector as a cache reads it, with what the cache needs to know."""

    memory_id: str
    seq: int
    vector: bytes | None
    deleted: bool


@dataclass(frozen=True)
class Compliance:
    """A memory's fit with its template, recomputed when the template changes."""

    memory_id: str
    compliant: bool
    errors: tuple[Mapping[str, Any], ...]
    version: int  # the memory version it was computed for: a memory changed since is left alone
    identity_key: str | None = None  # its identity values' key under the template's identity now


@dataclass(frozen=True)
class TemplateRecord:
    """A user's own template as stored: the definition as plain JSON, and when it changed.

    The definition is the template engine's ``TemplateDefinition.as_dict()``; the
    store keeps it opaque so that this module stays below the engine.
    """

    user_id: str
    id: str
    definition: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime

    @property
    def name(self) -> str:
        return str(self.definition["name"])

    @property
    def version(self) -> str:
        return str(self.definition["version"])

    @property
    def parent_template_id(self) -> str | None:
        parent = self.definition.get("parent_template_id")
        return str(parent) if parent is not None else None


@dataclass(frozen=True)
class TemplateUsage:
    """How much a user used one template: memories made with it and the latest."""

    template_id: str
    usage_count: int
    last_used: datetime | None


@dataclass(frozen=True)
class SuggestionEvent:
    """A template suggestion shown to a user, or applied by them, for learning what they accept."""

    template_id: str
    event: Literal["shown", "applied"]
    at: datetime
    memory_id: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class SuggestionStats:
    """How often one template was suggested to a user and applied by them."""

    template_id: str
    shown: int
    applied: int
    last_applied: datetime | None
    ignored: int = 0  # shown for a memory the user then gave another template


@dataclass(frozen=True)
class TemplateVersion:
    version: str
    definition: Mapping[str, Any]
    at: datetime


@dataclass(frozen=True)
class UserDump:
    """Everything one user has, for moving it to another database whole."""

    user_id: str
    preferences: Mapping[str, Any]
    preference_history: tuple[PreferenceChange, ...]
    templates: tuple[tuple[TemplateRecord, tuple[TemplateVersion, ...]], ...]
    memories: tuple[tuple[Memory, tuple[HistoryEntry, ...], IndexEntry], ...]
    suggestion_events: tuple[SuggestionEvent, ...]


@dataclass(frozen=True)
class PreferenceChange:
    path: str
    old_value: Any
    new_value: Any
    reason: str | None
    at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {
            "preference_path": self.path,
            "old_value": self.old_value,
            "new_value": self.new_value,
            "reason": self.reason,
            "at": to_text(self.at),
        }


MAX_TAG_LENGTH = 64


def normalize_tag(tag: str) -> str:
    """Tags compare without case and with runs of whitespace folded to one space."""
    return " ".join(tag.split()).lower()


def _text_or_none(moment: datetime | None) -> str | None:
    return to_text(moment) if moment is not None else None


def plain(value: Any) -> Any:
    """Deep-copy mappings and sequences into plain dicts and lists for JSON."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def fields_as_json(result: Any) -> dict[str, JsonValue]:
    """A dataclass whose field names are its JSON keys, as JSON: nested dataclasses become objects, tuples
    lists (a value that is not JSON, such as a moment, is the caller's to replace)."""
    out: dict[str, JsonValue] = plain(dataclasses.asdict(result))
    return out


@dataclass(frozen=True)
class Space:
    """A shared space: memories a team keeps together (``key``: ``~`` and hex, see ``space_keys``)."""

    key: str
    name: str
    created_by: str
    created_at: datetime

    def as_dict(self) -> dict[str, Any]:
        created = to_text(self.created_at)
        return {"space": self.key, "name": self.name, "created_by": self.created_by, "created_at": created}


@dataclass(frozen=True)
class SpaceMember:
    """A user's role in a space: reader, writer or admin."""

    space: str
    user: str
    role: str
    added_by: str
    added_at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {"user": self.user, "role": self.role, "added_by": self.added_by, "added_at": to_text(self.added_at)}


@dataclass(frozen=True)
class InvitationBounds:
    """How many invitations may wait unanswered: in one space, from one admin to one user, and to one user."""

    per_space: int
    per_inviter: int
    per_invitee: int


@dataclass(frozen=True)
class SpaceInvitation:
    """An admin's offer of a role in a space to a user, who becomes a member by accepting it."""

    space: str
    user: str
    role: str
    invited_by: str
    invited_at: datetime

    def as_dict(self) -> dict[str, Any]:
        at = to_text(self.invited_at)
        return {"user": self.user, "role": self.role, "invited_by": self.invited_by, "invited_at": at}


@dataclass(frozen=True)
class ApiToken:
    """A credential for the HTTP server: whose it is, its trust level, and only a hash of its secret."""

    id: str
    user_id: str
    name: str | None
    secret_sha256: str
    trust_level: float
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None
    parent_id: str | None = None  # the token this one was made with, if it was made with one
    spaces: frozenset[str] | None = None  # the keys of the only spaces it reaches (its user's id: personal)

    def usable_at(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def public(self) -> dict[str, Any]:
        """The token's record without its hash, as `remember token list --json` and the dashboard show it."""
        moments = {
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "revoked_at": self.revoked_at,
            "last_used_at": self.last_used_at,
        }
        stamps = {name: to_text(at) if at else None for name, at in moments.items()}
        named = {"id": self.id, "user_id": self.user_id, "name": self.name, "trust_level": self.trust_level}
        limit = sorted(self.spaces) if self.spaces is not None else None
        return {**named, **stamps, "made_with": self.parent_id, "spaces": limit}


@dataclass(frozen=True)
class DashboardSession:
    """A browser's login to the dashboard: it acts as the API token it was made from, until it ends.

    Only the SHA-256 of the session's id is kept; the browser holds the id itself.
    """

    id_sha256: str
    token_id: str
    user_id: str
    created_at: datetime
    expires_at: datetime

    def usable_at(self, now: datetime) -> bool:
        return now < self.expires_at


@dataclass(frozen=True)
class Relationship:
    """A link between two or more of one user's memories: what kind, what was observed, how sure."""

    id: str
    user_id: str
    memory_ids: tuple[str, ...]
    relationship_type: str
    observation: str
    strength: float
    confidence: float
    created_at: datetime
    updated_at: datetime
    tags: tuple[str, ...] = ()
    version: int = 1
    valid_from: datetime | None = None  # None: from created_at (filled in on construction)
    valid_until: datetime | None = None  # None: still true

    def __post_init__(self) -> None:
        if self.valid_from is None:
            object.__setattr__(self, "valid_from", self.created_at)

    def true_at(self, moment: datetime) -> bool:
        return (self.valid_from or self.created_at) <= moment and (
            self.valid_until is None or self.valid_until > moment
        )

    def as_dict(self) -> dict[str, Any]:
        """The public JSON form (``user_id`` left out: callers only see their own)."""
        return {
            "id": self.id,
            "memory_ids": list(self.memory_ids),
            "relationship_type": self.relationship_type,
            "observation": self.observation,
            "strength": self.strength,
            "confidence": self.confidence,
            "tags": list(self.tags),
            "version": self.version,
            "created_at": to_text(self.created_at),
            "updated_at": to_text(self.updated_at),
            "valid_from": to_text(self.valid_from or self.created_at),
            "valid_until": _text_or_none(self.valid_until),
        }


def relationship_from_dict(user_id: str, data: Mapping[str, Any]) -> Relationship:
    """The inverse of ``Relationship.as_dict`` (for imports)."""
    return Relationship(
        id=str(data["id"]),
        user_id=user_id,
        memory_ids=tuple(str(m) for m in data["memory_ids"]),
        relationship_type=str(data["relationship_type"]),
        observation=str(data.get("observation") or ""),
        strength=float(data["strength"]),
        confidence=float(data["confidence"]),
        created_at=from_text(data["created_at"]),
        updated_at=from_text(data["updated_at"]),
        tags=tuple(data.get("tags") or ()),
        version=int(data.get("version", 1)),
        valid_from=from_text(data["valid_from"]) if data.get("valid_from") else None,
        valid_until=from_text(data["valid_until"]) if data.get("valid_until") else None,
    )


@dataclass(frozen=True)
class RelationshipQuery:
    """Which relationships a search or a listing may return.

    Only relationships whose every member is within ``trust`` and not in the trash
    are ever returned: to a caller, a link to a memory it cannot see does not exist.
    """

    trust: float = 1.0
    types: tuple[str, ...] = ()
    memory_id: str | None = None
    min_strength: float = 0.0
    min_confidence: float = 0.0
    tags: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    current_at: datetime | None = None  # only the relationships not ended by then (None: ended ones too)


@dataclass(frozen=True)
class GraphQuery:
    """Which relationships a graph of the whole memory draws (visible ones only, as ``RelationshipQuery``).

    ``template_ids``, ``tags`` and, with ``dated_by`` "happened", ``since``/``until`` are conditions on a
    member: a relationship is drawn when one member meets them all. With ``dated_by`` "valid" the dates are
    the relationship's own validity, which must overlap ``since``..``until``.
    """

    trust: float = 1.0
    types: tuple[str, ...] = ()
    template_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    dated_by: Literal["happened", "valid"] = "happened"
    current_at: datetime | None = None  # only the relationships not ended by then (None: ended ones too)


@dataclass(frozen=True)
class GraphMemory:
    """What a graph draws of a memory: read without its whole text (at most ``GRAPH_TEXT`` characters)."""

    id: str
    degree: int  # the relationships the query admits that hold it
    title: str | None
    text: str
    template_id: str | None
    tags: tuple[str, ...]
    occurred_at: datetime
    trust: float
    deleted: bool


GRAPH_TEXT = 200


@dataclass(frozen=True)
class GraphRows:
    """The most connected memories a graph query reaches (most first), the relationships among them, and how
    many memories and relationships the query reaches in all."""

    memories: tuple[GraphMemory, ...]
    relationships: tuple[Relationship, ...]
    total_memories: int
    total_relationships: int
    types: tuple[tuple[str, int], ...]  # every visible relationship type of the user, with its count


@dataclass(frozen=True)
class RelationshipChange:
    """A new state of a stored relationship, the version it replaces, and the history entry to keep."""

    relationship: Relationship
    expected_version: int
    history: HistoryEntry


TimeUnit = Literal["day", "week", "month", "year"]
MomentColumn = Literal["created_at", "occurred_at"]


@dataclass(frozen=True)
class MemoryCount:
    """How many of a user's live memories of one type and template fall in one period (``bucket``: its first day)."""

    bucket: date
    type: str
    template_id: str | None
    count: int


@dataclass(frozen=True)
class TimeSpan:
    """How many rows a figure counts, and the first and last moment among them."""

    count: int
    first: datetime | None
    last: datetime | None


@dataclass(frozen=True)
class SuggestionCount:
    """How often one template was suggested to a user and applied in one period (``bucket``: its first day)."""

    bucket: date
    shown: int
    applied: int
