"""Render a filter tree (``remember.filters``) into an SQLite WHERE clause.

The memory table is aliased ``m``. Case is folded with ``fold`` (Python's
``str.lower``, registered on the connection): SQLite's own ``lower`` knows only
ASCII, and "Émile" must match "émile" as it does on PostgreSQL. Values are always bound parameters; a
``structured_content`` path is bound too (as a JSON path built from checked
segments). Every rendered condition is 0 or 1, never NULL, where it can be
negated, so ``not`` means exactly "the opposite".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from remember.clock import to_text
from remember.filters import AllOf, AnyOf, Condition, Filter, Not
from remember.store.sql.filters import links_condition, tags_condition

_COMPARE = {"eq": "=", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def render(tree: Filter, params: list[Any], user_id: str, *, indexed: bool = True) -> str:
    """SQL for ``tree`` over ``user_id``'s memories; appends its parameters to ``params`` in order.

    ``indexed`` answers structured-content conditions from the value index (best when
    the query is driven by the matching rows: counts, selective filters); without it
    they read each memory's JSON (best when few memories are examined: an early-stopping
    ordered page, full-text candidates); tag conditions likewise read the tag index
    once or look each memory's tags up. Both mean exactly the same.
    """
    if isinstance(tree, AllOf):
        return _join(tree.parts, " AND ", "1", params, user_id, indexed)
    if isinstance(tree, AnyOf):
        return _join(tree.parts, " OR ", "0", params, user_id, indexed)
    if isinstance(tree, Not):
        return f"NOT coalesce(({render(tree.part, params, user_id, indexed=indexed)}), 0)"
    return _condition(tree, params, user_id, indexed)


def _join(parts: tuple[Filter, ...], glue: str, empty: str, params: list[Any], user_id: str, indexed: bool) -> str:
    if not parts:
        return empty
    return "(" + glue.join(render(p, params, user_id, indexed=indexed) for p in parts) + ")"


def _condition(c: Condition, params: list[Any], user_id: str, indexed: bool) -> str:
    if c.kind == "tags":
        return tags_condition(c, params, "?", lambda _: True, user_id if indexed else None)
    if c.kind == "links":
        return links_condition(c, params, "?")
    if c.kind == "json":
        if indexed and all(isinstance(segment, str) for segment in c.path):
            return _indexed(c, params, user_id)
        return _json(c, params)
    return _column(c, params)


def _bind(value: Any) -> Any:
    if isinstance(value, datetime):
        return to_text(value)
    if isinstance(value, bool):
        return int(value)
    return value


def _column(c: Condition, params: list[Any]) -> str:
    col = f"m.{c.field}"
    if c.op == "exists":
        return f"({col} IS {'NOT ' if c.value else ''}NULL)"
    if c.op == "contains":
        params.append(c.value)
        return f"(coalesce(instr(fold({col}), fold(?)), 0) > 0)"
    if c.op in ("in", "nin"):
        params.extend(_bind(v) for v in c.value)
        marks = ", ".join("?" for _ in c.value)
        if c.op == "in":
            return f"(coalesce({col} IN ({marks}), 0))"
        return f"({col} IS NULL OR {col} NOT IN ({marks}))"
    params.append(_bind(c.value))
    if c.op == "ne":
        return f"({col} IS NULL OR {col} != ?)"
    return f"(coalesce({col} {_COMPARE[c.op]} ?, 0))" if c.field in _NULLABLE else f"({col} {_COMPARE[c.op]} ?)"


_NULLABLE = frozenset(
    {"title", "template_id", "template_version", "template_compliance", "valid_from", "valid_until", "superseded_by"}
)


def json_path(path: tuple[str | int, ...]) -> str:
    out = "$"
    for segment in path:
        out += f"[{segment}]" if isinstance(segment, int) else f'."{segment}"'
    return out


def _json(c: Condition, params: list[Any]) -> str:
    path = json_path(c.path)
    if c.op == "exists":
        params.append(path)
        test = "coalesce(json_type(m.structured_content, ?), 'null') != 'null'"
        return f"({test})" if c.value else f"(NOT {test})"
    if c.op == "contains":
        return _json_contains(path, c.value, params)
    if c.op in ("in", "nin"):
        parts = [_json_compare(path, "eq", v, params) for v in c.value]
        either = "(" + " OR ".join(parts) + ")"
        return either if c.op == "in" else f"(NOT {either})"
    if c.op == "ne":
        return f"(NOT {_json_compare(path, 'eq', c.value, params)})"
    return _json_compare(path, c.op, c.value, params)


def _json_compare(path: str, op: str, value: Any, params: list[Any]) -> str:
    """A comparison that only holds between values of the same JSON kind."""
    if value is None:
        params.append(path)
        return "(coalesce(json_type(m.structured_content, ?), '') = 'null')" if op == "eq" else "0"
    if isinstance(value, bool):
        params.append(path)
        kind = "'true'" if value else "'false'"
        return f"(coalesce(json_type(m.structured_content, ?), '') = {kind})" if op == "eq" else "0"
    kinds = "('integer', 'real')" if isinstance(value, int | float) else "('text')"
    params.extend([path, path, value])
    return (
        f"(coalesce(json_type(m.structured_content, ?) IN {kinds} "
        f"AND json_extract(m.structured_content, ?) {_COMPARE[op]} ?, 0))"
    )


def _json_contains(path: str, value: Any, params: list[Any]) -> str:
    """Substring of a text (any case), or an element of an array of the same kind."""
    params.extend([path, path, _bind(value), path])
    element = _element(value, params)
    return (
        "(coalesce(CASE json_type(m.structured_content, ?) "
        "WHEN 'text' THEN instr(fold(json_extract(m.structured_content, ?)), fold(?)) > 0 "
        f"WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(m.structured_content, ?) e WHERE {element}) "
        "ELSE 0 END, 0))"
    )


def _element(value: Any, params: list[Any]) -> str:
    """An array element (``e`` of json_each) equal to ``value``, compared within its JSON kind."""
    if value is None:
        return "e.type = 'null'"
    if isinstance(value, bool):
        return "e.type = 'true'" if value else "e.type = 'false'"
    params.append(value)
    if isinstance(value, int | float):
        return "(e.type IN ('integer', 'real') AND e.value = ?)"
    return "(e.type = 'text' AND fold(e.value) = fold(?))"


# Conditions on structured_content paths made of field names only use the value
# index (field_values.py): "m.id IN (rows of this user and path that hold)". Each row
# set is an uncorrelated subquery, computed once with the index, not per memory.


def _indexed(c: Condition, params: list[Any], user_id: str) -> str:
    path = ".".join(str(s) for s in c.path)
    if c.op == "exists":
        test = _rows(path, "kind != 'null'", [], params, user_id)
        return test if c.value else f"(NOT {test})"
    if c.op == "contains":
        text = _rows(path, "kind = 'text' AND instr(fold(txt), fold(?)) > 0", [_bind(c.value)], params, user_id)
        where, values = _same_value(c.value, fold_case=True)
        element = _rows(path + "[]", where, values, params, user_id)
        return f"({text} OR {element})"
    if c.op in ("in", "nin"):
        either = "(" + " OR ".join(_indexed_compare(path, "eq", v, params, user_id) for v in c.value) + ")"
        return either if c.op == "in" else f"(NOT {either})"
    if c.op == "ne":
        return f"(NOT {_indexed_compare(path, 'eq', c.value, params, user_id)})"
    return _indexed_compare(path, c.op, c.value, params, user_id)


def _indexed_compare(path: str, op: str, value: Any, params: list[Any], user_id: str) -> str:
    if op == "eq":
        where, values = _same_value(value)
        return _rows(path, where, values, params, user_id)
    column = "num" if isinstance(value, int | float) else "txt"
    kind = "number" if column == "num" else "text"
    return _rows(path, f"kind = '{kind}' AND {column} {_COMPARE[op]} ?", [value], params, user_id)


def _same_value(value: Any, *, fold_case: bool = False) -> tuple[str, list[Any]]:
    """The row condition for a value equal to ``value`` within its JSON kind (texts in any case if asked)."""
    if value is None:
        return "kind = 'null'", []
    if isinstance(value, bool):
        return ("kind = 'true'" if value else "kind = 'false'"), []
    if isinstance(value, int | float):
        return "kind = 'number' AND num = ?", [value]
    return ("kind = 'text' AND fold(txt) = fold(?)" if fold_case else "kind = 'text' AND txt = ?"), [value]


def _rows(path: str, where: str, values: list[Any], params: list[Any], user_id: str) -> str:
    params.extend([user_id, path, *values])
    return f"(m.id IN (SELECT memory_id FROM memory_fields WHERE user_id = ? AND path = ? AND {where}))"
