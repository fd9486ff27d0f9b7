"""`remember template list|show|create|update|rm|copy`: the template library, each action's grammar and
what it does (the actions that put templates to use are in ``template_use_commands``)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Any

from remember.cli import files, output
from remember.cli.grammar import Commands, command, runs
from remember.errors import ValidationFailed
from remember.nouns import counted

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services
    from remember.service.templates import TemplateView
    from remember.space_keys import Role

SORTS = ["usage_count", "name", "recent"]


def register(commands: Commands) -> Commands:
    """Declare the ``template`` group and its library actions; the group, for the others."""
    actions = commands.add_group(
        "template", help="manage memory templates", description="Manage memory templates (typed field schemas)."
    )
    for declare in (_list, _show, _create, _update, _rm, _copy):
        declare(actions)
    return actions


def template_action(
    actions: Commands, name: str, summary: str, *, space: str | None = "the space it is in"
) -> argparse.ArgumentParser:
    """An action on one template, named by its TEMPLATE argument; ``--space`` says ``space`` (None: no option)."""
    sub = command(actions, name, summary)
    sub.add_argument(
        "template",
        metavar="TEMPLATE",
        help="the template's id, name or slug (book_review), or its id's first characters",
    )
    if space is not None:
        sub.add_argument("--space", metavar="SPACE", help=f"{space} (name or key; default: personal)")
    return sub


def template_id(services: Services, caller: Caller, args: argparse.Namespace) -> str:
    return located(services, caller, args)[1]


def located(
    services: Services, caller: Caller, args: argparse.Namespace, *, need: Role = "reader"
) -> tuple[Caller, str]:
    """The caller acting where the template TEMPLATE is (``need``: the role it takes there), and its id. With
    ``--space``, it is looked for there; without, a whole id is found in any of the caller's spaces, a name
    among the caller's own templates and the built-ins."""
    space = getattr(args, "space", None)
    if space is None:
        acting = services.spaces.on_template(caller, args.template, need=need)
    elif need == "admin":
        acting = services.spaces.administering(caller, space)
    else:
        acting = services.spaces.reading(caller, [space])[0]
    return acting, services.templates.find(acting, args.template).id


def _list(actions: Commands) -> None:
    sub = command(actions, "list", "list the templates you can use")
    which = sub.add_mutually_exclusive_group()
    which.add_argument("--mine", action="store_true", help="only your own templates")
    which.add_argument("--builtin", action="store_true", help="only the built-in library")
    sub.add_argument("--category", help="only this category")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="only with this tag (repeatable)")
    sub.add_argument("--sort", choices=SORTS, default="usage_count", help="order (default: most used)")
    sub.add_argument("--limit", type=int, default=50, help="page size, 1-100 (default 50)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")
    sub.add_argument(
        "--space", action="append", dest="spaces", metavar="SPACE",
        help="only this space's (name, key or personal; repeatable; default: all yours)",
    )  # fmt: skip
    runs(sub, list_)


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    views, total = services.templates.list_templates(
        caller, include_default=not args.mine, include_user=not args.builtin, category=args.category,
        tags=args.tags, sort_by=args.sort, limit=args.limit, offset=args.offset,
        readers=services.spaces.reading(caller, args.spaces),
    )  # fmt: skip
    if args.json:
        output.emit({"templates": [_data(v) for v in views], "total": total})
        return
    names = {s.space.key: s.space.name for s in services.spaces.list(caller)}
    rows = [
        [v.id, v.definition.name, v.definition.category, _origin(v, names), str(v.usage.usage_count),
         v.usage.last_used.date().isoformat() if v.usage.last_used else "never"]
        for v in views
    ]  # fmt: skip
    if rows:
        output.table(["ID", "NAME", "CATEGORY", "ORIGIN", "USED", "LAST USED"], rows)
    output.footer(args.offset, len(views), total, "template")


def _show(actions: Commands) -> None:
    runs(template_action(actions, "show", "show a template: its fields, inherited ones included, and its usage"), show)


