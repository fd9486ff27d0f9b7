"""A template's fields compiled for fast, repeated validation.

Built once per resolved template: expressions parsed, patterns compiled, date
bounds parsed, and each scope's fields put in evaluation order (a field after
the fields its formula or ``show_if`` reads). Building never raises: pieces a
definition gets wrong are left out here and reported by ``checks``.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from typing import Any

from remember.errors import TemplateError
from remember.templates.dates import parse_date, parse_datetime
from remember.templates.expr import Expr, parse_expression, referenced_names
from remember.templates.fields import FieldDef, Rules
from remember.templates.limits import MAX_STRING_LENGTH, MAX_TEXT_LENGTH
from remember.templates.validation.regex import Pattern, compile_pattern


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    field: FieldDef
    show_if: Expr | None
    formula: Expr | None
    pattern: Pattern | None
    low: Any  # min, parsed (a number, date or datetime)
    high: Any
    max_length: int | None  # the field's own bound or the global one for text
    scope: ScopePlan | None  # the fields of an object, or of each object in an array
    item: Node | None  # the rules for each scalar item of an array


@dataclass(frozen=True, slots=True, eq=False)
class ScopePlan:
    nodes: tuple[Node, ...]  # definition order, used for output
    order: tuple[Node, ...]  # evaluation order
    names: tuple[str, ...]
    by_name: dict[str, Node]


def build_scope(fields: tuple[FieldDef, ...]) -> ScopePlan:
    nodes = tuple(build_node(field) for field in fields)
    ordered, _ = dependency_order(fields)
    by_name = {node.field.name: node for node in nodes}
    return ScopePlan(nodes, tuple(by_name[f.name] for f in ordered), tuple(by_name), by_name)


def build_node(field: FieldDef) -> Node:
    scope = build_scope(field.fields) if field.fields else None
    item = None
    if field.type == "array" and field.item_type not in {None, "object"}:
        item_rules = replace(field.validation, min_items=None, max_items=None)
        item_def = FieldDef(field.name, str(field.item_type), options=field.options, validation=item_rules)
        item = build_node(item_def)
    # An array's value rules live on its item node; the array keeps only its item counts.
    rules = Rules() if field.type == "array" else field.validation
    return Node(
        field=field,
        show_if=_parsed(field.show_if),
        formula=_parsed(field.formula),
        pattern=_compiled(rules.pattern),
        low=_bound(rules.min, field.type),
        high=_bound(rules.max, field.type),
        max_length=_max_length(field.type, rules),
        scope=scope,
        item=item,
    )


def _parsed(source: str | None) -> Expr | None:
    if source is None:
        return None
    try:
        return parse_expression(source)
    except TemplateError:
        return None


def _compiled(source: str | None) -> Pattern | None:
    if source is None:
        return None
    try:
        return compile_pattern(source)
    except ValueError:
        return None


def _bound(value: Any, target: str) -> Any:
    if target == "date":
        return parse_date(value)
    if target == "datetime":
        return parse_datetime(value)
    return value


def _max_length(target: str, rules: Rules) -> int | None:
    limit = {"string": MAX_STRING_LENGTH, "text": MAX_TEXT_LENGTH}.get(target)
    if limit is None:
        return rules.max_length
    return limit if rules.max_length is None else min(limit, rules.max_length)


def dependencies(field: FieldDef, siblings: set[str]) -> set[str]:
    """The sibling fields whose values this field's formula or show_if reads."""
    found: set[str] = set()
    for source in (field.show_if, field.formula):
        expr = _parsed(source)
        if expr is not None:
            found |= {name.split(".")[0] for name in referenced_names(expr)} & siblings
    return found


def dependency_order(fields: tuple[FieldDef, ...]) -> tuple[list[FieldDef], list[list[str]]]:
    """Fields in an order where each comes after what it reads, and any cycles found.

    The order stays as close to the definition order as dependencies allow (of
    the fields ready to go, the earliest defined goes next); fields caught in a
    cycle are placed last, in definition order. Time grows as n log n with the
    number of fields, plus the dependencies.
    """
    names = {field.name for field in fields}
    needs = {field.name: dependencies(field, names) for field in fields}
    position = {field.name: index for index, field in enumerate(fields)}
    readers: dict[str, list[str]] = {name: [] for name in names}
    for name, read in needs.items():
        for needed in read:
            readers[needed].append(name)
    waiting = {name: len(read) for name, read in needs.items()}
    ready = [position[name] for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered: list[FieldDef] = []
    while ready:
        field = fields[heapq.heappop(ready)]
        ordered.append(field)
        for reader in readers[field.name]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                heapq.heappush(ready, position[reader])
    placed = {field.name for field in ordered}
    stuck = [field for field in fields if field.name not in placed]
    return ordered + stuck, _cycles([f.name for f in stuck], needs)


def _cycles(stuck: list[str], needs: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each group of stuck fields, as a path ``a -> b -> a``."""
    cycles: list[list[str]] = []
    seen: set[str] = set()
    is_stuck = set(stuck)
    for start in stuck:
        if start in seen:
            continue
        path = [start]
        on_path = {start}
        while True:
            following = min(name for name in needs[path[-1]] if name in is_stuck)
            path.append(following)
            if following in on_path:
                break
            on_path.add(following)
        loop = path[path.index(path[-1]) :]
        if not seen & set(loop):
            cycles.append(loop)
        seen |= set(path)
    return cycles
