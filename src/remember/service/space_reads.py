"""Reads over several spaces: one search or listing per space the caller reads, merged.

Each space is read as its own owner (``SpaceService.reading`` gives the callers, each checked), so a
space's memories are ranked, filtered and held to the caller's trust exactly as a user's are; the pages
are then merged, by score for a search and by the sort column for a listing. A page ``offset``..``offset +
limit`` of the merge needs the first ``offset + limit`` of every space: that is what it costs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from remember.caller import Caller
from remember.models import Memory, Page
from remember.service import browsing, checks, related, shared_search
from remember.service.access_counts import note_access
from remember.service.browsing import Browsed
from remember.service.graph import MAX_EDGES, Graph, GraphEdge, GraphRequest, GraphService
from remember.service.memories import MemoryService
from remember.service.related import RelatedService, RelationshipHit, RelationshipResults
from remember.service.search import MAX_LIMIT, MAX_OFFSET, Hit, Results, SearchService

T = TypeVar("T")
CHUNK = 100  # what one space's search or listing is asked for at a time
SIDE_BY_SIDE = 4  # spaces searched at once


def search(
    service: SearchService, callers: Sequence[Caller], query: str, *, limit: int | None = None, offset: int = 0,
    explain: bool = False, record_access: bool = True, **options: Any,
) -> Results:  # fmt: skip
    """``SearchService.search`` over every space of ``callers``, the hits merged by score (best first)."""
    if len(callers) == 1:
        return service.search(callers[0], query, limit=limit, offset=offset, explain=explain,
                              record_access=record_access, **options)  # fmt: skip
    prefs = service.preferences.effective(callers[0])
    size = checks.whole_number("limit", prefs["search.default_limit"] if limit is None else limit, 1, MAX_LIMIT)
    start = checks.whole_number("offset", offset, 0, MAX_OFFSET)
    hits: list[Hit] = []
    plans: dict[str, Any] = {}
    alphas: dict[str, float] = {}  # the first space's is the one answered

    shared = shared_search.prepare(service, callers, query, limit=min(CHUNK, start + size), options=options)

    def first(caller: Caller) -> list[Hit]:
        def page(at: int, count: int) -> tuple[list[Hit], bool]:
            found = service.search(caller, query, limit=count, offset=at, explain=explain and at == 0,
                                   record_access=False, shared=shared, **options)  # fmt: skip
            if found.plan is not None:
                plans[caller.user] = found.plan
            if at == 0:
                alphas[caller.user] = found.alpha
            return found.hits, found.has_more

        return _first(page, start + size)

    # The spaces are searched side by side: each waits mostly on the database and native code.
    with ThreadPoolExecutor(min(len(callers), SIDE_BY_SIDE), thread_name_prefix="space-search") as pool:
        for found in pool.map(first, callers):
            hits += found
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    chosen = hits[start : start + size]
    if record_access:
        for caller in callers:
            mine = [h.memory.id for h in chosen if h.memory.user_id == caller.user]
            if mine:
                note_access(service.store, caller.user, mine, service.clock())
    plan = {"spaces": plans} if explain else None
    return Results(chosen, start, size, len(hits) > start + size, alphas.get(callers[0].user, 0.0), plan)


def similar(service: SearchService, callers: Sequence[Caller], *, limit: int = 10, **options: Any) -> list[Hit]:
    """``SearchService.similar`` over every space of ``callers``, merged by similarity (a text embedded once)."""
    text = options.get("text_query")
    shared = shared_search.text_vector(service, text) if len(callers) > 1 and text is not None else None
    hits = [h for caller in callers for h in service.similar(caller, limit=limit, shared=shared, **options)]
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    return hits[:limit]


def listing(
    service: MemoryService, callers: Sequence[Caller], *, limit: int = 20, offset: int = 0,
    sort_by: str = "created_at", sort_order: str = "desc", **options: Any,
) -> Page:  # fmt: skip
    """``MemoryService.list`` over every space of ``callers``, merged in the listing's order."""
    if len(callers) == 1:
        return service.list(callers[0], limit=limit, offset=offset, sort_by=sort_by, sort_order=sort_order, **options)
    size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
    start = checks.whole_number("offset", offset, 0, MAX_OFFSET)
    items: list[Memory] = []
    total = 0
    for caller in callers:

        def page(at: int, count: int, caller: Caller = caller) -> tuple[list[Memory], bool]:
            nonlocal total
            found = service.list(caller, limit=count, offset=at, sort_by=sort_by, sort_order=sort_order, **options)
            total += found.total if at == 0 else 0
            return list(found.items), found.has_more

        items += _first(page, start + size)
    key = _sort_key(sort_by)
    items.sort(key=key, reverse=sort_order == "desc")
    return Page(tuple(items[start : start + size]), total, size, start)


