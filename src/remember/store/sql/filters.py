"""The parts of a filter both backends render alike: conditions on tags (``memory_tags``) and on
how many relationships a memory belongs to (``relationship_members``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from remember.filters import Condition
from remember.models import normalize_tag

TAGS_OF_M = "SELECT 1 FROM memory_tags t WHERE t.user_id = m.user_id AND t.memory_id = m.id"


def tags_condition(
    c: Condition, params: list[Any], mark: str, storable: Callable[[str], bool], user_id: str | None = None
) -> str:
    """SQL for a ``tags`` condition of the memory ``m``; ``mark`` is the backend's placeholder.

    With ``user_id`` the tagged memories are one uncorrelated set read from the tag index, best
    when the query is driven by the matches (a rare tag among a million memories: a few ms instead
    of a probe per memory); without it, a lookup per memory examined, best when few are. Both mean
    the same. A tag the backend could never store (``storable`` false) is on no memory.
    """
    given = () if c.op == "exists" else c.value if isinstance(c.value, tuple) else (c.value,)
    values = [normalize_tag(v) for v in given if storable(v)]
    if c.op == "all" and len(values) < len(given):
        return "(1 = 0)"
    if c.op != "exists" and not values:
        return "(1 = 1)" if c.op == "none" else "(1 = 0)"
    negate = "NOT " if c.op == "none" or (c.op == "exists" and not c.value) else ""
    if user_id is not None:
        return f"({negate}m.id IN ({_tagged(c.op, values, params, mark, user_id)}))"
    params.extend(values)
    marks = ", ".join(mark for _ in values)
    if c.op == "exists":
        return f"({negate}EXISTS ({TAGS_OF_M}))"
    if c.op == "all":
        params.append(len(set(values)))
        return (
            "((SELECT count(DISTINCT t.tag) FROM memory_tags t "
            f"WHERE t.user_id = m.user_id AND t.memory_id = m.id AND t.tag IN ({marks})) = {mark})"
        )
    return f"({negate}EXISTS ({TAGS_OF_M} AND t.tag IN ({marks})))"


def _tagged(op: str, values: list[str], params: list[Any], mark: str, user_id: str) -> str:
    """The ids of the user's memories with any (``all``: every one) of ``values`` (``exists``: any tag)."""
    params.append(user_id)
    sql = f"SELECT t.memory_id FROM memory_tags t WHERE t.user_id = {mark}"
    if op == "exists":
        return sql
    params.extend(values)
    sql += f" AND t.tag IN ({', '.join(mark for _ in values)})"
    if op == "all":
        params.append(len(set(values)))
        sql += f" GROUP BY t.memory_id HAVING count(DISTINCT t.tag) = {mark}"
    return sql


_COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
LINKS_OF_M = "(SELECT count(*) FROM relationship_members x WHERE x.user_id = m.user_id AND x.memory_id = m.id)"


# A relationship of ``x`` no caller of the bound trust level sees: a member above it or in the trash.
HIDDEN_LINK = (
    "EXISTS (SELECT 1 FROM relationship_members h JOIN memories hm ON hm.user_id = h.user_id "
    "AND hm.id = h.memory_id WHERE h.user_id = x.user_id AND h.relationship_id = x.relationship_id "
    "AND (hm.deleted_at IS NOT NULL OR hm.trust > {mark}))"
)


def links_condition(c: Condition, params: list[Any], mark: str) -> str:
    """SQL for a ``relationship_count`` condition of the memory ``m``; with ``c.within``, only the relationships
    visible at that trust level are counted (a caller learns nothing of a neighbour it cannot read)."""
    count = LINKS_OF_M
    if c.within is not None:
        count = f"{LINKS_OF_M[:-1]} AND NOT {HIDDEN_LINK.format(mark=mark)})"
        params.append(c.within)
    if c.op in ("in", "nin"):
        params.extend(c.value)
        negate = "NOT " if c.op == "nin" else ""
        return f"({count} {negate}IN ({', '.join(mark for _ in c.value)}))"
    params.append(c.value)
    return f"({count} {_COMPARE[c.op]} {mark})"
