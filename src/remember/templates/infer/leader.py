"""Leader clustering of notes by meaning and by the fields they state.

A note's similarity to a group is the cosine between its unit vector and the
group's centroid plus ``FIELD_BONUS`` times the fields they share (the Jaccard
index of the names the note states and the names at least half the group's
notes state). Each note, in order, joins the group it is most similar to when
that similarity reaches the threshold, else it starts a group. Groups of
several notes whose centroids come within ``MERGE`` are made one (leader
clustering splits by arrival order), and a second pass against the settled
centroids puts every note in its best group, or alone. A group is the list of
its notes' positions. The vectors are one numpy matrix, so that a note is
compared with every group in one product (numpy is imported on the first call).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

FIELD_BONUS = 0.15
MERGE = 0.6


def cluster(vectors: Any, stated: Sequence[Collection[str]], threshold: float) -> list[list[int]]:
    """The groups of the notes (their positions): the second pass's groups of several first, then the notes alone.

    ``vectors``: one unit row per note (a matrix or a sequence of sequences); ``stated``: each note's field names.
    """
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float64).reshape(len(stated), -1)
    names = _names(stated)
    several = _merged(rows, [group for group in _first_pass(rows, names, threshold) if len(group) > 1])
    return _second_pass(rows, names, several, threshold)


def centroid(rows: Any) -> Any:
    """The unit mean direction of ``rows`` (a zero sum stays zero)."""
    import numpy as np

    total = rows.sum(axis=0)
    return total / (float(np.linalg.norm(total)) or 1.0)


def _names(stated: Sequence[Collection[str]]) -> Any:
    """Which field names each note states: a 0/1 matrix, a column per name any note states."""
    import numpy as np

    columns = {name: column for column, name in enumerate(sorted({name for names in stated for name in names}))}
    matrix = np.zeros((len(stated), len(columns)))
    for row, names in enumerate(stated):
        matrix[row, [columns[name] for name in names]] = 1.0
    return matrix


def _similarities(rows: Any, names: Any, centroids: Any, common: Any) -> Any:
    """Notes (rows) by groups (columns): the cosine to the centroid plus the bonus for the fields shared."""
    import numpy as np

    inter = names @ common.T
    union = names.sum(axis=1)[:, None] + common.sum(axis=1)[None, :] - inter
    shared = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return rows @ centroids.T + FIELD_BONUS * shared


def _common(counts: Any, sizes: Any) -> Any:
    """The names at least half of each group's notes state (0/1 by group and name)."""
    return (counts * 2 >= sizes[:, None]).astype(counts.dtype)


def _first_pass(rows: Any, names: Any, threshold: float) -> list[list[int]]:
    """Each note joins its most similar group when that reaches ``threshold``, else starts one."""
    import numpy as np

    n, dimension = rows.shape
    totals, centroids = np.zeros((n, dimension)), np.zeros((n, dimension))
    counts, sizes = np.zeros((n, names.shape[1])), np.zeros(n)
    groups: list[list[int]] = []
    for note in range(n):
        chosen = len(groups)
        if groups:
            found = len(groups)
            scores = _similarities(rows[note : note + 1], names[note : note + 1], centroids[:found],
                                   _common(counts[:found], sizes[:found]))[0]  # fmt: skip
            best = int(np.argmax(scores))
            chosen = best if scores[best] >= threshold else chosen
        if chosen == len(groups):
            groups.append([])
        groups[chosen].append(note)
        totals[chosen] += rows[note]
        counts[chosen] += names[note]
        sizes[chosen] += 1
        centroids[chosen] = totals[chosen] / (float(np.linalg.norm(totals[chosen])) or 1.0)
    return groups


def _merged(rows: Any, groups: list[list[int]]) -> list[list[int]]:
    """The first pair of groups (in order) whose centroids are within ``MERGE`` made one, until none is."""
    import numpy as np

    while len(groups) > 1:
        centroids = np.stack([centroid(rows[group]) for group in groups])
        close = np.argwhere(np.triu(centroids @ centroids.T >= MERGE, k=1))
        if not len(close):
            break
        first, second = (int(index) for index in close[0])
        groups[first] = groups[first] + groups.pop(second)
    return groups


def _second_pass(rows: Any, names: Any, groups: list[list[int]], threshold: float) -> list[list[int]]:
    """Every note in the settled group it is most similar to, when that reaches ``threshold``; else alone."""
    import numpy as np

    if not groups:
        return [[note] for note in range(len(rows))]
    centroids = np.stack([centroid(rows[group]) for group in groups])
    counts = np.stack([names[group].sum(axis=0) for group in groups])
    scores = _similarities(rows, names, centroids, _common(counts, np.asarray([len(g) for g in groups], float)))
    best = scores.argmax(axis=1)
    final: list[list[int]] = [[] for _ in groups]
    alone: list[list[int]] = []
    for note, group in enumerate(best):
        if scores[note, group] >= threshold:
            final[group].append(note)
        else:
            alone.append([note])
    return [group for group in final if group] + alone
