"""Inheritance: a template's fields are its ancestors' fields plus its own.

The chain of ``parent_template_id`` is followed through a lookup the caller
supplies (the store, or ``lookup_from`` over a few definitions). Fields merge
from the root down: a field of the same name replaces the inherited one in the
inherited position; new fields follow. Missing parents and cycles are refused.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable

from remember.errors import FieldError, TemplateError, excerpt
from remember.templates.definition import TemplateDefinition, identity_problems
from remember.templates.fields import FieldDef, iter_fields
from remember.templates.limits import MAX_FIELDS, MAX_INHERITANCE_DEPTH
from remember.templates.per_object import PerObject
from remember.templates.reading.fit import check_fields
from remember.templates.resolved import ResolvedTemplate
from remember.templates.validation.compiled import build_scope

__all__ = [
    "Lookup", "ResolvedTemplate", "ancestors", "check_resolved_fields", "lookup_from", "merge_fields", "resolve",
]  # fmt: skip

Lookup = Callable[[str], TemplateDefinition | None]
# Each definition's resolution, with the chain of parents it was resolved over (weakly: a parent is not kept for it).
_RESOLVED: PerObject[TemplateDefinition, tuple[tuple[weakref.ref[TemplateDefinition], ...], ResolvedTemplate]] = (
    PerObject()
)


def lookup_from(definitions: Iterable[TemplateDefinition]) -> Lookup:
    """A lookup over a fixed set of definitions, by id."""
    by_id = {definition.id: definition for definition in definitions}
    return by_id.get


def ancestors(definition: TemplateDefinition, lookup: Lookup | None) -> tuple[TemplateDefinition, ...]:
    """The parent, its parent... up to the root; ``TemplateError`` on a missing parent or a cycle.

    Run it before storing a new or changed template: it refuses exactly the
    parent links that would make a cycle.
    """
    chain: list[TemplateDefinition] = []
    seen = [definition.id]
    parent_id = definition.parent_template_id
    while parent_id is not None:
        if parent_id in seen:
            loop = " -> ".join([*seen, parent_id])
            raise _chain_error("parent_cycle", f"template inheritance would form a cycle: {loop}", parent_id)
        if len(chain) >= MAX_INHERITANCE_DEPTH:
            raise _chain_error("limit", f"inheritance is deeper than {MAX_INHERITANCE_DEPTH} levels", parent_id)
        parent = lookup(parent_id) if lookup is not None else None
        if parent is None:
            where = f" (the parent of {excerpt(seen[-1])})" if len(seen) > 1 else ""
            message = f"parent template {excerpt(parent_id)}{where} does not exist; create it first or remove the link"
            raise _chain_error("missing_parent", message, parent_id)
        chain.append(parent)
        seen.append(parent_id)
        parent_id = parent.parent_template_id
    return tuple(chain)


def _chain_error(code: str, message: str, value: str) -> TemplateError:
    return TemplateError.single("parent_template_id", code, message, value)


def merge_fields(chain: Iterable[TemplateDefinition]) -> tuple[FieldDef, ...]:
    """Fields of ``chain`` (root first): later definitions override earlier ones by name."""
    merged: dict[str, FieldDef] = {}
    for definition in chain:
        for own in definition.fields:
            merged[own.name] = own  # an existing key keeps its position
    return tuple(merged.values())


def resolve(definition: TemplateDefinition, lookup: Lookup | None = None) -> ResolvedTemplate:
    """Merge the inherited fields and check the result as one template.

    Worked out once per definition object and chain of parent objects (``PerObject``): the built-ins
    are the same objects in every call, and a suggestion resolves the ones it offers on every create.
    """
    chain = ancestors(definition, lookup)
    known = _RESOLVED.get(definition)
    if known is not None and _same_objects(known[0], chain):
        return known[1]
    resolved = _resolved(definition, chain)
    _RESOLVED.put(definition, (tuple(weakref.ref(a) for a in chain), resolved))
    return resolved


def _same_objects(kept: tuple[weakref.ref[TemplateDefinition], ...], chain: tuple[TemplateDefinition, ...]) -> bool:
    return len(kept) == len(chain) and all(ref() is parent for ref, parent in zip(kept, chain, strict=True))


def _resolved(definition: TemplateDefinition, chain: tuple[TemplateDefinition, ...]) -> ResolvedTemplate:
    fields = merge_fields([*reversed(chain), definition])
    errors = check_resolved_fields(fields) + identity_problems(definition.identity, fields)
    if errors:
        parents = ", ".join(repr(a.name) for a in chain)
        inherits = f" (inheriting from {parents})" if chain else ""
        count = len(errors)
        headline = (
            f"template {excerpt(definition.name)}{inherits} is invalid: {count} problem{'s' if count != 1 else ''}"
        )
        raise TemplateError(headline, errors)
    return ResolvedTemplate(definition, fields, tuple(a.id for a in chain), build_scope(fields))


def check_resolved_fields(fields: tuple[FieldDef, ...]) -> list[FieldError]:
    """Every problem of a merged field list, as ``resolve`` checks it."""
    errors = check_fields(fields)
    if len(iter_fields(fields)) > MAX_FIELDS:
        errors.append(FieldError("fields", "limit", f"with inherited fields, more than {MAX_FIELDS} fields"))
    return errors
