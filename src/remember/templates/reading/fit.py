"""Checks of how a template's fields fit together.

After each field has been read on its own (``read_fields``): every formula and
``show_if`` parses and names fields that exist, computed and conditional fields
do not depend on each other in a cycle, and every default passes its own field.
These checks run on a template's own fields and again on the resolved field
list, where a child's formula may name a field of its parent.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from remember.errors import FieldError, TemplateError, excerpt
from remember.templates.expr import parse_expression, referenced_names
from remember.templates.fields import FieldDef
from remember.templates.validation.compiled import ScopePlan, build_scope, dependency_order
from remember.templates.validation.run import Checker

_WHAT = {"show_if": "show_if condition", "formula": "formula"}
# Defaults are checked on their own; a default never depends on the clock.
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def check_fields(
    fields: tuple[FieldDef, ...], *, references: bool = True, skip_defaults: Collection[str] = ()
) -> list[FieldError]:
    """Every problem in how ``fields`` relate; ``references=False`` checks syntax only.

    ``references=False`` suits a child template read before its parent is known.
    """
    errors: list[FieldError] = []
    _check_scope(fields, "", references, errors)
    errors.extend(_check_defaults(build_scope(fields), "", skip_defaults))
    return errors


def _check_scope(fields: tuple[FieldDef, ...], prefix: str, references: bool, errors: list[FieldError]) -> None:
    for field in fields:
        path = prefix + field.name
        for code, source in (("show_if", field.show_if), ("formula", field.formula)):
            if source is not None:
                errors.extend(_check_expression(fields, path, code, source, references))
        if field.fields:
            _check_scope(field.fields, path + ".", references, errors)
    if references:
        for loop in dependency_order(fields)[1]:
            path = prefix + loop[0]
            message = f"computed and conditional fields read each other in a cycle: {' -> '.join(loop)}"
            errors.append(FieldError(path, "cycle", message, loop))


def _check_expression(
    fields: tuple[FieldDef, ...], path: str, code: str, source: str, references: bool
) -> list[FieldError]:
    what = _WHAT[code]
    try:
        expr = parse_expression(source)
    except TemplateError as exc:
        return [FieldError(path, code, f"the {what} does not parse: {exc.message}", source)]
    if not references:
        return []
    found: list[FieldError] = []
    for name in sorted(referenced_names(expr)):
        problem = reference_problem(fields, tuple(name.split(".")))
        if problem is not None:
            found.append(FieldError(path, code, f"the {what} {excerpt(source)} names {problem}", source))
    return found


def reference_problem(fields: tuple[FieldDef, ...], parts: tuple[str, ...]) -> str | None:
    """Why the dotted name ``parts`` does not name a field among ``fields``, or None if it does."""
    scope = fields
    for index, part in enumerate(parts):
        match = next((field for field in scope if field.name == part), None)
        if match is None:
            known = ", ".join(field.name for field in scope)
            return f"an unknown field {excerpt('.'.join(parts[: index + 1]))} (fields here: {known})"
        if index == len(parts) - 1:
            return None
        if match.fields:
            scope = match.fields
        elif match.type == "object" or (match.type == "array" and match.item_type is None):
            return None  # free-form JSON: any part may exist
        else:
            return f"{excerpt('.'.join(parts))}, but {match.name} is a {match.type} field without parts"
    return None


def _check_defaults(plan: ScopePlan, prefix: str, skip: Collection[str]) -> list[FieldError]:
    found: list[FieldError] = []
    for node in plan.nodes:
        field = node.field
        path = prefix + field.name
        if field.default is not None and path not in skip:
            checker = Checker(_EPOCH)
            checker.value(node, field.default, path)
            for error in checker.errors:
                message = f"the default {excerpt(field.default)} fails the field's own rules: {error.message}"
                found.append(FieldError(path, "default", message, field.default))
        if node.scope is not None:
            found.extend(_check_defaults(node.scope, path + ".", skip))
    return found
