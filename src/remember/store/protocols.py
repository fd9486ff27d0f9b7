"""What the services need from a database, one protocol per part of the store.

``MemoryStore``, ``TemplateStore``, ``RelationshipStore``, ``PreferenceStore``,
``SuggestionLog``, ``TokenStore``, ``DashboardSessionStore``, ``OAuthClientStore``, ``OAuthGrantStore``,
``TransferStore`` and ``AnalyticsStore`` are the table groups of ``store/sql/``; ``SearchEngine`` (``SearchIndex`` and
``IndexMaintenance``) is a backend's search engine. ``Store`` (``store/front.py``)
holds one of each: ``store.memories``, ``store.templates``, …, ``store.index``.

Every method takes the ``user_id`` it acts for and touches only that user's
rows. Every method is atomic: a change of several rows happens in one
transaction or not at all. Backends: ``remember.store.sqlite`` (embedded
default) and ``remember.store.postgres``; one contract suite tests both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from remember.filters import Filter
from remember.models import (
    ApiToken,
    Compliance,
    DashboardSession,
    DeletedMode,
    GraphQuery,
    GraphRows,
    HistoryEntry,
    IndexEntry,
    InvitationBounds,
    Memory,
    MemoryChange,
    MemoryCount,
    MemoryQuery,
    MomentColumn,
    OnConflict,
    Page,
    PreferenceChange,
    Progress,
    Relationship,
    RelationshipChange,
    RelationshipQuery,
    Space,
    SpaceInvitation,
    SpaceMember,
    SuggestionCount,
    SuggestionEvent,
    SuggestionStats,
    TemplateRecord,
    TemplateUsage,
    TemplateVersion,
    TimeSpan,
    TimeUnit,
    UserDump,
    Words,
)
from remember.store.oauth_records import Grant, GrantCode, GrantTokens, OAuthClient, PendingAuthorization
from remember.store.sides import Capabilities, SideAnswer, VectorSide


class MemoryStore(Protocol):
    def insert(self, memory: Memory, index: IndexEntry | None = None) -> None:
        """Store a new memory (its id must be new for its user) and its search index entry."""

    def insert_many(self, batch: Sequence[tuple[Memory, IndexEntry | None]]) -> None:
        """Store many new memories and their index entries in one transaction."""

    def insert_new(
        self,
        batch: Sequence[tuple[Memory, IndexEntry | None]],
        *,
        max_trust: float,
        repeat: Callable[[Memory, Memory], bool],
    ) -> list[Memory | None]:
        """Store each memory unless it repeats a live memory of its user (same normalised text,
        trust at most ``max_trust``, ``repeat(stored, new)``); per memory, the one it repeats
        (nothing written) or None. Atomic: concurrent identical creates store one memory."""

    def by_text(self, user_id: str, texts: Sequence[str], *, max_trust: float) -> dict[str, list[Memory]]:
        """Of ``texts``, those live memories of the user hold (same normalised text): text -> them."""

    def get(self, user_id: str, memory_id: str) -> Memory | None:
        """The memory, deleted or not, or None if the user has no such memory."""

    def same_identity(self, user_id: str, template_id: str, key: str, *, max_trust: float) -> list[Memory]:
        """The user's live memories of the template with this identity key that have not ended, trust at most
        ``max_trust``, oldest first."""

    def link_successors(self, user_id: str, pairs: Sequence[tuple[str, str]]) -> int:
        """Record (successor, predecessor) pairs as an export said, versions unchanged; how many were added."""

    def has_ended(self, user_id: str) -> bool:
        """Whether any memory of the user has a ``valid_until`` (reads leave out the ended only then)."""

    def get_many(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """The user's memories with these ids, in no particular order."""

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int, max_trust: float) -> list[str]:
        """Up to ``limit`` ids of the user's memories (in the trash too) of trust at most ``max_trust``
        that start with ``prefix`` (compared character by character: ``_`` and ``%`` are no wildcards),
        in id order. Other users' memories never match."""

    def replace(
        self, memory: Memory, *, expected_version: int, history: HistoryEntry, index: IndexEntry | None = None
    ) -> None:
        """Write ``memory`` over the stored one and record ``history``, atomically.

        With ``index`` the memory is re-indexed in the same transaction; without,
        its index only learns that it changed (e.g. it was deleted or restored).

        Raises Conflict when the stored version is no longer ``expected_version``
        (another writer got there first) and NotFound when it is gone.
        """

    def purge(self, user_id: str, memory_id: str) -> bool:
        """Delete a memory and its history for good; False if there was none."""

    def move(
        self, source: str, moved: Memory, *, expected_version: int, history: Sequence[HistoryEntry], index: IndexEntry
    ) -> None:
        """Move a memory from the owner ``source`` to ``moved.user_id`` with its history, in one transaction."""

    def add_history(self, entry: HistoryEntry) -> None:
        """Add an entry that changes nothing of the memory (where a copy came from)."""

    def page(self, user_id: str, query: MemoryQuery) -> Page:
        """One page of the user's memories matching ``query``, and the total."""

    def page_after(self, user_id: str, query: MemoryQuery) -> list[Memory]:
        """Up to ``query.limit`` memories matching ``query`` that come after ``query.after`` in its
        order (from the first without it): a keyset page, with no total and no offset."""

    def history(self, user_id: str, memory_id: str) -> list[HistoryEntry]:
        """The memory's past changes, newest first."""

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        """Count one access of each memory and note when it happened."""

    def of_templates(self, user_id: str, template_ids: Sequence[str], *, include_deleted: bool) -> list[Memory]:
        """The user's memories made with any of these templates, oldest first."""

    def count(self) -> int:
        """How many memories the database holds, all users."""

    def ids_page(self, after: tuple[str, str] | None, limit: int) -> list[tuple[str, str]]:
        """(user_id, memory_id) of every memory of every user, in key order, after ``after``."""


