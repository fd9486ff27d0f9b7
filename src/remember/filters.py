"""The filter language of listing and search, parsed into a small typed tree.

A filter is a JSON object. Its keys are ANDed; each key is a field and its value
either a plain value (equality) or an object of operators::

    {"type": "book",
     "tags": {"any": ["fiction", "scifi"]},
     "created_at": {"gte": "2026-01-01"},
     "structured_content.rating": {"gte": 4},
     "or": [{"weight": {"gte": 0.8}}, {"not": {"template_id": {"exists": true}}}]}

Fields: ``id type title content weight trust created_at updated_at occurred_at``
(alias ``context.timestamp``) ``template_id template_version template_compliance
access_count valid_from valid_until superseded_by``, ``relationship_count``, ``tags``, and
``structured_content.<path>`` (dots for nested objects, numbers for array positions).
Operators: ``eq ne gt gte lt lte in nin contains exists``; ``tags`` takes ``any all none`` (a plain string means
"has this tag", a plain list means ``any``). ``and``/``or`` take lists,
``not`` takes one filter.

This module only parses and checks; each store renders the tree into its own
SQL (``remember.store``), so filters always run inside the database.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from remember.clock import parse_moment
from remember.errors import FieldError, ValidationFailed, excerpt
from remember.memory_fields import FILTERABLE

Kind = Literal["text", "number", "moment", "bool", "tags", "json", "links"]
Op = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "exists", "any", "all", "none"]

# relationship_count: how many of the user's relationships a memory belongs to (docs/relationships.md).
COLUMNS: dict[str, Kind] = {**FILTERABLE, "relationship_count": "links"}
ALIASES = {"context.timestamp": "occurred_at", "created": "created_at", "updated": "updated_at"}
STRUCTURED_PREFIX = "structured_content."

_ORDERING: frozenset[str] = frozenset({"gt", "gte", "lt", "lte"})
_OPS: dict[Kind, frozenset[str]] = {
    "text": frozenset({"eq", "ne", "in", "nin", "contains", "exists"}),
    "number": frozenset({"eq", "ne", "in", "nin", "exists"}) | _ORDERING,
    "moment": frozenset({"eq", "ne", "exists"}) | _ORDERING,
    "bool": frozenset({"eq", "ne", "exists"}),
    "tags": frozenset({"any", "all", "none", "contains", "exists"}),
    "json": frozenset({"eq", "ne", "in", "nin", "contains", "exists"}) | _ORDERING,
    "links": frozenset({"eq", "ne", "in", "nin"}) | _ORDERING,
}
_LOGICAL = frozenset({"and", "or", "not"})
_SEGMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]{0,63}|\d{1,6})$")

MAX_DEPTH = 8
MAX_CONDITIONS = 64
MAX_LIST = 100
MAX_TEXT = 1_000
MAX_PATH_SEGMENTS = 8


@dataclass(frozen=True)
class Condition:
    """``field op value``; ``path`` is set for ``structured_content`` fields."""

    field: str
    kind: Kind
    op: Op
    value: Any
    path: tuple[str | int, ...] = ()
    within: float | None = None  # relationship_count: count only the relationships visible at this trust level


@dataclass(frozen=True)
class AllOf:
    parts: tuple[Filter, ...]


@dataclass(frozen=True)
class AnyOf:
    parts: tuple[Filter, ...]


@dataclass(frozen=True)
class Not:
    part: Filter


Filter = Condition | AllOf | AnyOf | Not


def parse_filter(raw: Any, *, where: str = "filters") -> Filter | None:
    """Parse a filter object; ``None`` or ``{}`` mean "no filter".

    Every problem is collected and raised at once as ValidationFailed.
    """
    if raw is None or raw == {}:
        return None
    parser = _Parser()
    tree = parser.object(raw, where, depth=0)
    if parser.errors:
        raise ValidationFailed("The filter cannot be used.", parser.errors)
    return tree


def links_within(tree: Filter | None, trust: float) -> Filter | None:
    """``tree`` with each ``relationship_count`` counting only the relationships a caller of ``trust`` sees."""
    if tree is None:
        return None
    if isinstance(tree, Condition):
        return replace(tree, within=trust) if tree.kind == "links" else tree
    if isinstance(tree, Not):
        return Not(links_within(tree.part, trust) or tree.part)
    parts = tuple(links_within(p, trust) or p for p in tree.parts)
    return AllOf(parts) if isinstance(tree, AllOf) else AnyOf(parts)


def conjoin(*parts: Filter | None) -> Filter | None:
    """AND together the given filters, skipping ``None``."""
    present = tuple(p for p in parts if p is not None)
    if not present:
        return None
    return present[0] if len(present) == 1 else AllOf(present)


class _Parser:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.conditions = 0

    def fail(self, where: str, code: str, message: str, value: Any = None) -> None:
        self.errors.append(FieldError(where, code, message, value))

    def object(self, raw: Any, where: str, depth: int) -> Filter:
        if depth > MAX_DEPTH:
            self.fail(where, "filter_too_complex", f"Filters nest at most {MAX_DEPTH} levels deep.")
            return AllOf(())
        if not isinstance(raw, Mapping):
            self.fail(where, "bad_filter", 'A filter must be an object such as {"type": "book"}.', raw)
            return AllOf(())
        if not raw:
            self.fail(where, "bad_filter", "An empty filter {} inside and/or/not says nothing; remove it.", raw)
            return AllOf(())
        parts = [self.entry(str(key), value, f"{where}.{key}", depth) for key, value in raw.items()]
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def entry(self, key: str, value: Any, where: str, depth: int) -> Filter:
        if key in _LOGICAL:
            return self.logical(key, value, where, depth)
        return self.field(key, value, where)

    def logical(self, key: str, value: Any, where: str, depth: int) -> Filter:
        if key == "not":
            return Not(self.object(value, where, depth + 1))
        if not isinstance(value, list) or not value:
            self.fail(where, "bad_filter", f"'{key}' takes a non-empty list of filters.", value)
            return AllOf(())
        if len(value) > MAX_CONDITIONS:
            self.fail(where, "filter_too_complex", f"'{key}' takes at most {MAX_CONDITIONS} filters.")
            return AllOf(())
        parts = tuple(self.object(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
        return AllOf(parts) if key == "and" else AnyOf(parts)

    def field(self, key: str, value: Any, where: str) -> Filter:
        target = self.target(key, where)
        if target is None:
            return AllOf(())
        name, kind, path = target
        ops = _operators(kind, value)
        if not ops:
            self.fail(where, "bad_filter", f"Give {key} a value or an object of operators.", value)
            return AllOf(())
        conditions = [self.condition(name, kind, path, op, v, f"{where}.{op}") for op, v in ops.items()]
        return conditions[0] if len(conditions) == 1 else AllOf(tuple(conditions))

    def target(self, key: str, where: str) -> tuple[str, Kind, tuple[str | int, ...]] | None:
        key = ALIASES.get(key, key)
        if key in COLUMNS:
            return key, COLUMNS[key], ()
        if key.startswith(STRUCTURED_PREFIX):
            path = self.path(key[len(STRUCTURED_PREFIX) :], where)
            return ("structured_content", "json", path) if path else None
        known = ", ".join([*COLUMNS, "structured_content.<field>", "and", "or", "not"])
        self.fail(where, "unknown_filter_field", f"Unknown filter field {excerpt(key)}. Known: {known}.", key)
        return None

    def path(self, text: str, where: str) -> tuple[str | int, ...]:
        segments = text.split(".")
        if len(segments) > MAX_PATH_SEGMENTS or not all(_SEGMENT.match(s) for s in segments):
            self.fail(
                where,
                "bad_filter_path",
                "A structured_content path is field names (letters, digits, _) and array positions "
                f"joined by dots, at most {MAX_PATH_SEGMENTS} deep, e.g. structured_content.author.name.",
                text,
            )
            return ()
        return tuple(int(s) if s.isdigit() else s for s in segments)

    def condition(self, name: str, kind: Kind, path: tuple[str | int, ...], op: str, value: Any, where: str) -> Filter:
        self.conditions += 1
        if self.conditions == MAX_CONDITIONS + 1:
            self.fail(where, "filter_too_complex", f"A filter holds at most {MAX_CONDITIONS} conditions.")
        if op not in _OPS[kind]:
            allowed = ", ".join(sorted(_OPS[kind]))
            self.fail(
                where, "unknown_operator", f"Operator {excerpt(op)} does not apply here; use one of {allowed}.", op
            )
            return AllOf(())
        checked = self.value(kind, op, value, where)
        return Condition(name, kind, op, checked, path)  # type: ignore[arg-type]

    def value(self, kind: Kind, op: str, value: Any, where: str) -> Any:
        if op == "exists":
            return self.expect(isinstance(value, bool), value, where, "true or false")
        if op in ("in", "nin", "any", "all", "none"):
            return self.listed(kind, value, where)
        if op in _ORDERING and (value is None or isinstance(value, bool)):
            return self.expect(False, value, where, f"a number, a text or a date to compare with {op}")
        return self.scalar(kind, value, where)

    def listed(self, kind: Kind, value: Any, where: str) -> Any:
        if not isinstance(value, list) or not value or len(value) > MAX_LIST:
            return self.expect(False, value, where, f"a list of 1 to {MAX_LIST} values")
        return tuple(self.scalar(kind, v, f"{where}[{i}]") for i, v in enumerate(value))

    def scalar(self, kind: Kind, value: Any, where: str) -> Any:
        if kind in ("text", "tags"):
            return self.expect(_is_text(value), value, where, f"a text of at most {MAX_TEXT} characters")
        if kind == "number":
            return self.expect(_is_number(value), value, where, "a finite number")
        if kind == "links":
            whole = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1_000_000
            return self.expect(whole, value, where, "a whole number of relationships, 0 or more")
        if kind == "bool":
            return self.expect(isinstance(value, bool), value, where, "true or false")
        if kind == "moment":
            return self.moment(value, where)
        ok = value is None or isinstance(value, bool) or _is_number(value) or _is_text(value)
        return self.expect(ok, value, where, "a text, a number, true, false or null")

    def moment(self, value: Any, where: str) -> datetime | None:
        if not isinstance(value, str) or len(value) > 64:
            self.expect(False, value, where, "an ISO 8601 date or datetime such as '2026-02-10'")
            return None
        try:
            return parse_moment(value)
        except ValueError as exc:
            self.fail(where, "bad_filter_value", str(exc), value)
            return None

    def expect(self, ok: bool, value: Any, where: str, wanted: str) -> Any:
        if not ok:
            self.fail(where, "bad_filter_value", f"Expected {wanted}; got {excerpt(value)}.", value)
        return value


def best_passing(
    best: Iterable[tuple[str, float]], passing: Container[str], limit: int, complete: bool
) -> list[tuple[str, float]] | None:
    """The first ``limit`` of a search's ``best`` (memory id and score, best first) whose memories are
    ``passing`` a filter, when that many are, or when ``best`` held every candidate there is
    (``complete``): no memory outside ``best`` can then rank among them. None: search with the filter."""
    kept = [(memory_id, score) for memory_id, score in best if memory_id in passing]
    return kept[:limit] if len(kept) >= limit or complete else None


def _operators(kind: Kind, value: Any) -> dict[str, Any]:
    """The operator map of a field's value: plain values mean equality."""
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    if kind == "tags":
        return {"any": value} if isinstance(value, list) else {"contains": value}
    return {"in": value} if isinstance(value, list) else {"eq": value}


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
