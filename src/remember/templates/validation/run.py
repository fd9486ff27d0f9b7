"""One run of content validation: fields visited in evaluation order, every problem collected.

A hidden field (its ``show_if`` is false) is neither required nor kept, although
a value given for it must still have the right type; computed fields are
evaluated from the values accepted so far and replace anything the caller sent
for them. ``content.py`` runs it over a resolved template; definition checks
run it over defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from remember.errors import FieldError
from remember.templates.expr import evaluate, truthy
from remember.templates.jsonvalue import from_formula, json_copy
from remember.templates.limits import MAX_ARRAY_ITEMS
from remember.templates.rules import check_rules
from remember.templates.validation.coerce import Refused, coerce, describe
from remember.templates.validation.compiled import Node, ScopePlan

_INVALID: Any = object()


class Checker:
    """One validation run: the clock it uses and the errors it has found."""

    def __init__(self, now: datetime) -> None:
        self.now = now
        self.errors: list[FieldError] = []
        self.ignored: list[FieldError] = []  # values given and not kept: computed or hidden fields
        self.hidden: list[str] = []  # paths of the fields whose show_if is false for these values

    def fail(self, path: str, code: str, message: str, value: Any = None) -> None:
        self.errors.append(FieldError(path, code, message, value))

    def scope(self, plan: ScopePlan, raw: Mapping[Any, Any], prefix: str) -> tuple[dict[str, Any], int, int]:
        """Normalized values of one object, with its count of visible and of filled fields."""
        for key in raw:
            if key not in plan.by_name:
                self._unknown(plan, key, raw[key], prefix)
        values: dict[str, Any] = {}
        visible = filled = 0
        for node in plan.order:
            shown = node.show_if is None or truthy(evaluate(node.show_if, values, now=self.now))
            given, path = raw.get(node.field.name), prefix + node.field.name
            if node.field.type == "computed":
                if given is not None:
                    self._ignore(path, "computed", f"{path} is computed by the server; the value given was replaced")
                if shown and node.formula is not None:
                    result = from_formula(evaluate(node.formula, values, now=self.now))
                    if result is not None:
                        values[node.field.name] = result
            elif shown:
                visible += 1
                filled += self._visible(node, given, prefix, values)
            else:
                self._hidden(node, given, path)
        normalized = {name: values[name] for name in plan.names if name in values}
        return normalized, visible, filled

    def _hidden(self, node: Node, given: Any, path: str) -> None:
        """A field whose show_if is false: noted, and its value left out (a wrong one is still an error)."""
        self.hidden.append(path)
        if given is not None and self.value(node, given, path) is not _INVALID:
            self._ignore(path, "hidden", f"{path} applies only when {node.field.show_if}; the value was left out")

    def _ignore(self, path: str, code: str, message: str) -> None:
        self.ignored.append(FieldError(path, code, message))

    def _visible(self, node: Node, given: Any, prefix: str, values: dict[str, Any]) -> bool:
        """Check one shown field; store its value in ``values``; say whether it is filled."""
        field = node.field
        path = prefix + field.name
        if given is None and field.default is not None:
            given = json_copy(field.default)
        if not _filled(given):
            if field.required:
                self.fail(path, "required", f"{path} is required", given)
                return False
            if given is None:
                return False
        checked = self.value(node, given, path)
        if checked is _INVALID:
            return False
        values[field.name] = checked
        return _filled(checked)

    def _unknown(self, plan: ScopePlan, key: object, value: Any, prefix: str) -> None:
        path = f"{prefix}{key}"
        where = f" of {prefix[:-1]}" if prefix else ""
        known = ", ".join(plan.names) or "none"
        self.fail(path, "unknown_field", f"{path} is not a field{where}; known fields: {known}", value)

    def value(self, node: Node, value: Any, path: str) -> Any:
        """The normalized value, or ``_INVALID`` after recording why not."""
        kind = node.field.type
        if kind == "object":
            return self._object(node, value, path)
        if kind == "array":
            return self._array(node, value, path)
        return self.scalar(node, value, path)

    def scalar(self, node: Node, value: Any, path: str) -> Any:
        try:
            result = coerce(node.field.type, value)
        except Refused as refused:
            self.fail(path, "type", f"{path} must be {refused}, got {describe(value)}", value)
            return _INVALID
        problems = check_rules(node, result, path)
        if problems:
            self.errors.extend(problems)
            return _INVALID
        return result

    def _object(self, node: Node, value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            self.fail(path, "type", f"{path} must be an object, got {describe(value)}", value)
            return _INVALID
        if node.scope is None:
            return self._free(value, path)
        return self.scope(node.scope, value, path + ".")[0]

    def _array(self, node: Node, value: Any, path: str) -> Any:
        if not isinstance(value, list):
            self.fail(path, "type", f"{path} must be a list, got {describe(value)}", value)
            return _INVALID
        before = len(self.errors)
        self.errors.extend(check_rules(node, value, path))
        if len(value) > MAX_ARRAY_ITEMS:
            return _INVALID
        items = [self._item(node, item, f"{path}[{index}]") for index, item in enumerate(value)]
        if len(self.errors) > before:
            return _INVALID
        return items

    def _item(self, node: Node, item: Any, path: str) -> Any:
        if node.scope is not None:
            return self._object(node, item, path)
        if node.item is not None:
            if item is None:
                self.fail(path, "type", f"{path} must not be null", item)
                return _INVALID
            return self.scalar(node.item, item, path)
        return self._free(item, path)

    def _free(self, value: Any, path: str) -> Any:
        try:
            return json_copy(value)
        except ValueError as exc:
            self.fail(path, "type", f"{path} {exc}", None)
            return _INVALID


def _filled(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | dict):
        return bool(value)
    return True
