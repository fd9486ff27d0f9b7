"""Finding relationships (hybrid search over observations) and walking them from a memory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

from remember import deadline
from remember.caller import Caller
from remember.clock import parse_moment
from remember.errors import FieldError, ValidationFailed, excerpt
from remember.models import Memory, Relationship, RelationshipQuery
from remember.search import text
from remember.search.fusion import above_floor, fuse, fuse_by_shape
from remember.service import checks, validity, visibility
from remember.service.preferences import PreferenceService
from remember.service.relationships import RelationshipService, member_id
from remember.service.search import alpha_of, min_score_of, own_floor
from remember.store import Store

POOL = 50
MAX_LIMIT, MAX_OFFSET = 100, 1_000
MAX_DEPTH = 3
MAX_RELATED = 100  # memories a walk returns at most
LINKS_PER_LEVEL = 2_000  # (memory, relationship) links a walk reads at each level at most, the newest first
MAX_FILTER_VALUES = 20


@dataclass(frozen=True)
class RelationshipHit:
    relationship: Relationship
    score: float | None


@dataclass(frozen=True)
class RelationshipResults:
    hits: list[RelationshipHit]
    offset: int
    limit: int
    total: int | None  # known when listing without a query
    has_more: bool


class Step(NamedTuple):
    """One hop of a walk: through which relationship, to which memory."""

    relationship_id: str
    relationship_type: str
    memory_id: str


@dataclass(frozen=True)
class Related:
    memory: Memory
    depth: int
    path: tuple[Step, ...]


@dataclass(frozen=True)
class Criteria:
    """A search's filters, as the edges give them."""

    types: Any = None
    memory_id: Any = None
    min_strength: Any = 0.0
    min_confidence: Any = 0.0
    tags: Any = None
    created_after: Any = None
    created_before: Any = None


class RelatedService:
    def __init__(self, store: Store, relationships: RelationshipService, preferences: PreferenceService) -> None:
        self.store = store
        self.relationships = relationships
        self.preferences = preferences

    def _now(self) -> datetime:
        return self.relationships.clock()

    def search(
        self, caller: Caller, query: str | None = None, *, alpha: float | None = None,
        criteria: Criteria | None = None, limit: int = 10, offset: int = 0, min_score: float | None = None,
    ) -> RelationshipResults:  # fmt: skip
        """The relationships whose observation best matches ``query`` (newest first without one): those
        holding a term of it, and those whose cosine with it is at least ``min_score`` (as for memories)."""
        q = replace(query_of(caller, criteria or Criteria()), current_at=self._now())
        size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
        start = checks.whole_number("offset", offset, 0, MAX_OFFSET)
        if query is None or (isinstance(query, str) and not query.strip()):
            items, total = self.store.relationships.page(caller.user, q, limit=size, offset=start)
            hits = [RelationshipHit(r, None) for r in items]
            return RelationshipResults(hits, start, size, total, start + len(items) < total)
        question = checks.query(query, "query")
        prefs = self.preferences.effective(caller)
        weight = alpha_of(prefs, alpha)
        floor = min_score_of(prefs, min_score)
        pool = max(POOL, start + size + 1)
        keyword: dict[str, float] = {}
        if weight is None or weight < 1:
            terms = text.relationship_query_terms(question)
            keyword = dict(self.store.relationships.keyword_candidates(caller.user, terms, q, limit=pool))
        cosine: dict[str, float] = {}
        vector = self.relationships.indexer.query_row(question) if weight is None or weight > 0 else None
        if vector is not None:
            cosine = dict(self.store.relationships.vector_candidates(caller.user, vector, q, limit=pool))
        # observations are a sentence or two: no length to weigh, so an empty ``lengths``
        candidates = fuse(keyword, cosine, weight) if weight is not None else fuse_by_shape(keyword, cosine, {})[1]
        fused = sorted(
            above_floor(candidates, own_floor(self.relationships.indexer, floor)), key=lambda f: (-f.fused, f.memory_id)
        )
        page = fused[start : start + size]
        found = {
            r.id: r for r in self.store.relationships.by_id(caller.user, [f.memory_id for f in page], trust=q.trust)
        }
        hits = [RelationshipHit(found[f.memory_id], round(f.fused, 6)) for f in page if f.memory_id in found]
        return RelationshipResults(hits, start, size, None, len(fused) > start + size)

    def related(
        self,
        caller: Caller,
        memory_id: str,
        *,
        depth: int = 1,
        types: Sequence[str] | None = None,
        min_strength: float = 0.0,
        when: validity.When = validity.CURRENT,
    ) -> list[Related]:
        """The memories reachable from ``memory_id`` through at most ``depth`` relationships, nearest first,
        each with the path that reached it (the shortest). By default through the relationships still true to
        the memories still true; with ``as_of``, through those true then to those true then (with their values
        then); with ``everything``, through all of them."""
        levels = checks.whole_number("depth", depth, 1, MAX_DEPTH)
        now = self._now()
        q = query_of(caller, Criteria(types=types, min_strength=min_strength))
        if when == validity.CURRENT:
            q = replace(q, current_at=now)  # not ended by now
        start = _start(self.store, caller, memory_id)
        seen: dict[str, tuple[int, tuple[Step, ...]]] = {start: (0, ())}
        frontier = [start]
        for level in range(1, levels + 1):
            deadline.check()
            links = self.store.relationships.links_of(caller.user, frontier, trust=q.trust, limit=LINKS_PER_LEVEL)
            frontier = _reached(q, when.as_of, frontier, links, seen, level)
            if not frontier or len(seen) > MAX_RELATED:
                break
        reached = self.store.memories.get_many(caller.user, [i for i in seen if i != start])
        if when.as_of is not None:  # what was true then, as it was then
            reached = validity.seen_as(self.store, caller, [m for m in reached if m.true_at(when.as_of)], when)
        elif not when.everything:  # what is current
            reached = [m for m in reached if m.valid_until is None or m.valid_until > now]
        found = {m.id: m for m in reached}
        order = sorted((i for i in seen if i in found), key=lambda i: (seen[i][0], i))
        return [Related(found[i], seen[i][0], seen[i][1]) for i in order]


