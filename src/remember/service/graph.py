"""The graph of a user's whole memory: memories as nodes, relationships as edges, filtered and bounded.

A relationship is drawn when its type is one asked for, it is not ended (unless ended ones are asked for),
and one of its members meets the memory filters (a template, a tag, happened between two dates); or, dated
by validity, when it was true at some time between the two dates. Its members are drawn with it.

Past ``limit`` memories the graph keeps the most connected ones and says so (``sampled``, with the totals),
so that a page can draw it and tell the person how much is left out; at most ``MAX_EDGES`` relationships
among them are drawn, the strongest. Tenancy and trust as on every read: only the caller's memories within
its trust level and out of the trash, and only relationships whose every member is such a memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, to_text, utc_now
from remember.errors import FieldError, ValidationFailed, excerpt
from remember.models import GraphMemory, GraphQuery, Relationship
from remember.service import checks
from remember.service.relationships import MAX_RELATIONSHIP_TYPE, member_id
from remember.service.templates import TemplateService
from remember.space_keys import is_space_key
from remember.store import Store

DEFAULT_LIMIT, MAX_LIMIT = 1_000, 2_000
MAX_EDGES = 5_000
MAX_VALUES = 20  # types, templates or tags asked for at once
DATED_BY = ("happened", "valid")
LABEL = 80  # characters of a memory's text that name its node


@dataclass(frozen=True)
class GraphRequest:
    """A graph asked for, as the edges read it; every value is checked by the service."""

    types: Sequence[Any] = ()
    template_ids: Sequence[Any] = ()
    tags: Sequence[Any] = ()
    since: Any = None
    until: Any = None
    dated_by: Any = "happened"
    include_ended: bool = False
    limit: Any = DEFAULT_LIMIT


@dataclass(frozen=True)
class GraphNode:
    id: str
    label: str
    template_id: str | None
    tags: tuple[str, ...]
    happened: str
    degree: int  # relationships drawn or not that hold it, under the filters
    space: str | None = None  # the shared space that holds it; None in the personal space

    def as_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "label": self.label, "template_id": self.template_id, "tags": list(self.tags),
               "happened": self.happened, "degree": self.degree}  # fmt: skip
        return {**out, "space": self.space} if self.space else out


@dataclass(frozen=True)
class GraphEdge:
    id: str
    relationship_type: str
    memory_ids: tuple[str, ...]  # its members among the nodes drawn, in their order
    strength: float
    valid_from: str | None
    valid_until: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "relationship_type": self.relationship_type, "memory_ids": list(self.memory_ids),
                "strength": self.strength, "valid_from": self.valid_from, "valid_until": self.valid_until}  # fmt: skip


@dataclass(frozen=True)
class Graph:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    total_memories: int
    total_relationships: int
    limit: int
    types: tuple[tuple[str, int], ...]
    template_names: dict[str, str] = field(default_factory=dict)

    @property
    def sampled(self) -> bool:
        """Whether memories or relationships the filters reach are left out."""
        return len(self.nodes) < self.total_memories or len(self.edges) < self.total_relationships

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes": [n.as_dict() for n in self.nodes], "edges": [e.as_dict() for e in self.edges],
            "total_memories": self.total_memories, "total_relationships": self.total_relationships,
            "sampled": self.sampled, "limit": self.limit, "max_edges": MAX_EDGES,
            "types": [{"relationship_type": t, "count": n} for t, n in self.types],
            "template_names": self.template_names,
        }  # fmt: skip


class GraphService:
    def __init__(self, store: Store, templates: TemplateService, clock: Clock = utc_now) -> None:
        self.store = store
        self.templates = templates
        self.clock = clock

    def graph(self, caller: Caller, request: GraphRequest) -> Graph:
        query, limit = self._query(caller, request)
        rows = self.store.relationships.graph(caller.user, query, limit=limit, max_edges=MAX_EDGES)
        # The store's visibility rule already holds; a memory above the trust or in the trash is left out again here.
        drawn = {m.id: m for m in rows.memories if caller.reaches(m.trust) and not m.deleted}
        space = caller.user if is_space_key(caller.user) else None
        nodes = tuple(_node(m, space) for m in drawn.values())
        edges = tuple(e for e in (_edge(r, drawn) for r in rows.relationships) if len(e.memory_ids) >= 2)
        view = self.templates.view_of(caller)
        names = {t: d.name for t in sorted({n.template_id for n in nodes if n.template_id})
                 if (d := view.lookup(t)) is not None}  # fmt: skip
        return Graph(nodes, edges, rows.total_memories, rows.total_relationships, limit, rows.types, names)

    def _query(self, caller: Caller, request: GraphRequest) -> tuple[GraphQuery, int]:
        errors: list[FieldError] = []
        types = _texts(
            request.types, "type", errors, lambda v, n: checks.one_line(v, n, errors, limit=MAX_RELATIONSHIP_TYPE)
        )
        templates = _texts(request.template_ids, "template", errors, lambda v, n: member_id(v, n, errors))
        tags = checks.tags(list(request.tags), errors) if _few(request.tags, "tag", errors) else None
        since = checks.instant(request.since, "since", errors) if request.since is not None else None
        until = checks.instant(request.until, "until", errors) if request.until is not None else None
        if request.dated_by not in DATED_BY:
            says = "dated_by is happened (when the memories happened) or valid (when the relationships were true)."
            errors.append(FieldError("dated_by", "choice", says, excerpt(request.dated_by)))
        limit = request.limit
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            says = f"limit is a whole number from 1 to {MAX_LIMIT}."
            errors.append(FieldError("limit", "range", says, excerpt(limit)))
        if since is not None and until is not None and until <= since:
            errors.append(FieldError("until", "before_since", "until must be after since.", to_text(until)))
        if errors:
            raise ValidationFailed("The graph cannot be drawn with these filters.", errors)
        query = GraphQuery(
            trust=caller.trust, types=types, template_ids=templates, tags=tags or (), since=since, until=until,
            dated_by=request.dated_by, current_at=None if request.include_ended else self.clock(),
        )  # fmt: skip
        return query, int(limit)


def _few(values: Sequence[Any], name: str, errors: list[FieldError]) -> bool:
    if len(values) > MAX_VALUES:
        errors.append(FieldError(name, "size", f"Give at most {MAX_VALUES} values of {name}.", len(values)))
        return False
    return True


def _texts(values: Sequence[Any], name: str, errors: list[FieldError], check: Any) -> tuple[str, ...]:
    if not _few(values, name, errors):
        return ()
    clean = [check(v, name) for v in values]
    return tuple(dict.fromkeys(c for c in clean if c))


def _node(memory: GraphMemory, space: str | None) -> GraphNode:
    text = memory.title or " ".join(memory.text.split())
    label = text if len(text) <= LABEL else f"{text[: LABEL - 1]}…"
    happened = to_text(memory.occurred_at)
    return GraphNode(memory.id, label, memory.template_id, memory.tags, happened, memory.degree, space)


def _edge(rel: Relationship, nodes: Mapping[str, GraphMemory]) -> GraphEdge:
    members = tuple(m for m in rel.memory_ids if m in nodes)
    until = to_text(rel.valid_until) if rel.valid_until else None
    since = to_text(rel.valid_from) if rel.valid_from else None
    return GraphEdge(rel.id, rel.relationship_type, members, rel.strength, since, until)
