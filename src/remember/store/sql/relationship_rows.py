"""Relationships' rows: the condition a query admits, members, tags, keyword terms, and what a purge unlinks.

A relationship is visible only while every member is within the caller's trust
and out of the trash (``VISIBLE``): every read takes the caller's trust level and
applies that condition in SQL, so a link never reveals a memory the caller could
not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from remember.models import Relationship, RelationshipQuery
from remember.store.sql.dialect import chunks
from remember.store.sql.session import Session

CHUNK = 500
COLUMNS = "r.id, r.relationship_type, r.observation, r.strength, r.confidence, r.tags, r.version, " \
    "r.created_at, r.updated_at, r.valid_from, r.valid_until"  # fmt: skip
# No member is in the trash or above the trust level bound first.
VISIBLE = (
    "NOT EXISTS (SELECT 1 FROM relationship_members x JOIN memories xm ON xm.user_id = x.user_id "
    "AND xm.id = x.memory_id WHERE x.user_id = r.user_id AND x.relationship_id = r.id "
    "AND (xm.deleted_at IS NOT NULL OR xm.trust > ?))"
)
HISTORY_INSERT = (
    "INSERT INTO relationship_history (user_id, relationship_id, version, action, previous, reason, at, actor) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
Terms = Sequence[tuple[str, int]]


def where(s: Session, user_id: str, q: RelationshipQuery, params: list[Any], *, visible: bool = True) -> str:
    """The WHERE clause (over ``r``) of the relationships ``q`` admits; appends what it binds.

    ``visible`` False leaves out the visibility rule (for a first, cheaper pass that a second one checks).
    """
    d = s.dialect
    params.append(user_id)
    parts = ["r.user_id = ?"]
    if visible:
        parts.append(VISIBLE)
        params.append(q.trust)
    if q.types:
        parts.append(s.any_of("r.relationship_type", q.types, params))
    if q.memory_id is not None:
        # Driven from the member's index rows, not checked row by row of all the user's relationships.
        parts.append(
            "r.id IN (SELECT y.relationship_id FROM relationship_members y WHERE y.user_id = ? AND y.memory_id = ?)"
        )
        params += [user_id, q.memory_id]
    if q.min_strength > 0:
        parts.append("r.strength >= ?")
        params.append(q.min_strength)
    if q.min_confidence > 0:
        parts.append("r.confidence >= ?")
        params.append(q.min_confidence)
    if q.tags:
        inner = s.any_of("g.tag", q.tags, params)
        parts.append(
            "EXISTS (SELECT 1 FROM relationship_tags g WHERE g.user_id = r.user_id "
            f"AND g.relationship_id = r.id AND {inner})"
        )
    if q.created_after is not None:
        parts.append("r.created_at >= ?")
        params.append(d.moment(q.created_after))
    if q.created_before is not None:
        parts.append("r.created_at < ?")
        params.append(d.moment(q.created_before))
    if q.current_at is not None:
        parts.append("(r.valid_until IS NULL OR r.valid_until > ?)")
        params.append(d.moment(q.current_at))
    return " AND ".join(parts)


def members_of(s: Session, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if not ids:
        return out
    params: list[Any] = [user_id]
    inner = s.any_of("relationship_id", ids, params)
    rows = s.all(
        f"SELECT relationship_id, memory_id FROM relationship_members WHERE user_id = ? AND {inner} "
        "ORDER BY relationship_id, position",
        params,
    )
    for rid, memory_id in rows:
        out.setdefault(rid, []).append(memory_id)
    return out


def next_seq(s: Session, user_id: str) -> int:
    """The next write number of the user's relationships (the caller holds the user's lock)."""
    return int(s.value("SELECT coalesce(max(seq), 0) FROM relationships WHERE user_id = ?", (user_id,))) + 1


def write_parts(s: Session, rel: Relationship) -> None:
    s.many(
        "INSERT INTO relationship_members (user_id, relationship_id, memory_id, position) VALUES (?, ?, ?, ?)",
        [(rel.user_id, rel.id, m, i) for i, m in enumerate(rel.memory_ids)],
    )
    s.many(
        "INSERT INTO relationship_tags (user_id, relationship_id, tag) VALUES (?, ?, ?)",
        [(rel.user_id, rel.id, tag) for tag in rel.tags],
    )


def write_terms(s: Session, rel: Relationship, terms: Iterable[tuple[str, int]]) -> None:
    s.many(
        "INSERT INTO relationship_terms (user_id, term, relationship_id, hits) VALUES (?, ?, ?, ?)",
        [(rel.user_id, term, rel.id, hits) for term, hits in terms],
    )


def unlink_purged(s: Session, user_id: str, memory_id: str) -> list[str]:
    """Before a memory is erased for good: the relationships it belongs to (its memberships go with it)."""
    rows = s.all(
        "SELECT relationship_id FROM relationship_members WHERE user_id = ? AND memory_id = ?", (user_id, memory_id)
    )
    return [r[0] for r in rows]


def drop_lonely(s: Session, user_id: str, relationship_ids: Sequence[str]) -> None:
    """After an erase: delete those of these relationships that have fewer than two members left."""
    for chunk in chunks(list(relationship_ids), CHUNK):
        params: list[Any] = [user_id]
        inner = s.any_of("id", chunk, params)
        s.run(
            f"DELETE FROM relationships WHERE user_id = ? AND {inner} AND (SELECT count(*) FROM relationship_members "
            "x WHERE x.user_id = relationships.user_id AND x.relationship_id = relationships.id) < 2",
            params,
        )
