"""A template named by a person: by its id, its name or slug, or the first characters of its id.

``book_review``, ``"Book Review"``, ``"book review"``, ``builtin:book_review`` and ``builtin:book``
all name the built-in Book Review; the first that names exactly one template wins, in this order:
the id; the name, case and spaces ignored; the slug (the name in lower case with ``_`` between
its words, or a built-in id without ``builtin:``); a prefix of at least ``MIN_PREFIX`` characters
of an id. The user's own templates come before the built-ins of the same name or slug. A name
that matches nothing is answered with the names close to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed, excerpt
from remember.service.id_prefixes import MIN_PREFIX, SHOWN, WHERE, ambiguous
from remember.spelling import close_to, did_you_mean
from remember.store import Store
from remember.templates import BUILTIN_PREFIX, TemplateDefinition, builtin_templates

Lookup = Callable[[str], TemplateDefinition | None]

FIELD = "template"


def slug(name: str) -> str:
    """``Book Review`` -> ``book_review``: lower case, ``_`` between the words."""
    return re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")


def find(
    store: Store, caller: Caller, lookup: Lookup, everything: Sequence[TemplateDefinition], given: str
) -> TemplateDefinition:
    """The one template ``given`` names among ``everything`` the caller can use, its own and the built-ins
    (``lookup``: one of them by id; see the module)."""
    clean = given.strip() if isinstance(given, str) else ""
    if not clean:
        raise ValidationFailed.single(FIELD, "required", "Name a template: its id, its name or its slug.", given)
    exact = lookup(clean)
    if exact is not None:
        return exact
    for normal, keys_of in ((_name_key, _names), (slug, _slugs)):
        named = _named(everything, normal(clean), keys_of, clean)
        if named is not None:
            return named
    return _by_prefix(store, caller, lookup, everything, clean)


def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _names(d: TemplateDefinition) -> set[str]:
    return {_name_key(d.name)}


def _slugs(d: TemplateDefinition) -> set[str]:
    """The slug of its name; for a built-in, also its id without ``builtin:``."""
    return {slug(d.name), d.id.removeprefix(BUILTIN_PREFIX)} if d.is_default else {slug(d.name)}


def _named(
    everything: Sequence[TemplateDefinition], wanted: str, keys_of: Callable[[TemplateDefinition], set[str]], given: str
) -> TemplateDefinition | None:
    """The template with ``wanted`` among its keys: the user's own first; two of theirs are ambiguous."""
    if not wanted:
        return None
    for builtin in (False, True):
        found = [d for d in everything if d.is_default is builtin and wanted in keys_of(d)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ambiguous("template", given, FIELD, [_line(d) for d in found[:SHOWN]], more=len(found) > SHOWN)
    return None


def _by_prefix(
    store: Store, caller: Caller, lookup: Lookup, everything: Sequence[TemplateDefinition], given: str
) -> TemplateDefinition:
    ids = store.templates.ids_with_prefix(caller.user, given, limit=SHOWN + 1) if len(given) >= MIN_PREFIX else []
    if len(given) >= MIN_PREFIX:
        ids += [d.id for d in builtin_templates() if d.id.startswith(given)]
    found = [d for d in (lookup(i) for i in ids) if d is not None]
    if len(found) == 1:
        return found[0]
    if found:
        raise ambiguous("template", given, FIELD, [_line(d) for d in found[:SHOWN]], more=len(found) > SHOWN)
    raise _unknown(everything, given)


def _unknown(everything: Sequence[TemplateDefinition], given: str) -> NotFound:
    """No template by that name, with the names of those close to it."""
    by_label: dict[str, TemplateDefinition] = {}
    for d in everything:
        for label in (d.name, *sorted(_slugs(d)), d.id):
            by_label.setdefault(label, d)
    close = close_to(given, by_label)
    offered = list(dict.fromkeys(f"{by_label[c].name!r} ({by_label[c].id})" for c in close))
    return NotFound(f"No template with id, name or slug {excerpt(given)}.{did_you_mean(offered)} {WHERE['template']}")


def _line(d: TemplateDefinition) -> str:
    return f"{d.id}  {d.name} ({'built-in' if d.is_default else 'yours'})"
