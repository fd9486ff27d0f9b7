"""The templates remember's Markdown export carries: checked against the user's before anything is
written, then created under their own ids, so that the notes made with them find them.

A template the user has already, with the same definition, is used as it is. One stored under the
same id with another definition (changed since the export, or another template altogether), or one
whose name another of the user's templates holds, refuses the import: nothing is written, and the
message says which template and what to do. Taking either definition silently would change the
user's template or leave the notes checked against one they were not made with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remember.caller import Caller
from remember.errors import Conflict, TemplateError, ValidationFailed, excerpt
from remember.models import name_key
from remember.service.import_export.peers.records import ImportedTemplate, ImportReport
from remember.service.import_export.peers.sources import refused
from remember.service.templates import TemplateService, UserTemplates
from remember.templates import BUILTIN_PREFIX, TemplateDefinition, ancestors, parse_template

CREATED = "created"
WOULD_CREATE = "would be created"
PRESENT = "stored already (the same definition)"


@dataclass(frozen=True)
class Carried:
    """What the templates of an import come to: the user's templates with the new ones added (to check
    the notes against), the new ones in the order to create them (parents first), how many are stored."""

    view: UserTemplates
    new: tuple[TemplateDefinition, ...]
    present: int


def settle(templates: TemplateService, caller: Caller, carried: Sequence[ImportedTemplate]) -> Carried:
    """Check every carried template against the user's; Conflict or ValidationFailed before any write."""
    stored = templates.view_of(caller)
    read = [(item.where, _definition(item)) for item in carried]
    _once_each(read)
    new: list[tuple[str, TemplateDefinition]] = []
    for where, definition in read:
        record = stored.records.get(definition.id)
        if record is None:
            _name_free(stored, where, definition)
            new.append((where, definition))
        elif parse_template(dict(record.definition)).as_dict() != definition.as_dict():
            raise _changed(where, definition, parse_template(dict(record.definition)))
    view = templates.view_of(caller, [d for _, d in new])
    for where, definition in new:
        try:
            view.resolved(definition.id)
        except TemplateError as problem:
            raise refused(where, f"the template does not resolve: {problem.message}") from problem
    ordered = sorted((d for _, d in new), key=lambda d: len(ancestors(d, view.lookup)))
    return Carried(view, tuple(ordered), len(read) - len(new))


def create(templates: TemplateService, caller: Caller, carried: Carried, report: ImportReport, *, write: bool) -> None:
    """Create the new templates (parents first), or in a dry run count them."""
    for definition in carried.new if write else ():
        templates.restore(caller, definition)
    if carried.new:
        report.templates[CREATED if write else WOULD_CREATE] += len(carried.new)
    if carried.present:
        report.templates[PRESENT] += carried.present


def _definition(item: ImportedTemplate) -> TemplateDefinition:
    try:
        definition = parse_template(dict(item.definition))
    except TemplateError as problem:
        listed = "; ".join(f"{e.field}: {e.message}" for e in problem.errors[:5]) or problem.message
        raise refused(item.where, f"it is not a valid template definition ({listed}).") from problem
    if definition.is_default or definition.id.startswith(BUILTIN_PREFIX):
        raise refused(item.where, "it names a built-in template, which comes with remember and is not imported.")
    return definition


def _once_each(read: list[tuple[str, TemplateDefinition]]) -> None:
    """Two files of one id, or of one name, cannot both be created."""
    ids: dict[str, str] = {}
    names: dict[str, str] = {}
    for where, definition in read:
        for seen, key in ((ids, definition.id), (names, name_key(definition.name))):
            if key in seen:
                raise ValidationFailed.single(
                    "file", "duplicate", f"Cannot import {where}: {seen[key]} holds a template of the same "
                    f"{'id' if seen is ids else 'name'} ({excerpt(key)}); keep one of them. Nothing was imported.",
                )  # fmt: skip
            seen[key] = where


def _name_free(stored: UserTemplates, where: str, definition: TemplateDefinition) -> None:
    holder = stored.own_by_name(definition.name)
    if holder is not None:
        raise Conflict(
            f"Cannot import {where}: its template {excerpt(definition.name)} ({definition.id}) has the name of "
            f"your template {holder.id}. Rename yours (`remember template update {holder.id} --name NEW`) and "
            "import again. Nothing was imported."
        )


def _changed(where: str, carried: TemplateDefinition, stored: TemplateDefinition) -> Conflict:
    return Conflict(
        f"Cannot import {where}: your template {carried.id} ({excerpt(stored.name)}, version {stored.version}) "
        f"has another definition than the one in the folder ({excerpt(carried.name)}, version {carried.version}). "
        "Import into a user without it, or remove that file to have the notes checked against your template "
        "as it is (the ones that do not fit it are listed as skipped). Nothing was imported."
    )