class TemplateStore(Protocol):
    """The user's own templates; built-ins live in the package, not the database."""

    def insert(self, record: TemplateRecord) -> None:
        """Store a new template and its first version; Conflict if the user has one of that name."""

    def get(self, user_id: str, template_id: str) -> TemplateRecord | None: ...

    def of_user(self, user_id: str) -> list[TemplateRecord]:
        """The user's own templates, by name."""

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int) -> list[str]:
        """Up to ``limit`` ids of the user's own templates that start with ``prefix``, in id order."""

    def replace(self, record: TemplateRecord, *, expected_version: str, compliance: Sequence[Compliance]) -> None:
        """Write a changed template, keep its new version, and update derived memories' compliance,
        all in one transaction; Conflict when the stored version is not ``expected_version``."""

    def delete(self, user_id: str, template_id: str, *, trash: Sequence[MemoryChange]) -> None:
        """Delete a template (and its versions), applying ``trash`` (memories moved to the trash) with it."""

    def set_compliance(self, user_id: str, compliance: Sequence[Compliance]) -> None:
        """Update memories' template compliance and errors (not a content change: no version bump)."""

    def versions(self, user_id: str, template_id: str) -> list[TemplateVersion]:
        """Every stored version of one of the user's templates, oldest first."""

    def children(self, user_id: str, template_id: str) -> list[str]:
        """Ids of the user's templates whose parent is ``template_id``."""

    def usage(self, user_id: str, *, max_trust: float | None = None) -> dict[str, TemplateUsage]:
        """Per template id: how many of the user's memories (of trust at most ``max_trust``) were made
        with it, and the latest."""


class PreferenceStore(Protocol):
    def get(self, user_id: str) -> dict[str, Any]:
        """The user's stored preference values by dot path (defaults not included)."""

    def set(self, user_id: str, path: str, value: Any, *, old_value: Any, reason: str | None, at: datetime) -> None:
        """Store one preference value and a history row of the change."""

    def history(self, user_id: str) -> list[PreferenceChange]:
        """The user's preference changes, oldest first."""


