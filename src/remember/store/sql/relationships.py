"""Relationships between memories: the store's part that writes them and reads the visible ones."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remember.errors import Conflict, StoreError
from remember.models import (
    GraphQuery,
    GraphRows,
    HistoryEntry,
    OnConflict,
    Relationship,
    RelationshipChange,
    RelationshipQuery,
)
from remember.store.sql.base import Sql
from remember.store.sql.dialect import Dialect, chunks
from remember.store.sql.prefixes import ids_with_prefix
from remember.store.sql.relationship_graph import RelationshipGraph
from remember.store.sql.relationship_rows import (
    CHUNK,
    COLUMNS,
    HISTORY_INSERT,
    VISIBLE,
    Terms,
    members_of,
    next_seq,
    where,
    write_parts,
    write_terms,
)
from remember.store.sql.relationship_search import RelationshipSearch, RelationshipVectors
from remember.store.sql.rows import RELATIONSHIP_HISTORY_COLUMNS, history_from_row, history_params
from remember.store.sql.session import Row, Session, check_version


class RelationshipTables:
    """A user's relationships: written with their members, tags and terms; read only where visible;
    found by observation through ``RelationshipSearch``."""

    def __init__(self, sql: Sql, vectors: RelationshipVectors) -> None:
        self.sql = sql
        self._search = RelationshipSearch(sql, vectors)
        self._graph = RelationshipGraph(sql, self._by_id)

    def insert(self, rel: Relationship, terms: Terms, vector: bytes | None) -> None:
        try:
            with self.sql.writing() as s:
                self.insert_row(s, rel, terms, vector)
        except StoreError as exc:
            if isinstance(exc.__cause__, self.sql.dialect.unique_violation):
                raise Conflict(f"Relationship {rel.id} already exists.") from exc
            raise

    def get(self, user_id: str, relationship_id: str, *, trust: float) -> Relationship | None:
        found = self.by_id(user_id, [relationship_id], trust=trust)
        return found[0] if found else None

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int, trust: float) -> list[str]:
        """Up to ``limit`` ids of the user's visible relationships that start with ``prefix``, in id order."""
        with self.sql.reading() as s:
            return ids_with_prefix(s, "relationships", user_id, prefix, limit, where=VISIBLE, params=[trust])

    def by_id(self, user_id: str, ids: Sequence[str], *, trust: float) -> list[Relationship]:
        """The visible relationships with these ids, in the order given (unknown or hidden ones skipped)."""
        with self.sql.reading() as s:
            found = {r.id: r for r in self._by_id(s, user_id, ids, trust)}
        return [found[i] for i in ids if i in found]

    def replace(self, change: RelationshipChange, terms: Terms | None, vector: bytes | None) -> None:
        """Write a relationship's new state and its history, if still at the expected version.

        ``terms`` None keeps the keyword terms and vector (the observation did not change).
        """
        rel = change.relationship
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.lock_users([rel.user_id])
            check_version(s, "relationships", "Relationship", rel.user_id, rel.id, change.expected_version)
            seq = next_seq(s, rel.user_id)
            s.run(
                "UPDATE relationships SET relationship_type = ?, observation = ?, strength = ?, confidence = ?, "
                "tags = ?, version = ?, updated_at = ?, seq = ?, valid_from = ?, valid_until = ? "
                "WHERE user_id = ? AND id = ?",
                (
                    rel.relationship_type, rel.observation, rel.strength, rel.confidence, d.texts(rel.tags),
                    rel.version, d.moment(rel.updated_at), seq, _moment(d, rel.valid_from), _moment(d, rel.valid_until),
                    rel.user_id, rel.id,
                ),
            )  # fmt: skip
            for table in ("relationship_members", "relationship_tags"):
                s.run(f"DELETE FROM {table} WHERE user_id = ? AND relationship_id = ?", (rel.user_id, rel.id))
            write_parts(s, rel)
            if terms is not None:
                s.run("UPDATE relationships SET vector = ? WHERE user_id = ? AND id = ?", (vector, rel.user_id, rel.id))
                s.run("DELETE FROM relationship_terms WHERE user_id = ? AND relationship_id = ?", (rel.user_id, rel.id))
                write_terms(s, rel, terms)
            s.run(HISTORY_INSERT, history_params(d, change.history))

    def delete(self, user_id: str, relationship_id: str) -> bool:
        with self.sql.writing() as s:
            s.lock_users([user_id])
            cursor = s.run("DELETE FROM relationships WHERE user_id = ? AND id = ?", (user_id, relationship_id))
            return int(cursor.rowcount) > 0

    def history(self, user_id: str, relationship_id: str) -> list[HistoryEntry]:
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {RELATIONSHIP_HISTORY_COLUMNS} FROM relationship_history "
                "WHERE user_id = ? AND relationship_id = ? ORDER BY version DESC",
                (user_id, relationship_id),
            )
        return [history_from_row(self.sql.dialect, r) for r in rows]

    def held_by(self, user_id: str, memory_id: str, *, trust: float) -> int:
        with self.sql.reading() as s:
            row = s.one(
                "SELECT COUNT(*) FROM relationship_members m JOIN relationships r ON r.user_id = m.user_id "
                "AND r.id = m.relationship_id WHERE m.user_id = ? AND m.memory_id = ? AND NOT EXISTS (SELECT 1 "
                "FROM relationship_members x JOIN memories xm ON xm.user_id = x.user_id AND xm.id = x.memory_id "
                "WHERE x.user_id = r.user_id AND x.relationship_id = r.id AND xm.trust > ?)",
                (user_id, memory_id, trust),
            )
        return int(row[0]) if row else 0

    def links_of(
        self, user_id: str, memory_ids: Sequence[str], *, trust: float, limit: int | None = None
    ) -> dict[str, list[Relationship]]:
        """Per memory id, the visible relationships it belongs to, newest first; at most ``limit`` (memory,
        relationship) links in all when given."""
        pairs: list[tuple[str, str]] = []
        with self.sql.reading() as s:
            for chunk in chunks(list(dict.fromkeys(memory_ids)), CHUNK):
                if limit is not None and len(pairs) >= limit:
                    break
                params: list[Any] = [user_id, trust]
                inner = s.any_of("m.memory_id", chunk, params)
                bound = ""
                if limit is not None:
                    bound = " LIMIT ?"
                    params.append(limit - len(pairs))
                rows = s.all(
                    "SELECT m.memory_id, r.id FROM relationship_members m JOIN relationships r "
                    f"ON r.user_id = m.user_id AND r.id = m.relationship_id WHERE m.user_id = ? AND {VISIBLE} "
                    f"AND {inner} ORDER BY r.created_at DESC, r.id{bound}",
                    params,
                )
                pairs += [(r[0], r[1]) for r in rows]
            found = {r.id: r for r in self._by_id(s, user_id, list(dict.fromkeys(p[1] for p in pairs)), trust)}
        out: dict[str, list[Relationship]] = {m: [] for m in memory_ids}
        for memory_id, rel_id in pairs:
            if rel_id in found:
                out[memory_id].append(found[rel_id])
        return out

    def page(self, user_id: str, q: RelationshipQuery, *, limit: int, offset: int) -> tuple[list[Relationship], int]:
        """One page of the relationships ``q`` admits, newest first, and how many there are."""
        with self.sql.reading() as s:
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

    def of_user(self, user_id: str) -> list[tuple[Relationship, list[HistoryEntry]]]:
        """Every relationship of the user, hidden ones too, with its history (for export), oldest first."""
        with self.sql.reading() as s:
            ids = [r[0] for r in s.all("SELECT id FROM relationships WHERE user_id = ? ORDER BY created_at, id",
                                       (user_id,))]  # fmt: skip
            rels = self._by_id(s, user_id, ids, None)
            history = s.all(
                f"SELECT {RELATIONSHIP_HISTORY_COLUMNS} FROM relationship_history "
                "WHERE user_id = ? ORDER BY relationship_id, version",
                (user_id,),
            )
        entries: dict[str, list[HistoryEntry]] = {}
        for row in history:
            entries.setdefault(row[1], []).append(history_from_row(self.sql.dialect, row))
        order = {i: n for n, i in enumerate(ids)}
        return [(r, entries.get(r.id, [])) for r in sorted(rels, key=lambda r: order[r.id])]

    def restore(
        self,
        user_id: str,
        batch: Sequence[tuple[Relationship, Sequence[HistoryEntry], Terms, bytes | None]],
        *,
        on_conflict: OnConflict = "refuse",
    ) -> None:
        """Write imported relationships (and their history) in one transaction; one whose id the user has is
        left as it is (``skip``), written in its place (``replace``) or refused (a Conflict, as a stored key)."""
        with self.sql.writing() as s:
            s.lock_users([user_id])
            stored = set[str]()
            if on_conflict != "refuse" and batch:
                params: list[Any] = [user_id]
                where = s.any_of("id", [r.id for r, _, _, _ in batch], params)
                stored = {r[0] for r in s.all(f"SELECT id FROM relationships WHERE user_id = ? AND {where}", params)}
            for rel, history, terms, vector in batch:
                if rel.id in stored:
                    if on_conflict == "skip":
                        continue
                    # its members, tags, terms and history go with it, and come again from the import
                    s.run("DELETE FROM relationships WHERE user_id = ? AND id = ?", (user_id, rel.id))
                self.insert_row(s, rel, terms, vector)
                s.many(HISTORY_INSERT, [history_params(self.sql.dialect, h) for h in history])

    # inside a transaction

    def insert_row(self, s: Session, rel: Relationship, terms: Terms, vector: bytes | None) -> None:
        d = self.sql.dialect
        s.lock_users([rel.user_id])
        s.run(
            "INSERT INTO relationships (user_id, id, relationship_type, observation, strength, confidence, tags, "
            "version, created_at, updated_at, seq, vector, valid_from, valid_until) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rel.user_id, rel.id, rel.relationship_type, rel.observation, rel.strength, rel.confidence,
                d.texts(rel.tags), rel.version, d.moment(rel.created_at), d.moment(rel.updated_at),
                next_seq(s, rel.user_id), vector, _moment(d, rel.valid_from), _moment(d, rel.valid_until),
            ),
        )  # fmt: skip
        write_parts(s, rel)
        write_terms(s, rel, terms)

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
            members = members_of(s, user_id, [r[0] for r in rows])
            out += [self._relationship(user_id, r, members.get(r[0], ())) for r in rows]
        return out

    def _relationship(self, user_id: str, row: Row, members: Sequence[str]) -> Relationship:
        d = self.sql.dialect
        rid, kind, observation, strength, confidence, tags, version, created, updated, since, until = row
        return Relationship(
            rid, user_id, tuple(members), kind, observation, float(strength), float(confidence),
            d.from_moment(created), d.from_moment(updated), d.from_texts(tags), int(version),
            d.from_moment(since) if since is not None else None, d.from_moment(until) if until is not None else None,
        )  # fmt: skip

    def graph(self, user_id: str, q: GraphQuery, *, limit: int, max_edges: int) -> GraphRows:
        """The most connected memories ``q`` reaches (at most ``limit``) and the relationships among them."""
        return self._graph.graph(user_id, q, limit=limit, max_edges=max_edges)

    def keyword_candidates(
        self, user_id: str, terms: Sequence[str], q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        return self._search.keyword_candidates(user_id, terms, q, limit=limit)

    def vector_candidates(
        self, user_id: str, vector: bytes, q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        return self._search.vector_candidates(user_id, vector, q, limit=limit)


def _moment(d: Dialect, value: datetime | None) -> Any:
    return d.moment(value) if value is not None else None
