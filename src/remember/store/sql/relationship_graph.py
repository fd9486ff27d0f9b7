"""The graph of a user's whole memory: the relationships a graph query admits, the most connected memories
among their members, and the relationships among those.

Everything is counted and ranked in SQL, so that a user with a million relationships costs a few grouped
scans, not a million rows read into Python: the degree of each member (``GROUP BY``), the top ``limit``
memories by degree, then only the memberships of those memories. Visibility is the rule of every other
read (``relationship_rows.VISIBLE``): no member in the trash or above the caller's trust. Unless ended ones
are asked for (``current_at`` None), a memory or relationship that has ended is not drawn, and a relationship is
drawn among the memories it holds that are still true, when they are at least two.
"""

from __future__ import annotations

from typing import Any

from remember.models import GRAPH_TEXT, GraphMemory, GraphQuery, GraphRows
from remember.store.sql.base import Sql
from remember.store.sql.dialect import chunks
from remember.store.sql.relationship_rows import CHUNK, VISIBLE
from remember.store.sql.session import Session

MAX_TYPES = 100  # relationship types offered to filter by


def admitted(s: Session, user_id: str, q: GraphQuery, params: list[Any]) -> str:
    """The SELECT of the ids of the relationships ``q`` admits (over ``r``); appends what it binds."""
    d = s.dialect
    parts = ["r.user_id = ?", VISIBLE]
    params += [user_id, q.trust]
    if q.types:
        parts.append(s.any_of("r.relationship_type", q.types, params))
    if q.current_at is not None:  # a relationship still true, holding at least two memories still true
        parts.append("(r.valid_until IS NULL OR r.valid_until > ?)")
        parts.append(
            "(SELECT count(*) FROM relationship_members z JOIN memories zm ON zm.user_id = z.user_id "
            "AND zm.id = z.memory_id WHERE z.user_id = r.user_id AND z.relationship_id = r.id "
            "AND (zm.valid_until IS NULL OR zm.valid_until > ?)) >= 2"
        )
        params += [d.moment(q.current_at), d.moment(q.current_at)]
    if q.dated_by == "valid":
        if q.until is not None:
            parts.append("(r.valid_from IS NULL OR r.valid_from < ?)")
            params.append(d.moment(q.until))
        if q.since is not None:
            parts.append("(r.valid_until IS NULL OR r.valid_until > ?)")
            params.append(d.moment(q.since))
    member = _member_condition(s, q, params)
    if member:
        parts.append(
            "EXISTS (SELECT 1 FROM relationship_members y JOIN memories ym ON ym.user_id = y.user_id "
            f"AND ym.id = y.memory_id WHERE y.user_id = r.user_id AND y.relationship_id = r.id AND {member})"
        )
    return f"SELECT r.id FROM relationships r WHERE {' AND '.join(parts)}"


def _member_condition(s: Session, q: GraphQuery, params: list[Any]) -> str:
    """What one member (``ym``) must meet: a template, a tag, a time it happened."""
    d = s.dialect
    parts: list[str] = []
    if q.template_ids:
        parts.append(s.any_of("ym.template_id", q.template_ids, params))
    if q.tags:
        inner = s.any_of("t.tag", q.tags, params)
        parts.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.user_id = ym.user_id AND t.memory_id = ym.id "
                     f"AND {inner})")  # fmt: skip
    if q.current_at is not None:
        parts.append("(ym.valid_until IS NULL OR ym.valid_until > ?)")
        params.append(d.moment(q.current_at))
    if q.dated_by == "happened":
        if q.since is not None:
            parts.append("ym.occurred_at >= ?")
            params.append(d.moment(q.since))
        if q.until is not None:
            parts.append("ym.occurred_at < ?")
            params.append(d.moment(q.until))
    return " AND ".join(parts)


