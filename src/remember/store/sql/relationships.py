"""Relationships between memories: rows, members, tags, keyword terms, history.

A relationship is visible only while every member is within the caller's trust
and out of the trash (``VISIBLE``): every read here takes the caller's trust
level and applies that condition in SQL, so a link never reveals a memory the
caller could not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from remember.errors import Conflict, StoreError
from remember.models import HistoryEntry, Relationship, RelationshipChange, RelationshipQuery
from remember.store.sql.base import SqlBase
from remember.store.sql.dialect import chunks
from remember.store.sql.rows import history_from_row, history_params
from remember.store.sql.session import Row, Session, check_version

CHUNK = 500
COLUMNS = "r.id, r.relationship_type, r.observation, r.strength, r.confidence, r.tags, r.version, " \
    "r.created_at, r.updated_at"  # fmt: skip
# No member is in the trash or above the trust level bound first.
VISIBLE = (
    "NOT EXISTS (SELECT 1 FROM relationship_members x JOIN memories xm ON xm.user_id = x.user_id "
    "AND xm.id = x.memory_id WHERE x.user_id = r.user_id AND x.relationship_id = r.id "
    "AND (xm.deleted_at IS NOT NULL OR xm.trust > ?))"
)
HISTORY_INSERT = (
    "INSERT INTO relationship_history (user_id, relationship_id, version, action, previous, reason, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
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
    return " AND ".join(parts)


class RelationshipTables(SqlBase):
    def insert_relationship(self, rel: Relationship, terms: Terms, vector: bytes | None) -> None:
        try:
            with self.writing() as s:
                self.insert_relationship_row(s, rel, terms, vector)
        except StoreError as exc:
            if isinstance(exc.__cause__, self.dialect.unique_violation):
                raise Conflict(f"Relationship {rel.id} already exists.") from exc
            raise

    def get_relationship(self, user_id: str, relationship_id: str, *, trust: float) -> Relationship | None:
        found = self.relationships_by_id(user_id, [relationship_id], trust=trust)
        return found[0] if found else None

    def relationships_by_id(self, user_id: str, ids: Sequence[str], *, trust: float) -> list[Relationship]:
        """The visible relationships with these ids, in the order given (unknown or hidden ones skipped)."""
        with self.reading() as s:
            found = {r.id: r for r in self._by_id(s, user_id, ids, trust)}
        return [found[i] for i in ids if i in found]

    def replace_relationship(self, change: RelationshipChange, terms: Terms | None, vector: bytes | None) -> None:
        """Write a relationship's new state and its history, if still at the expected version.

        ``terms`` None keeps the keyword terms and vector (the observation did not change).
        """
        rel = change.relationship
        d = self.dialect
        with self.writing() as s:
            s.lock_users([rel.user_id])
            check_version(s, "relationships", "Relationship", rel.user_id, rel.id, change.expected_version)
            seq = _next_seq(s, rel.user_id)
            s.run(
                "UPDATE relationships SET relationship_type = ?, observation = ?, strength = ?, confidence = ?, "
                "tags = ?, version = ?, updated_at = ?, seq = ? WHERE user_id = ? AND id = ?",
                (
                    rel.relationship_type, rel.observation, rel.strength, rel.confidence, d.texts(rel.tags),
                    rel.version, d.moment(rel.updated_at), seq, rel.user_id, rel.id,
                ),
            )  # fmt: skip
            for table in ("relationship_members", "relationship_tags"):
                s.run(f"DELETE FROM {table} WHERE user_id = ? AND relationship_id = ?", (rel.user_id, rel.id))
            _write_parts(s, rel)
            if terms is not None:
                s.run("UPDATE relationships SET vector = ? WHERE user_id = ? AND id = ?", (vector, rel.user_id, rel.id))
                s.run("DELETE FROM relationship_terms WHERE user_id = ? AND relationship_id = ?", (rel.user_id, rel.id))
                _write_terms(s, rel, terms)
            s.run(HISTORY_INSERT, history_params(d, change.history))

    def delete_relationship(self, user_id: str, relationship_id: str) -> bool:
        with self.writing() as s:
            s.lock_users([user_id])
            cursor = s.run("DELETE FROM relationships WHERE user_id = ? AND id = ?", (user_id, relationship_id))
            return int(cursor.rowcount) > 0

    def relationship_history(self, user_id: str, relationship_id: str) -> list[HistoryEntry]:
        with self.reading() as s:
            rows = s.all(
                "SELECT user_id, relationship_id, version, action, previous, reason, at FROM relationship_history "
                "WHERE user_id = ? AND relationship_id = ? ORDER BY version DESC",
                (user_id, relationship_id),
            )
        return [history_from_row(self.dialect, r) for r in rows]

    def links_of(self, user_id: str, memory_ids: Sequence[str], *, trust: float) -> dict[str, list[Relationship]]:
        """Per memory id, the visible relationships it belongs to, newest first."""
        pairs: list[tuple[str, str]] = []
        with self.reading() as s:
            for chunk in chunks(list(dict.fromkeys(memory_ids)), CHUNK):
                params: list[Any] = [user_id, trust]
                inner = s.any_of("m.memory_id", chunk, params)
                rows = s.all(
                    "SELECT m.memory_id, r.id FROM relationship_members m JOIN relationships r "
                    f"ON r.user_id = m.user_id AND r.id = m.relationship_id WHERE m.user_id = ? AND {VISIBLE} "
                    f"AND {inner} ORDER BY r.created_at DESC, r.id",
                    params,
                )
                pairs += [(r[0], r[1]) for r in rows]
            found = {r.id: r for r in self._by_id(s, user_id, list(dict.fromkeys(p[1] for p in pairs)), trust)}
        out: dict[str, list[Relationship]] = {m: [] for m in memory_ids}
        for memory_id, rel_id in pairs:
            if rel_id in found:
                out[memory_id].append(found[rel_id])
        return out

    def list_relationships(
        self, user_id: str, q: RelationshipQuery, *, limit: int, offset: int
    ) -> tuple[list[Relationship], int]:
        """One page of the relationships ``q`` admits, newest first, and how many there are."""
        with self.reading() as s:
            params: list[Any] = []
            clause = where(s, user_id, q, params)
            total = int(s.value(f"SELECT count(*) FROM relationships r WHERE {clause}", params) or 0)
            rows = s.all(
                f"SELECT r.id FROM relationships r WHERE {clause} ORDER BY r.created_at DESC, r.id LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
            ids = [r[0] for r in rows]
            found = {r.id: r for r in self._by_id(s, user_id, ids, q.trust)}
        return [found[i] for i in ids if i in found], total

    def user_relationships(self, user_id: str) -> list[tuple[Relationship, list[HistoryEntry]]]:
        """Every relationship of the user, hidden ones too, with its history (for export), oldest first."""
        with self.reading() as s:
            ids = [r[0] for r in s.all("SELECT id FROM relationships WHERE user_id = ? ORDER BY created_at, id",
                                       (user_id,))]  # fmt: skip
            rels = self._by_id(s, user_id, ids, None)
            history = s.all(
                "SELECT user_id, relationship_id, version, action, previous, reason, at FROM relationship_history "
                "WHERE user_id = ? ORDER BY relationship_id, version",
                (user_id,),
            )
        entries: dict[str, list[HistoryEntry]] = {}
        for row in history:
            entries.setdefault(row[1], []).append(history_from_row(self.dialect, row))
        order = {i: n for n, i in enumerate(ids)}
        return [(r, entries.get(r.id, [])) for r in sorted(rels, key=lambda r: order[r.id])]

    def restore_relationships(
        self, user_id: str, batch: Sequence[tuple[Relationship, Sequence[HistoryEntry], Terms, bytes | None]]
    ) -> None:
        """Write imported relationships (and their history) in one transaction."""
        with self.writing() as s:
            s.lock_users([user_id])
            for rel, history, terms, vector in batch:
                self.insert_relationship_row(s, rel, terms, vector)
                s.many(HISTORY_INSERT, [history_params(self.dialect, h) for h in history])

    # inside a transaction

    def insert_relationship_row(self, s: Session, rel: Relationship, terms: Terms, vector: bytes | None) -> None:
        d = self.dialect
        s.lock_users([rel.user_id])
        s.run(
            "INSERT INTO relationships (user_id, id, relationship_type, observation, strength, confidence, tags, "
            "version, created_at, updated_at, seq, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rel.user_id, rel.id, rel.relationship_type, rel.observation, rel.strength, rel.confidence,
                d.texts(rel.tags), rel.version, d.moment(rel.created_at), d.moment(rel.updated_at),
                _next_seq(s, rel.user_id), vector,
            ),
        )  # fmt: skip
        _write_parts(s, rel)
        _write_terms(s, rel, terms)

    def _by_id(self, s: Session, user_id: str, ids: Sequence[str], trust: float | None) -> list[Relationship]:
        """The relationships with these ids; only visible ones unless ``trust`` is None."""
        out: list[Relationship] = []
        for chunk in chunks(list(ids), CHUNK):
            params: list[Any] = [user_id]
            visible = ""
            if trust is not None:
                params.append(trust)
                visible = f" AND {VISIBLE}"
            inner = s.any_of("r.id", chunk, params)
            rows = s.all(f"SELECT {COLUMNS} FROM relationships r WHERE r.user_id = ?{visible} AND {inner}", params)
            members = _members(s, user_id, [r[0] for r in rows])
            out += [self._relationship(user_id, r, members.get(r[0], ())) for r in rows]
        return out

    def _relationship(self, user_id: str, row: Row, members: Sequence[str]) -> Relationship:
        d = self.dialect
        rid, kind, observation, strength, confidence, tags, version, created, updated = row
        return Relationship(
            rid, user_id, tuple(members), kind, observation, float(strength), float(confidence),
            d.from_moment(created), d.from_moment(updated), d.from_texts(tags), int(version),
        )  # fmt: skip


def _members(s: Session, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
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


def _next_seq(s: Session, user_id: str) -> int:
    """The next write number of the user's relationships (the caller holds the user's lock)."""
    return int(s.value("SELECT coalesce(max(seq), 0) FROM relationships WHERE user_id = ?", (user_id,))) + 1


def _write_parts(s: Session, rel: Relationship) -> None:
    s.many(
        "INSERT INTO relationship_members (user_id, relationship_id, memory_id, position) VALUES (?, ?, ?, ?)",
        [(rel.user_id, rel.id, m, i) for i, m in enumerate(rel.memory_ids)],
    )
    s.many(
        "INSERT INTO relationship_tags (user_id, relationship_id, tag) VALUES (?, ?, ?)",
        [(rel.user_id, rel.id, tag) for tag in rel.tags],
    )


def _write_terms(s: Session, rel: Relationship, terms: Iterable[tuple[str, int]]) -> None:
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
