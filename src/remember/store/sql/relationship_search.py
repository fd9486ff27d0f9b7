"""Finding relationships by their observation: keyword terms and vectors, the same SQL on both backends.

Keywords: ``relationship_terms`` holds each observation's terms (as the service
stems them) with their counts; a query scores ``sum(hits * idf)`` in SQL from those
rows alone. Vectors: an exact search over an in-process matrix per user
(``RelationshipVectors``) that catches up with the rows whose ``seq`` moved. On both
sides the best rows are then checked against the query (visibility, filters) in
SQL, a chunk at a time, until enough are admitted.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from remember.models import RelationshipQuery
from remember.store.sql.base import Sql
from remember.store.sql.relationship_rows import where
from remember.store.sql.session import Session

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

BUDGET = 250_000  # vectors kept in memory across users
CHECK = 256  # ranked rows checked against the query in one statement
# At most this many of the best rows of each side are checked against the query: enough for a
# page of 100 past the offset cap even when most are hidden; a filter matching fewer rows than
# this is applied before the vectors are ranked.
SCANNED = 20_000
# The keyword guard of memory search (service/search.py), for the same reason.
MAX_DF_SHARE, GUARD_FLOOR, POSTINGS_BUDGET = 0.2, 1_000, 10_000


@dataclass
class _Matrix:
    stamp: tuple[int, int]
    ids: list[str]
    position: dict[str, int]
    matrix: NDArray[np.float32]
    present: NDArray[np.bool_]


class RelationshipVectors:
    """Per user, the observation vectors as one matrix, least recently used dropped past ``budget``."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._users: OrderedDict[str, _Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, s: Session, user_id: str) -> _Matrix | None:
        row = s.one("SELECT count(*), coalesce(max(seq), 0) FROM relationships WHERE user_id = ?", (user_id,))
        stamp = (int(row[0]), int(row[1])) if row else (0, 0)
        if stamp[0] == 0:
            return None
        with self._lock:
            held = self._users.get(user_id)
        if held is None or held.stamp != stamp:
            held = self._caught_up(s, user_id, held, stamp)
        with self._lock:
            self._users[user_id] = held
            self._users.move_to_end(user_id)
            while sum(len(m.ids) for m in self._users.values()) > self.budget and len(self._users) > 1:
                self._users.popitem(last=False)
        return held

    def _caught_up(self, s: Session, user_id: str, held: _Matrix | None, stamp: tuple[int, int]) -> _Matrix:
        import numpy as np

        after = held.stamp[1] if held is not None else 0
        rows = s.all("SELECT id, vector FROM relationships WHERE user_id = ? AND seq > ?", (user_id, after))
        if held is not None:
            new = [r for r in rows if r[0] not in held.position]
            if len(held.ids) + len(new) == stamp[0]:
                return _patched(held, rows, stamp)
            rows = s.all("SELECT id, vector FROM relationships WHERE user_id = ?", (user_id,))
        ids = [r[0] for r in rows]
        vectors = [r[1] for r in rows]
        dimension = next((len(v) // 4 for v in vectors if v), 0)
        matrix = np.zeros((len(ids), dimension), dtype=np.float32)
        present = np.zeros(len(ids), dtype=bool)
        for i, v in enumerate(vectors):
            if v and len(v) // 4 == dimension:
                matrix[i] = np.frombuffer(bytes(v), dtype="<f4")
                present[i] = True
        return _Matrix(stamp, ids, {i: n for n, i in enumerate(ids)}, matrix, present)


def _patched(held: _Matrix, rows: Sequence[Any], stamp: tuple[int, int]) -> _Matrix:
    import numpy as np

    ids, position = list(held.ids), dict(held.position)
    matrix, present = held.matrix, held.present
    added = [r for r in rows if r[0] not in position]
    if added:
        matrix = np.vstack([matrix, np.zeros((len(added), matrix.shape[1]), dtype=np.float32)])
        present = np.concatenate([present, np.zeros(len(added), dtype=bool)])
    else:
        matrix, present = matrix.copy(), present.copy()
    for rid, _ in added:
        position[rid] = len(ids)
        ids.append(rid)
    for rid, vector in rows:
        n = position[rid]
        ok = bool(vector) and len(vector) // 4 == matrix.shape[1]
        matrix[n] = np.frombuffer(bytes(vector), dtype="<f4") if ok else 0
        present[n] = ok
    return _Matrix(stamp, ids, position, matrix, present)


class RelationshipSearch:
    """Relationships found by their observation's keyword terms or vector."""

    def __init__(self, sql: Sql, vectors: RelationshipVectors) -> None:
        self.sql = sql
        self.vectors = vectors

    def keyword_candidates(
        self, user_id: str, terms: Sequence[str], q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        """Relationship ids and scores (higher is better) of observations holding any of ``terms``.

        Ranked from the term rows alone, then the best are checked against ``q`` a chunk at a time."""
        if not terms:
            return []
        with self.sql.reading() as s:
            weights = _weights(s, user_id, terms)
            if not weights:
                return []
            params: list[Any] = []
            cases = " ".join("WHEN ? THEN ?" for _ in weights)
            for term, weight in weights:
                params += [term, weight]
            joined = ""
            if _narrowing(q):  # the filter in the ranking itself (cheap without the visibility rule)
                clause = where(s, user_id, q, params, visible=False)
                joined = f"JOIN relationships r ON r.user_id = t.user_id AND r.id = t.relationship_id AND {clause} "
            params.append(user_id)
            terms_in = s.any_of("t.term", [t for t, _ in weights], params)
            statement = (
                f"SELECT t.relationship_id, sum(t.hits * CASE t.term {cases} ELSE 0 END) AS score "
                f"FROM relationship_terms t {joined}WHERE t.user_id = ? AND {terms_in} "
                "GROUP BY t.relationship_id ORDER BY score DESC, t.relationship_id LIMIT ? OFFSET ?"
            )

            def ranked(start: int, size: int) -> list[tuple[str, float]]:
                return [(r[0], float(r[1])) for r in s.all(statement, [*params, size, start])]

            return _admitted(s, user_id, q, ranked, limit)

    def vector_candidates(
        self, user_id: str, vector: bytes, q: RelationshipQuery, *, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` relationships ``q`` admits whose observations are nearest ``vector``, best first."""
        import numpy as np

        with self.sql.reading() as s:
            held = self.vectors.of(s, user_id)
            if held is None or held.matrix.shape[1] * 4 != len(vector):
                return []
            scores = held.matrix @ np.frombuffer(vector, dtype=np.float32)
            allowed = held.present.copy()
            if _narrowing(q):
                params: list[Any] = []
                clause = where(s, user_id, q, params, visible=False)
                rows = s.all(f"SELECT r.id FROM relationships r WHERE {clause} LIMIT ?", [*params, SCANNED + 1])
                if len(rows) <= SCANNED:
                    mask = np.zeros(len(held.ids), dtype=bool)
                    mask[[held.position[r[0]] for r in rows if r[0] in held.position]] = True
                    allowed &= mask
            rows_allowed = np.flatnonzero(allowed)
            allowed_scores = scores[rows_allowed]

            def ranked(start: int, size: int) -> list[tuple[str, float]]:
                end = min(len(rows_allowed), start + size)
                if start >= end:
                    return []
                part = np.argpartition(-allowed_scores, end - 1)[:end]
                part = part[np.argsort(-allowed_scores[part], kind="stable")][start:end]
                return [(held.ids[rows_allowed[n]], float(allowed_scores[n])) for n in part]

            return _admitted(s, user_id, q, ranked, limit)


def _weights(s: Session, user_id: str, terms: Sequence[str]) -> list[tuple[str, float]]:
    """Each known term's idf among the user's relationships, under the speed guard of memory search:
    a term in more than MAX_DF_SHARE of many relationships is dropped, then the rarest are kept while
    their rows fit POSTINGS_BUDGET (the rarest always)."""
    total = int(s.value("SELECT count(*) FROM relationships WHERE user_id = ?", (user_id,)) or 0)
    params: list[Any] = [user_id]
    inner = s.any_of("term", terms, params)
    rows = s.all(f"SELECT term, count(*) FROM relationship_terms WHERE user_id = ? AND {inner} GROUP BY term", params)
    counts = sorted((int(n), str(t)) for t, n in rows if n)
    kept: list[tuple[int, str]] = []
    for n, term in counts:
        common = n > MAX_DF_SHARE * total and n > GUARD_FLOOR
        if kept and (common or sum(k for k, _ in kept) + n > POSTINGS_BUDGET):
            break
        kept.append((n, term))
    return [(t, math.log(1 + (total - n + 0.5) / (n + 0.5))) for n, t in kept]


def _admitted(
    s: Session, user_id: str, q: RelationshipQuery, ranked: Callable[[int, int], list[tuple[str, float]]], limit: int
) -> list[tuple[str, float]]:
    """The first ``limit`` candidates that ``q`` admits (visibility and filters). ``ranked(start, size)``
    gives the candidates best first; they are read and checked a chunk at a time, at most SCANNED."""
    out: list[tuple[str, float]] = []
    size = max(CHECK, 4 * limit)
    for start in range(0, SCANNED, size):
        chunk = ranked(start, size)
        if not chunk:
            break
        admitted = _passing(s, user_id, q, [i for i, _ in chunk])
        out += [(i, score) for i, score in chunk if i in admitted]
        if len(out) >= limit or len(chunk) < size:
            break
    return out[:limit]


def _passing(s: Session, user_id: str, q: RelationshipQuery, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that ``q`` admits. The visibility rule is checked over these ids' members only
    (as one correlated condition over every row, PostgreSQL would plan it as an anti-join of all)."""
    params: list[Any] = [user_id, q.trust]
    inner = s.any_of("x.relationship_id", ids, params)
    hidden = {
        r[0]
        for r in s.all(
            "SELECT x.relationship_id FROM relationship_members x JOIN memories xm ON xm.user_id = x.user_id "
            f"AND xm.id = x.memory_id WHERE x.user_id = ? AND (xm.deleted_at IS NOT NULL OR xm.trust > ?) AND {inner}",
            params,
        )
    }
    shown = [i for i in ids if i not in hidden]
    if not shown:
        return set()
    params = []
    clause = where(s, user_id, q, params, visible=False)
    inner = s.any_of("r.id", shown, params)
    return {r[0] for r in s.all(f"SELECT r.id FROM relationships r WHERE {clause} AND {inner}", params)}


def _narrowing(q: RelationshipQuery) -> bool:
    return bool(
        q.types or q.memory_id or q.tags or q.min_strength > 0 or q.min_confidence > 0 or q.created_after
        or q.created_before
    )  # fmt: skip