class RelationshipGraph:
    """Reads the graph of a user's whole memory (``RelationshipTables.graph``)."""

    def __init__(self, sql: Sql, by_id: Any) -> None:
        self.sql = sql
        self._by_id = by_id  # (session, user, ids, trust) -> relationships: RelationshipTables' own reader

    def graph(self, user_id: str, q: GraphQuery, *, limit: int, max_edges: int) -> GraphRows:
        """At most ``limit`` memories, the most connected first, and at most ``max_edges`` relationships among
        them (the strongest first), with the totals the query reaches."""
        with self.sql.reading() as s:
            params: list[Any] = []
            ids = admitted(s, user_id, q, params)
            every = {str(r[0]) for r in s.all(ids, params)}
            members = f"FROM relationship_members m WHERE m.user_id = ? AND m.relationship_id IN ({ids})"
            bound = [user_id, *params]
            if q.current_at is not None:  # an ended memory is not drawn
                members += (
                    " AND NOT EXISTS (SELECT 1 FROM memories e WHERE e.user_id = m.user_id AND e.id = m.memory_id "
                    "AND e.valid_until IS NOT NULL AND e.valid_until <= ?)"
                )
                bound.append(s.dialect.moment(q.current_at))
            total_memories = int(s.value(f"SELECT count(DISTINCT m.memory_id) {members}", bound) or 0)
            ranked = s.all(
                f"SELECT m.memory_id, count(*) AS degree {members} GROUP BY m.memory_id "
                "ORDER BY degree DESC, m.memory_id LIMIT ?",
                [*bound, limit],
            )
            chosen = [(str(r[0]), int(r[1])) for r in ranked]
            whole = len(chosen) == total_memories
            rel_ids = sorted(every) if whole else self._among(s, user_id, every, [m for m, _ in chosen])
            rels = self._by_id(s, user_id, self._strongest(s, user_id, rel_ids, max_edges), q.trust)
            types = s.all(
                f"SELECT r.relationship_type, count(*) AS n FROM relationships r WHERE r.user_id = ? AND {VISIBLE} "
                "GROUP BY r.relationship_type ORDER BY n DESC, r.relationship_type LIMIT ?",
                [user_id, q.trust, MAX_TYPES],
            )
        kept = {m for m, _ in chosen}
        nodes = self._nodes(user_id, chosen)
        rels = [r for r in rels if sum(1 for m in r.memory_ids if m in kept) >= 2]
        rels.sort(key=lambda r: (-r.strength, r.id))
        return GraphRows(
            memories=nodes, relationships=tuple(rels), total_memories=total_memories,
            total_relationships=len(every), types=tuple((str(t), int(n)) for t, n in types),
        )  # fmt: skip

    def _among(self, s: Session, user_id: str, every: set[str], chosen: list[str]) -> list[str]:
        """Of the admitted relationships (``every``), those with at least two members among ``chosen``: the
        memberships of the chosen read by the memory's index, the admitted ones kept (an ``IN`` of the admitted
        query here would be planned row by row)."""
        held: dict[str, int] = {}
        for chunk in chunks(chosen, CHUNK):
            bound: list[Any] = [user_id]
            inner = s.any_of("m.memory_id", chunk, bound)
            rows = s.all(f"SELECT m.relationship_id FROM relationship_members m WHERE m.user_id = ? AND {inner}", bound)
            for (rid,) in rows:
                if str(rid) in every:
                    held[str(rid)] = held.get(str(rid), 0) + 1
        return [rid for rid, n in held.items() if n >= 2]

    def _nodes(self, user_id: str, chosen: list[tuple[str, int]]) -> tuple[GraphMemory, ...]:
        """The chosen memories as a graph draws them, in the order chosen: no more of a text than a label needs."""
        d = self.sql.dialect
        found: dict[str, GraphMemory] = {}
        degree = dict(chosen)
        with self.sql.reading() as s:
            for chunk in chunks([m for m, _ in chosen], CHUNK):
                params: list[Any] = [user_id]
                inner = s.any_of("id", chunk, params)
                rows = s.all(
                    f"SELECT id, title, substr(content, 1, {GRAPH_TEXT}), template_id, tags, occurred_at, trust, "
                    f"deleted_at FROM memories WHERE user_id = ? AND {inner}",
                    params,
                )
                for i, title, text, template, tags, occurred, trust, deleted in rows:
                    found[str(i)] = GraphMemory(
                        str(i), degree[str(i)], title, str(text), template, d.from_texts(tags), d.from_moment(occurred),
                        float(trust), deleted is not None,
                    )  # fmt: skip
        return tuple(found[m] for m, _ in chosen if m in found)

    def _strongest(self, s: Session, user_id: str, rel_ids: list[str], most: int) -> list[str]:
        """At most ``most`` of these relationships, the strongest first."""
        if len(rel_ids) <= most:
            return rel_ids
        scored: list[tuple[float, str]] = []
        for chunk in chunks(rel_ids, CHUNK):
            params: list[Any] = [user_id]
            inner = s.any_of("id", chunk, params)
            rows = s.all(f"SELECT id, strength FROM relationships WHERE user_id = ? AND {inner}", params)
            scored += [(-float(r[1]), str(r[0])) for r in rows]
        return [rid for _, rid in sorted(scored)[:most]]
