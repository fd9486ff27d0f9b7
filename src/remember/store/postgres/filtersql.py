"""Render a filter tree (``remember.filters``) into a PostgreSQL WHERE clause.

The memory table is aliased ``m``; values are always bound parameters. The
results are the SQLite renderer's (``remember.store.sqlite.filtersql``); the
contract suite runs the same filters on both:

- ``structured_content`` conditions are SQL/JSON paths in strict mode
  (``strict $."rating" ? (@ >= 4)``), bound as ``jsonpath`` and tested with
  ``@?``, which the GIN ``jsonb_path_ops`` index serves. jsonpath compares only
  values of the same JSON kind (a number never equals or orders against a
  text) and texts by code point, as SQLite does; strict mode never looks
  inside an array unless the path names a position.
- Case-insensitive matching (``contains``) lower-cases with a Unicode-aware
  collation (``pg_c_utf8`` on PostgreSQL 17+, else ``C.utf8``; chosen when the
  store opens, see ``choose_fold_collation``), as the SQLite store does with
  Python's ``str.lower``. A server with neither folds ASCII letters only.
- A text holding NUL can never be stored in PostgreSQL, so it matches nothing.

A condition may be NULL where SQL treats NULL like false (inside AND, OR and
WHERE); ``not`` folds its part to true or false first, so it means exactly
"the opposite", while positive conditions stay in a form an index can serve.

``contains`` finds a substring in a text (a number or boolean is looked for as
SQLite renders it: ``6`` is found in ``"Route 66"``, ``true`` as ``"1"``) or an
equal element of the same kind in an array (``null`` finds a null element).
"""

from __future__ import annotations

import json
from typing import Any

from remember.filters import AllOf, AnyOf, Condition, Filter, Not
from remember.store.postgres.dialect import DIALECT
from remember.store.sql.filters import links_condition, tags_condition

_COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_JSONPATH_COMPARE = {"eq": "==", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_CASTS = {"text": "::text", "number": "::float8", "moment": "::timestamptz", "bool": "::boolean"}
_NULLABLE = frozenset(
    {"title", "template_id", "template_version", "template_compliance", "valid_from", "valid_until", "superseded_by"}
)
# The collation whose lower() folds case; set when a store opens (choose_fold_collation).
FOLD_COLLATIONS = ("pg_c_utf8", "C.utf8", "C.UTF-8", "und-x-icu")
_fold = {"collation": "C"}
_TEXT_OF_X = "x.v #>> '{}'"
_TEXT_OF_E = "e.value #>> '{}'"


def render(tree: Filter, params: list[Any]) -> str:
    """SQL for ``tree``; appends its parameters to ``params`` in order."""
    if isinstance(tree, AllOf):
        return _join(tree.parts, " AND ", "TRUE", params)
    if isinstance(tree, AnyOf):
        return _join(tree.parts, " OR ", "FALSE", params)
    if isinstance(tree, Not):
        return f"(NOT coalesce({render(tree.part, params)}, FALSE))"
    return _condition(tree, params)


def _join(parts: tuple[Filter, ...], glue: str, empty: str, params: list[Any]) -> str:
    if not parts:
        return empty
    return "(" + glue.join(render(p, params) for p in parts) + ")"


def _condition(c: Condition, params: list[Any]) -> str:
    if c.kind == "tags":
        return tags_condition(c, params, "%s", _storable)
    if c.kind == "links":
        return links_condition(c, params, "%s")
    if c.kind == "json":
        return _json(c, params)
    return _column(c, params)


def _storable(value: Any) -> bool:
    return not (isinstance(value, str) and "\x00" in value)


def _folded(sql: str) -> str:
    return f'lower(({sql}) COLLATE "{_fold["collation"]}")'


def choose_fold_collation(available: set[str]) -> str:
    """Pick the first Unicode-aware collation the server has (``C``, ASCII only, if none)."""
    # One choice per process: the servers of one deployment agree.
    _fold["collation"] = next((c for c in FOLD_COLLATIONS if c in available), "C")
    return _fold["collation"]


def _column(c: Condition, params: list[Any]) -> str:
    col = f"m.{c.field}"
    cast = _CASTS[c.kind]
    if c.op == "exists":
        return f"({col} IS {'NOT ' if c.value else ''}NULL)"
    if c.op in ("in", "nin"):
        values = [v for v in c.value if _storable(v)]
        if not values:
            return "FALSE" if c.op == "in" else "TRUE"
        params.extend(values)
        marks = ", ".join(f"%s{cast}" for _ in values)
        if c.op == "in":
            return f"coalesce({col} IN ({marks}), FALSE)"
        return f"({col} IS NULL OR {col} NOT IN ({marks}))"
    if not _storable(c.value):
        return "TRUE" if c.op == "ne" else "FALSE"
    params.append(c.value)
    if c.op == "contains":
        return f"(strpos({_folded(col)}, {_folded('%s::text')}) > 0)"
    if c.op == "ne":
        return f"({col} IS NULL OR {col} <> %s{cast})"
    test = f"{col} {_COMPARE[c.op]} %s{cast}"
    return f"coalesce({test}, FALSE)" if c.field in _NULLABLE else f"({test})"


def json_path(path: tuple[str | int, ...]) -> str:
    """A strict SQL/JSON path; the filter parser only lets identifiers and positions through."""
    out = "strict $"
    for segment in path:
        out += f"[{segment}]" if isinstance(segment, int) else f'."{segment}"'
    return out


def _literal(value: Any) -> str:
    """A JSON scalar as a jsonpath literal (same syntax for texts, numbers, true, false, null)."""
    return json.dumps(value, ensure_ascii=False)


def _matches(path: str, predicate: str, params: list[Any]) -> str:
    params.append(f"{path} ? ({predicate})")
    return "(m.structured_content @? %s::jsonpath)"


def _json(c: Condition, params: list[Any]) -> str:
    path = json_path(c.path)
    if c.op == "exists":
        test = _matches(path, "@ != null", params)
        return test if c.value else f"(NOT coalesce({test}, FALSE))"
    if c.op == "contains":
        return _json_contains(path, c.value, params)
    if c.op in ("in", "eq", "nin", "ne"):
        values = [v for v in (c.value if c.op in ("in", "nin") else (c.value,)) if _storable(v)]
        either = _matches(path, " || ".join(f"@ == {_literal(v)}" for v in values), params) if values else "FALSE"
        return either if c.op in ("in", "eq") else f"(NOT coalesce({either}, FALSE))"
    if not _storable(c.value):
        return "FALSE"
    return _matches(path, f"@ {_JSONPATH_COMPARE[c.op]} {_literal(c.value)}", params)


def _json_contains(path: str, value: Any, params: list[Any]) -> str:
    """Substring of a text (ASCII letters in any case), or an element of an array of the same kind."""
    if not _storable(value):
        return "FALSE"
    needle = _as_text(value)
    in_text = "FALSE" if needle is None else f"strpos({_folded(_TEXT_OF_X)}, {_folded('%s::text')}) > 0"
    if needle is not None:
        params.append(needle)
    element = _element(value, params)
    params.append(path)
    return (
        "coalesce((SELECT CASE jsonb_typeof(x.v) "
        f"WHEN 'string' THEN {in_text} "
        f"WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(x.v) e WHERE {element}) "
        "ELSE FALSE END "
        "FROM (SELECT jsonb_path_query_first(m.structured_content, %s::jsonpath, '{}', true) AS v) x), FALSE)"
    )


def _as_text(value: Any) -> str | None:
    """What a text is searched for, as SQLite's instr() sees the bound value (true is 1, null finds nothing)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def _element(value: Any, params: list[Any]) -> str:
    """An array element (``e``) equal to ``value``, compared within its JSON kind."""
    if value is None:
        return "jsonb_typeof(e.value) = 'null'"
    if isinstance(value, str):
        params.append(value)
        return f"jsonb_typeof(e.value) = 'string' AND {_folded(_TEXT_OF_E)} = {_folded('%s::text')}"
    params.append(DIALECT.json(value))
    kind = "boolean" if isinstance(value, bool) else "number"
    return f"jsonb_typeof(e.value) = '{kind}' AND e.value = %s::jsonb"