def browse(
    service: MemoryService, callers: Sequence[Caller], *, limit: int = 20, cursor: str | None = None,
    sort_by: str = "created_at", sort_order: str = "desc", **options: Any,
) -> Browsed:  # fmt: skip
    """``MemoryService.browse`` over every space of ``callers``: each space's page after the same cursor (a
    cursor is a position in the order, not a space's), merged, and the cursor of the last one kept."""
    if len(callers) == 1:
        return service.browse(callers[0], limit=limit, cursor=cursor, sort_by=sort_by, sort_order=sort_order,
                              **options)  # fmt: skip
    size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
    pages = [
        service.browse(c, limit=size, cursor=cursor, sort_by=sort_by, sort_order=sort_order, **options) for c in callers
    ]
    items = sorted((m for p in pages for m in p.items), key=_sort_key(sort_by), reverse=sort_order == "desc")
    chosen = tuple(items[:size])
    more = len(items) > size or any(p.next_cursor for p in pages)
    after = browsing.cursor_at(sort_by, sort_order == "desc", chosen[-1]) if more and chosen else None
    return Browsed(chosen, size, after)


def graph(service: GraphService, callers: Sequence[Caller], request: GraphRequest) -> Graph:
    """``GraphService.graph`` of every space of ``callers`` side by side (a relationship lives in one space);
    past the limit the most connected memories of all of them are kept, as in one space."""
    graphs = [service.graph(c, request) for c in callers]
    if len(graphs) == 1:
        return graphs[0]
    limit = graphs[0].limit
    nodes = sorted((n for g in graphs for n in g.nodes), key=lambda n: (-n.degree, n.id))[:limit]
    kept = {n.id for n in nodes}
    edges = [
        GraphEdge(e.id, e.relationship_type, members, e.strength, e.valid_from, e.valid_until)
        for g in graphs
        for e in g.edges
        if len(members := tuple(m for m in e.memory_ids if m in kept)) >= 2
    ]
    edges.sort(key=lambda e: (-e.strength, e.id))
    counts: dict[str, int] = {}
    for g in graphs:
        for kind, count in g.types:
            counts[kind] = counts.get(kind, 0) + count
    types = tuple(sorted(counts.items(), key=lambda t: (-t[1], t[0])))
    names = {k: v for g in graphs for k, v in g.template_names.items()}
    return Graph(
        tuple(nodes), tuple(edges[:MAX_EDGES]), sum(g.total_memories for g in graphs),
        sum(g.total_relationships for g in graphs), limit, types, names,
    )  # fmt: skip


def relationships(
    service: RelatedService, callers: Sequence[Caller], query: str | None = None, *, limit: int = 10,
    offset: int = 0, **options: Any,
) -> RelationshipResults:  # fmt: skip
    """``RelatedService.search`` over every space of ``callers``: by score with a query, newest first without."""
    if len(callers) == 1:
        return service.search(callers[0], query, limit=limit, offset=offset, **options)
    size = checks.whole_number("limit", limit, 1, related.MAX_LIMIT)
    start = checks.whole_number("offset", offset, 0, related.MAX_OFFSET)
    hits: list[RelationshipHit] = []
    totals: list[int | None] = []
    for caller in callers:

        def page(at: int, count: int, caller: Caller = caller) -> tuple[list[RelationshipHit], bool]:
            found = service.search(caller, query, limit=count, offset=at, **options)
            if at == 0:
                totals.append(found.total)
            return found.hits, found.has_more

        hits += _first(page, start + size)
    if any(h.score is not None for h in hits):
        hits.sort(key=lambda h: (-(h.score or 0.0), h.relationship.id))
    else:  # newest first, as each space lists them
        hits.sort(key=lambda h: h.relationship.id)
        hits.sort(key=lambda h: h.relationship.created_at, reverse=True)
    total = None if None in totals else sum(t or 0 for t in totals)
    chosen = hits[start : start + size]
    return RelationshipResults(chosen, start, size, total, len(hits) > start + size)


def _first(page: Callable[[int, int], tuple[list[T], bool]], wanted: int) -> list[T]:
    """The first ``wanted`` of one space, asked for a chunk at a time."""
    out: list[T] = []
    while len(out) < wanted:
        found, more = page(len(out), min(CHUNK, wanted - len(out)))
        out += found
        if not more or not found:
            break
    return out


def _sort_key(sort_by: str) -> Callable[[Memory], Any]:
    column = "occurred_at" if sort_by == "occurred_at" else sort_by
    return lambda m: (getattr(m, column), m.id)


__all__ = ["browse", "graph", "listing", "relationships", "search", "similar"]
