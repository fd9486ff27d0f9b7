"""The parts of a filter both backends render alike: conditions on tags (``memory_tags``) and on
how many relationships a memory belongs to (``relationship_members``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from remember.filters import Condition
from remember.models import normalize_tag

TAGS_OF_M = "SELECT 1 FROM memory_tags t WHERE t.user_id = m.user_id AND t.memory_id = m.id"


def tags_condition(c: Condition, params: list[Any], mark: str, storable: Callable[[str], bool]) -> str:
    """SQL for a ``tags`` condition of the memory ``m``; ``mark`` is the backend's placeholder.

    A tag the backend could never store (``storable`` false) is on no memory.
    """
    if c.op == "exists":
        return f"({'' if c.value else 'NOT '}EXISTS ({TAGS_OF_M}))"
    given = c.value if isinstance(c.value, tuple) else (c.value,)
    values = [normalize_tag(v) for v in given if storable(v)]
    if len(values) < len(given) and c.op == "all":
        return "(1 = 0)"
    if not values:
        return "(1 = 1)" if c.op == "none" else "(1 = 0)"
    params.extend(values)
    marks = ", ".join(mark for _ in values)
    if c.op == "all":
        params.append(len(set(values)))
        return (
            "((SELECT count(DISTINCT t.tag) FROM memory_tags t "
            f"WHERE t.user_id = m.user_id AND t.memory_id = m.id AND t.tag IN ({marks})) = {mark})"
        )
    negate = "NOT " if c.op == "none" else ""
    return f"({negate}EXISTS ({TAGS_OF_M} AND t.tag IN ({marks})))"


_COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
LINKS_OF_M = "(SELECT count(*) FROM relationship_members x WHERE x.user_id = m.user_id AND x.memory_id = m.id)"


def links_condition(c: Condition, params: list[Any], mark: str) -> str:
    """SQL for a ``relationship_count`` condition of the memory ``m``."""
    if c.op in ("in", "nin"):
        params.extend(c.value)
        negate = "NOT " if c.op == "nin" else ""
        return f"({LINKS_OF_M} {negate}IN ({', '.join(mark for _ in c.value)}))"
    params.append(c.value)
    return f"({LINKS_OF_M} {_COMPARE[c.op]} {mark})"