class SearchIndex(Protocol):
    # Whether ``keyword_candidates_of`` finds several owners' candidates in less than a query per owner.
    finds_owners_together: bool

    def keyword_candidates(
        self, user_id: str, terms: Words, *, filter: Filter | None, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> list[tuple[str, float]]:
        """Memory ids and keyword scores (higher is better) of the user's memories that hold any of
        ``terms`` (plain words, matched as the backend stems them) and pass ``filter``; ``also``:
        terms that add to the score of the memories found without finding any."""

    def keyword_candidates_of(
        self, owners: Sequence[str], terms: Words, *, deleted: DeletedMode, limit: int, also: Words = ()
    ) -> dict[str, list[tuple[str, float]]]:
        """``keyword_candidates`` (without a filter) of each of ``owners``, exactly as each would be answered
        alone, found together where the backend can (one pass over the terms' postings for them all)."""

    def ranked_keyword_candidates(
        self, user_id: str, terms: Words, *, limit: int, filter: Filter | None = None
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` best of the user's live memories holding any of ``terms`` (and passing ``filter``),
        best first, from a ranked keyword index that scores every term without reading every memory found;
        None where there is none (the backend has none, the user has few memories, or it is being built)
        or too many memories pass the filter."""

    def term_document_counts(self, user_id: str, terms: Sequence[str], *, cap: int) -> tuple[int, list[int]]:
        """How many of the user's memories are indexed, and how many of them contain each term,
        counted up to ``cap``. Other users' memories never count."""

    def vector_candidates(
        self, user_id: str, vector: bytes, *, filter: Filter | None, deleted: DeletedMode, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories nearest to ``vector`` (float32 bytes, unit length) by cosine,
        best first, among the user's memories that pass ``filter``."""

    def vector_side(self, user_id: str, side: VectorSide) -> SideAnswer:
        """The vector side of a search by the route the plan gives, and how it found what it found."""

    def capabilities(self, user_id: str) -> Capabilities:
        """What the engine can do for the user at their size (the search plan's choice of routes)."""

    def cosines(self, user_id: str, vector: bytes, memory_ids: Sequence[str]) -> dict[str, float]:
        """The cosine between ``vector`` and each of these memories that has a vector."""

    def passing_ids(self, user_id: str, memory_ids: Sequence[str], filter: Filter, deleted: DeletedMode) -> set[str]:
        """Which of these of the user's memories pass ``filter`` in the ``deleted`` mode."""

    def get_vector(self, user_id: str, memory_id: str) -> bytes | None: ...

    def get_vectors(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, bytes]:
        """The stored vector (float32 bytes) of each of these memories that has one."""

    def adjacent(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Per memory: the memories just before and just after it in its conversation."""

    def text_lengths(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, int]:
        """The length in characters of the text of each of these of the user's memories."""


class IndexMaintenance(Protocol):
    def index_settings(self) -> dict[str, str]:
        """What the stored vectors were made with (``embedding_model``, ``embedding_dimension``)."""

    def set_index_settings(self, settings: dict[str, str]) -> None: ...

    def write_index_entries(self, batch: Sequence[tuple[Memory, IndexEntry]]) -> list[Memory]:
        """(Re)index stored memories in one transaction, each only if still at the version given;
        the memories that were not (changed or purged since), which keep their newer entry."""

    def build_vector_index(self, user_id: str, dimension: int, progress: Progress | None = None) -> bool:
        """After a bulk write: build the user's approximate vector index now, in bulk, where their
        searches use one that the backend keeps apart (SQLite past ``REMEMBER_VECTOR_INDEX_MIN``),
        so that no search waits for it; False where there is nothing to build."""

    def forget_owner(self, user_id: str) -> None:
        """Remove what the index keeps beside the database for an owner none of whose memories is left (a
        deleted space): its files and what this process holds of them."""

    def build_keyword_index(self, user_id: str, progress: Progress | None = None) -> bool:
        """After a bulk write: build the user's ranked keyword index now, in bulk, where their searches
        use one (SQLite past ``REMEMBER_KEYWORD_INDEX_MIN``); False where there is nothing to build."""

    def bulk_vectors(self, expected: int) -> AbstractContextManager[bool]:
        """A block of bulk writes of about ``expected`` vectors: a backend whose shared vector index is
        cheaper to build afresh than to grow row by row (PostgreSQL's HNSW, when the block at least
        doubles the vectors stored) drops it for the block and builds it at its end. It yields whether it did."""

    def sizing_advice(self) -> list[str]:
        """What the database's server would need to search fast at this size (said at start, on stderr);
        empty when nothing is amiss or the backend has no such setting."""


class SuggestionLog(Protocol):
    def log(self, user_id: str, events: Sequence[SuggestionEvent]) -> None:
        """Record suggestions shown to the user and templates they applied."""

    def stats(self, user_id: str) -> dict[str, SuggestionStats]:
        """Per template id: how often it was shown to the user and applied, and when last applied."""

    def events(self, user_id: str) -> list[SuggestionEvent]:
        """The user's suggestion record, oldest first."""


class AnalyticsStore(Protocol):
    """Figures over time, counted in the database (``store/sql/analytics.py``)."""

    def memory_span(self, user_id: str, *, column: MomentColumn, max_trust: float) -> TimeSpan:
        """How many live memories within ``max_trust`` the user has, and their first and last ``column``."""

    def memory_counts(
        self, user_id: str, *, column: MomentColumn, unit: TimeUnit, max_trust: float
    ) -> list[MemoryCount]:
        """The user's live memories within ``max_trust`` counted per period of ``column``, type and template."""

    def suggestion_span(self, user_id: str, template_id: str) -> TimeSpan:
        """How many suggestion events the user's record holds for the template, and the first and last."""

    def suggestion_counts(self, user_id: str, template_id: str, *, unit: TimeUnit) -> list[SuggestionCount]:
        """Per period: how often the template was suggested to the user, and applied by them."""


class TransferStore(Protocol):
    def user_ids(self) -> list[str]:
        """Every user with anything stored, sorted."""

    def existing(self, user_id: str, table: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` the user has in ``table`` (memories, the trash included; templates; relationships)."""

    def held_by_others(self, user_id: str, table: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` any other owner has in ``table``."""

    def restore(self, dump: UserDump, *, on_conflict: OnConflict = "refuse") -> None:
        """Write one part of a user in one transaction; a stored id is met as ``on_conflict`` says."""


class TokenStore(Protocol):
    """The HTTP server's API tokens. Unlike every other table, found by token id across users:
    a request names its token before anyone knows its user."""

    def insert(self, token: ApiToken) -> None: ...

    def get(self, token_id: str) -> ApiToken | None: ...

    def of(self, user_id: str | None) -> list[ApiToken]:
        """The user's tokens (every user's with None), oldest first."""

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int) -> list[str]:
        """Up to ``limit`` ids of the user's tokens that start with ``prefix``, in id order."""

    def revoke(self, token_id: str, at: datetime) -> bool:
        """Mark the token revoked, and every token made from it at any depth; False when none was live."""

    def used(self, token_id: str, at: datetime) -> None:
        """Note when the token was last used."""


class DashboardSessionStore(Protocol):
    """The dashboard's sessions, found like tokens across users: by the SHA-256 of the id a browser presents."""

    def start(self, session: DashboardSession, *, replacing: str | None, keep: int) -> None:
        """Store ``session`` and forget, in the same transaction, the session ``replacing`` (a digest), every
        session past its end, and the sessions of its token beyond the newest ``keep``."""

    def get(self, id_sha256: str) -> DashboardSession | None: ...

    def end(self, id_sha256: str) -> bool:
        """Forget the session; False when there is none."""


class OAuthClientStore(Protocol):
    """The built-in authorization server's registered clients, found by client id across users."""

    def register(self, client: OAuthClient, *, per_address: int, total: int) -> None:
        """Store the client unless ``per_address`` clients from its address await their first consent or
        ``total`` are kept (LimitReached, nothing stored)."""

    def get(self, client_id: str, now: datetime) -> OAuthClient | None:
        """The client, unless it is unknown or expired at ``now``."""

    def keep_document(self, client: OAuthClient, *, per_address: int, total: int) -> None:
        """Store a client named by its document's URL, or refresh the kept one (its metadata and
        ``fresh_until``; it is kept at least until ``client.expires_at``). A new one is bounded as a
        registration is (LimitReached, nothing stored)."""


class OAuthGrantStore(Protocol):
    """The built-in authorization server's pending authorizations, grants, codes and tokens, found by the
    digests of their secrets. Spending a code and rotating a refresh token succeed once, whatever the
    number of servers over the database."""

    def add_pending(self, pending: PendingAuthorization, now: datetime, *, per_client: int, total: int) -> None:
        """Store the request unless its client has ``per_client`` pending or ``total`` are (LimitReached)."""

    def pending(self, request_sha256: str, now: datetime) -> PendingAuthorization | None: ...

    def take_pending(self, request_sha256: str, now: datetime) -> PendingAuthorization | None:
        """The pending request, forgotten as it is read (only one reader gets it)."""

    def start(self, grant: Grant, code: GrantCode, *, client_until: datetime) -> None:
        """Store a grant and its code; keep its client at least ``client_until``."""

    def code(self, code_sha256: str) -> tuple[GrantCode, Grant] | None:
        """The code, spent or not, and its grant; None once the grant is revoked or swept."""

    def spend_code(self, code_sha256: str, tokens: GrantTokens, now: datetime, *, client_until: datetime) -> bool:
        """Spend the code for the grant's first ``tokens``; False (nothing stored) if spent, expired or gone."""

    def revoke(self, grant_id: str) -> bool:
        """Delete the grant with its code and every token descended from it."""

    def access(self, access_sha256: str, now: datetime) -> tuple[GrantTokens, Grant] | None:
        """The live tokens of this access token (not rotated, not expired) and their grant."""

    def refresh(self, refresh_sha256: str) -> tuple[GrantTokens, Grant] | None:
        """The tokens of this refresh token, rotated or not, and their grant."""

    def rotate(self, refresh_sha256: str, tokens: GrantTokens, now: datetime, *, client_until: datetime) -> bool:
        """Replace the tokens with ``tokens``; False (nothing stored) if they were rotated already or are gone."""

    def sweep(self, now: datetime) -> int:
        """Forget every row expired at ``now``, clients included."""


class RelationshipStore(Protocol):
    """Links between a user's memories. Every read takes the caller's ``trust`` level and returns only
    relationships whose members are all within it and out of the trash."""

    def insert(self, rel: Relationship, terms: Sequence[tuple[str, int]], vector: bytes | None) -> None:
        """Store a new relationship with its members, its observation's keyword terms and vector."""

    def get(self, user_id: str, relationship_id: str, *, trust: float) -> Relationship | None: ...

    def by_id(self, user_id: str, ids: Sequence[str], *, trust: float) -> list[Relationship]:
        """The visible relationships with these ids, in the order given."""

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int, trust: float) -> list[str]:
        """Up to ``limit`` ids of the user's visible relationships that start with ``prefix``, in id order."""

    def replace(
        self, change: RelationshipChange, terms: Sequence[tuple[str, int]] | None, vector: bytes | None
    ) -> None:
        """Write a changed relationship and its history; ``terms`` None keeps its index.
        Conflict when the stored version is no longer the expected one, NotFound when it is gone."""

    def delete(self, user_id: str, relationship_id: str) -> bool:
        """Delete a relationship and its history (its memories stay); False if there was none."""

    def history(self, user_id: str, relationship_id: str) -> list[HistoryEntry]:
        """The relationship's past changes, newest first."""

    def held_by(self, user_id: str, memory_id: str, *, trust: float) -> int:
        """How many relationships hold this memory (in the trash or not) whose members are all within ``trust``:
        what erasing it for good takes from."""

    def links_of(
        self, user_id: str, memory_ids: Sequence[str], *, trust: float, limit: int | None = None
    ) -> dict[str, list[Relationship]]:
        """Per memory id, the visible relationships it belongs to (at most ``limit`` links in all, newest first)."""

    def page(self, user_id: str, q: RelationshipQuery, *, limit: int, offset: int) -> tuple[list[Relationship], int]:
        """A page of the relationships ``q`` admits, newest first, and their total."""

    def graph(self, user_id: str, q: GraphQuery, *, limit: int, max_edges: int) -> GraphRows:
        """The graph of the user's whole memory: at most ``limit`` memories ``q`` reaches, the most connected
        first, at most ``max_edges`` visible relationships among them (the strongest), and the totals."""

    def keyword_candidates(
        self, user_id: str, terms: Sequence[str], q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        """Ids and keyword scores of the relationships ``q`` admits whose observation holds any of ``terms``."""

    def vector_candidates(
        self, user_id: str, vector: bytes, q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        """Ids and cosines of the ``limit`` relationships ``q`` admits nearest to ``vector``, best first."""

    def of_user(self, user_id: str) -> list[tuple[Relationship, list[HistoryEntry]]]:
        """Every relationship of the user (hidden ones too) with its history, oldest first: for export."""

    def restore(
        self,
        user_id: str,
        batch: Sequence[tuple[Relationship, Sequence[HistoryEntry], Sequence[tuple[str, int]], bytes | None]],
        *,
        on_conflict: OnConflict = "refuse",
    ) -> None:
        """Write imported relationships and their history in one transaction; a stored id is met as
        ``on_conflict`` says."""


class SearchEngine(SearchIndex, IndexMaintenance, Protocol):
    """A backend's search engine: what the services search through and maintain."""

    def close(self) -> None: ...


class SpaceStore(Protocol):
    """Shared spaces and their members (``store/sql/spaces.py``); a space's rows are keyed by its key."""

    def create(self, space: Space, *, most_spaces: int) -> bool:
        """A new space with its creator as its one admin; False when the creator belongs to ``most_spaces``."""

    def get(self, key: str) -> Space | None: ...

    def role(self, key: str, member: str) -> str | None:
        """``member``'s role in the space, None when not a member (or no such space)."""

    def of_member(self, member: str) -> list[tuple[Space, str]]:
        """The spaces ``member`` belongs to, with the role there, by name."""

    def members(self, key: str) -> list[SpaceMember]: ...

    def set_role(self, key: str, member: str, role: str) -> bool | None:
        """True when changed, False when no admin would remain, None when not a member (nothing changed)."""

    def remove_member(self, key: str, member: str) -> bool | None:
        """True when removed, False when no admin would remain (nothing changed), None when not a member."""

    def delete(self, key: str) -> bool | None:
        """The space and its members; None (nothing deleted) while a memory is still under its key."""

    def invite(self, invitation: SpaceInvitation, bounds: InvitationBounds) -> str:
        """Offer (or offer again) a place in the space: "invited", or why not (nothing changed): "member",
        or the bound reached ("space", "inviter", "invitee")."""

    def invitations(self, key: str) -> list[SpaceInvitation]:
        """The space's pending invitations, by user."""

    def invitations_of(self, user: str) -> list[tuple[Space, SpaceInvitation]]:
        """The invitations ``user`` has not answered, by space name."""

    def accept(self, key: str, user: str, at: datetime, *, most_spaces: int) -> str | None:
        """Make the invited ``user`` a member with the role offered, which it answers; None when not invited (or
        its inviter is no longer an admin),
        ``""`` when they already belong to ``most_spaces`` spaces (nothing changed)."""

    def withdraw(self, key: str, user: str) -> bool:
        """Drop ``user``'s invitation to the space (declined or cancelled): whether there was one."""
