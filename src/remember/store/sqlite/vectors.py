"""Exact vector search over in-memory matrices, one per user, kept in step with the database.

A user's matrix is loaded on their first semantic search and then caught up by
reading only the index rows whose sequence number moved (new, changed, deleted
or restored memories), so writes by other processes are seen too. Matrices of
users not searched lately are dropped when the total would pass a budget, so
the process never needs every user's vectors at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from remember.models import VectorRow

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DEFAULT_BUDGET = 250_000  # vectors kept in memory across users (~370 MB at 384 dimensions)


@dataclass(frozen=True)
class Snapshot:
    """A consistent view of one user's vectors: row ``i`` is memory ``ids[i]``."""

    ids: list[str]
    position: dict[str, int]  # may hold later rows too: check against len()
    matrix: NDArray[np.float32]
    deleted: NDArray[np.bool_]

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def scores(self, vector: bytes) -> Any:
        import numpy as np

        return self.matrix @ np.frombuffer(vector, dtype=np.float32)

    def live(self, deleted: str) -> Any:
        """A mask of the rows a search may return, by deletion state."""
        import numpy as np

        if deleted == "exclude":
            return ~self.deleted
        return self.deleted.copy() if deleted == "only" else np.ones(len(self), dtype=bool)

    def rows_of(self, memory_ids: Iterable[str]) -> Any:
        """A mask of the rows of these memories."""
        import numpy as np

        mask = np.zeros(len(self), dtype=bool)
        rows = [r for r in (self.position.get(i) for i in memory_ids) if r is not None and r < len(self)]
        mask[rows] = True
        return mask

    def top(self, scores: Any, allowed: Any, k: int) -> list[tuple[str, float]]:
        """The ``k`` best allowed rows as (memory id, cosine), best first."""
        import numpy as np

        rows = np.flatnonzero(allowed)
        if len(rows) > k:
            rows = rows[np.argpartition(-scores[rows], k - 1)[:k]]
        ranked = sorted(((float(scores[i]), self.ids[i]) for i in rows), key=lambda p: (-p[0], p[1]))
        return [(memory_id, score) for score, memory_id in ranked]

    def pick(self, vector: bytes, memory_ids: Iterable[str]) -> dict[str, float]:
        """The cosine of these memories only (rows looked up, not the whole matrix)."""
        import numpy as np

        found = [(i, r) for i, r in ((i, self.position.get(i)) for i in memory_ids) if r is not None and r < len(self)]
        if not found:
            return {}
        scores = self.matrix[[r for _, r in found]] @ np.frombuffer(vector, dtype=np.float32)
        return {i: float(score) for (i, _), score in zip(found, scores, strict=True)}


class UserVectors:
    """One user's vectors in growable arrays; updates write rows in place, additions append."""

    def __init__(self, dimension: int) -> None:
        import numpy as np

        self.dimension = dimension
        self.ids: list[str] = []
        self.position: dict[str, int] = {}
        self.seq = 0
        self.purges = 0
        self._matrix: Any = np.zeros((0, dimension), dtype=np.float32)
        self._deleted: Any = np.zeros(0, dtype=bool)

    def apply(self, changes: Sequence[VectorRow]) -> None:
        self._grow(len(self.ids) + len(changes))  # at most what is needed: every change may be new
        for row in changes:
            at = self.position.get(row.memory_id)
            if at is None:
                at = len(self.ids)
                self._grow(at + 1)
                self.position[row.memory_id] = at
                self.ids.append(row.memory_id)
            self._matrix[at] = self._vector(row.vector)
            self._deleted[at] = row.deleted
            self.seq = max(self.seq, row.seq)

    def snapshot(self) -> Snapshot:
        n = len(self.ids)
        return Snapshot(self.ids, self.position, self._matrix[:n], self._deleted[:n])

    def _vector(self, data: bytes | None) -> Any:
        import numpy as np

        if data is None or len(data) != 4 * self.dimension:
            return 0.0  # no vector: it scores 0 and is found by keywords
        return np.frombuffer(data, dtype=np.float32)

    def _grow(self, needed: int) -> None:
        import numpy as np

        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        # A quarter more than needed: room for new memories without a copy each time,
        # without doubling a 100k-row matrix for one more row.
        bigger = max(needed + needed // 4, 1024)
        matrix = np.zeros((bigger, self.dimension), dtype=np.float32)
        matrix[:capacity] = self._matrix
        deleted = np.zeros(bigger, dtype=bool)
        deleted[:capacity] = self._deleted
        self._matrix, self._deleted = matrix, deleted  # old snapshots keep the old arrays


class VectorCache:
    """Per-user matrices, refreshed from the store and bounded by a total budget."""

    def __init__(self, dimension: int, budget: int = DEFAULT_BUDGET) -> None:
        self.dimension = dimension
        self.budget = budget
        self._users: OrderedDict[str, UserVectors] = OrderedDict()
        self._lock = threading.Lock()

    def snapshot(
        self, user_id: str, read_changes: Callable[[int], Iterable[Sequence[VectorRow]]], purges: Callable[[], int]
    ) -> Snapshot:
        """The user's vectors, caught up with the database (from scratch after any purge)."""
        with self._lock:
            purged = purges()
            vectors = self._users.pop(user_id, None)
            if vectors is None or vectors.purges != purged:
                vectors = UserVectors(self.dimension)
                vectors.purges = purged
            for chunk in read_changes(vectors.seq):
                vectors.apply(chunk)
            self._users[user_id] = vectors
            self._evict()
            return vectors.snapshot()

    def drop(self, user_id: str) -> None:
        """Forget one user's matrix (it is loaded again if they are searched exactly again)."""
        with self._lock:
            self._users.pop(user_id, None)

    def _evict(self) -> None:
        total = sum(len(v.ids) for v in self._users.values())
        while total > self.budget and len(self._users) > 1:
            _, dropped = self._users.popitem(last=False)
            total -= len(dropped.ids)