def _reached(
    q: RelationshipQuery,
    at: datetime | None,
    frontier: list[str],
    links: dict[str, list[Relationship]],
    seen: dict[str, tuple[int, tuple[Step, ...]]],
    level: int,
) -> list[str]:
    """The memories first reached at ``level`` through ``links`` from ``frontier`` (noted in ``seen``, which holds
    at most ``MAX_RELATED`` besides the start), through relationships true ``at`` (None: any)."""
    reached: list[str] = []
    for origin in frontier:
        for rel in links.get(origin, []):
            if not _admits(q, rel) or (at is not None and not rel.true_at(at)):
                continue
            for member in rel.memory_ids:
                if len(seen) > MAX_RELATED:
                    return reached
                if member not in seen:
                    seen[member] = (level, (*seen[origin][1], Step(rel.id, rel.relationship_type, member)))
                    reached.append(member)
    return reached


def _start(store: Store, caller: Caller, memory_id: Any) -> str:
    errors: list[FieldError] = []
    mid = member_id(memory_id, "memory_id", errors)
    if mid is None:
        raise ValidationFailed("The memory id cannot be used.", errors)
    memory = visibility.reachable(caller, store.memories.get(caller.user, mid))
    if memory is None:
        raise visibility.unknown(mid)
    return mid


def _admits(q: RelationshipQuery, rel: Relationship) -> bool:
    current = q.current_at is None or rel.valid_until is None or rel.valid_until > q.current_at
    return (not q.types or rel.relationship_type in q.types) and rel.strength >= q.min_strength and current


def query_of(caller: Caller, c: Criteria) -> RelationshipQuery:
    """The store's query of a search's filters, every value checked (all problems at once)."""
    errors: list[FieldError] = []
    types = _texts(c.types, "types", errors)
    tags = tuple(checks.tags(c.tags, errors) or ()) if c.tags is not None else ()
    memory_id = member_id(c.memory_id, "memory_id", errors) if c.memory_id is not None else None
    strength = checks.unit(c.min_strength if c.min_strength is not None else 0.0, "min_strength", errors)
    confidence = checks.unit(c.min_confidence if c.min_confidence is not None else 0.0, "min_confidence", errors)
    after = _moment(c.created_after, "created_after", errors)
    before = _moment(c.created_before, "created_before", errors)
    if errors:
        raise ValidationFailed("The relationship search cannot be run.", errors)
    return RelationshipQuery(
        trust=caller.trust, types=types, memory_id=memory_id, min_strength=strength or 0.0,
        min_confidence=confidence or 0.0, tags=tags, created_after=after, created_before=before,
    )  # fmt: skip


def _texts(value: Any, name: str, errors: list[FieldError]) -> tuple[str, ...]:
    if value is None:
        return ()
    ok = isinstance(value, list | tuple) and 0 < len(value) <= MAX_FILTER_VALUES
    if not ok or not all(isinstance(v, str) and 0 < len(v.strip()) <= 100 and "\x00" not in v for v in value):
        errors.append(
            FieldError(name, "type", f"{name} must be a list of 1 to {MAX_FILTER_VALUES} texts.", excerpt(value))
        )
        return ()
    return tuple(v.strip() for v in value)


def _moment(value: Any, name: str, errors: list[FieldError]) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 64:
        errors.append(FieldError(name, "type", f"{name} must be an ISO 8601 date such as 2026-02-10.", excerpt(value)))
        return None
    try:
        return parse_moment(value)
    except ValueError as exc:
        errors.append(FieldError(name, "invalid", str(exc), excerpt(value)))
        return None