def show(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.templates import field_summary, kind_note

    view = services.templates.get(*located(services, caller, args))
    if args.json:
        output.emit({**_data(view), "resolved_fields": [f.as_dict() for f in view.resolved.fields]})
        return
    d = view.definition
    where = f", in space {services.spaces.name_of(view.space)}" if view.space else ""
    print(f"{d.name} ({d.id}), version {d.version}" + (", built-in" if d.is_default else "") + where)
    if d.description:
        print(d.description)
    if d.parent_template_id:
        print(f"inherits from {d.parent_template_id}")
    print(f"used by {counted(view.usage.usage_count, 'memory')}\n\nfields:")
    for f in view.resolved.fields:
        print(f"  {f.name:24} {field_summary(f)}{kind_note(f)}")


def _create(actions: Commands) -> None:
    sub = command(actions, "create", "create a template from a YAML or JSON file")
    sub.add_argument("-f", "--file", required=True, metavar="FILE", help="the definition ('-' reads stdin)")
    sub.add_argument(
        "--space",
        metavar="SPACE",
        help="create it in this shared space, for its members (its admins; default: personal)",
    )
    runs(sub, create)


def create(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    raw = files.read_document(args.file, "a template definition")
    if not isinstance(raw, dict):
        raise ValidationFailed.single(
            "file", "invalid", "The file must hold one template: an object with name and fields."
        )
    view = services.templates.create(services.spaces.administering(caller, args.space), raw)
    _print_view(view, args.json, "Created")


def _update(actions: Commands) -> None:
    sub = template_action(actions, "update", "change one of your templates (or a space's); its memories are re-checked")
    sub.add_argument(
        "-f", "--file", metavar="FILE",
        help="changes as YAML/JSON: attributes, add_fields, update_fields, remove_fields, version",
    )  # fmt: skip
    sub.add_argument("--name", help="a new name")
    sub.add_argument("--description", help="a new description")
    sub.add_argument("--add-field", action="append", metavar="JSON", help="a field to add, as JSON (repeatable)")
    sub.add_argument("--remove-field", action="append", metavar="NAME", help="a field to remove (repeatable)")
    sub.add_argument("--version", dest="new_version", metavar="V", help="the new version (default: bumped)")
    sub.add_argument(
        "--identity", action="append", metavar="FIELD",
        help="a field naming what its memories are about (repeatable; replaces the identity; its memories re-keyed)",
    )  # fmt: skip
    runs(sub, update)


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.drafts import TemplatePatch

    changes: dict[str, Any] = files.read_document(args.file, "template changes") if args.file else {}
    if not isinstance(changes, dict):
        raise ValidationFailed.single("file", "invalid", "The changes file must be an object.")
    patch = TemplatePatch.from_mapping(changes)
    patch = dataclasses.replace(
        patch,
        add_fields=[*patch.add_fields, *(files.json_arg(text, "--add-field") for text in args.add_field or [])],
        remove_fields=[*patch.remove_fields, *(args.remove_field or [])],
        version=args.new_version or patch.version,
        name=args.name if args.name is not None else patch.name,
        description=args.description if args.description is not None else patch.description,
        identity=args.identity if args.identity is not None else patch.identity,
    )
    view, rechecked = services.templates.update(*located(services, caller, args, need="admin"), patch)
    if args.json:
        output.emit({"template": _data(view), "rechecked_memories": rechecked})
    else:
        print(f"Updated {view.id} to version {view.definition.version}; re-checked {counted(rechecked, 'memory')}.")


def _rm(actions: Commands) -> None:
    sub = template_action(actions, "rm", "delete one of your templates, or a space's (its memories are kept)")
    sub.add_argument("--with-memories", action="store_true", help="also move its memories to the trash")
    runs(sub, rm)


def rm(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    deleted, trashed = services.templates.delete(
        *located(services, caller, args, need="admin"), delete_derived_memories=args.with_memories
    )
    if args.json:
        output.emit({"template_id": deleted, "trashed_memories": trashed})
    else:
        print(f"Deleted {deleted}" + (f"; moved {counted(trashed, 'memory')} to the trash." if trashed else "."))


def _copy(actions: Commands) -> None:
    sub = template_action(actions, "copy", "copy a template into a new one of yours", space="copy it into this space")
    sub.add_argument("--name", help="the copy's name (default: '<name> (copy)')")
    runs(sub, copy)


def copy(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    source = services.spaces.on_template(caller, args.template)
    found = services.templates.find(source, args.template).id
    into = services.spaces.administering(caller, args.space)
    copied = services.templates.copy(into, found, name=args.name, source=source)
    _print_view(copied, args.json, "Created")


def _data(view: TemplateView) -> dict[str, Any]:
    data = view.definition.as_dict()
    data["usage_count"] = view.usage.usage_count
    if view.space is not None:
        data["space"] = view.space
    return data


def _origin(view: TemplateView, names: dict[str, str]) -> str:
    if view.definition.is_default:
        return "built-in"
    return f"space {names.get(view.space, view.space)}" if view.space else "yours"


def _print_view(view: TemplateView, as_json: bool, verb: str) -> None:
    if as_json:
        output.emit(_data(view))
    else:
        print(f"{verb} {view.definition.name} ({view.id}) with {counted(len(view.resolved.fields), 'field')}.")
