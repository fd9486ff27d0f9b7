"""What `remember template ...` does: each action a call to the template service."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

from remember.caller import Caller
from remember.cli import files, output
from remember.errors import ValidationFailed
from remember.service import Services
from remember.service.drafts import TemplatePatch
from remember.service.templates import TemplateView
from remember.templates import field_summary, kind_note, to_json_schema


def run(services: Services, caller: Caller, args: argparse.Namespace) -> int | None:
    return ACTIONS[args.action](services, caller, args)


def _id(services: Services, caller: Caller, args: argparse.Namespace) -> str:
    return services.templates.find(caller, args.template).id


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    views, total = services.templates.list_templates(
        caller, include_default=not args.mine, include_user=not args.builtin, category=args.category,
        tags=args.tags, sort_by=args.sort, limit=args.limit, offset=args.offset,
    )  # fmt: skip
    if args.json:
        output.emit({"templates": [_data(v) for v in views], "total": total})
        return
    for v in views:
        d = v.definition
        origin = "built-in" if d.is_default else "yours"
        print(f"{d.id:40} {d.name:28} {d.category:12} {origin:8} used {v.usage.usage_count}")
    print(f"-- {len(views)} of {total}")


def show(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    view = services.templates.get(caller, _id(services, caller, args))
    if args.json:
        output.emit({**_data(view), "resolved_fields": [f.as_dict() for f in view.resolved.fields]})
        return
    d = view.definition
    print(f"{d.name} ({d.id}), version {d.version}" + (", built-in" if d.is_default else ""))
    if d.description:
        print(d.description)
    if d.parent_template_id:
        print(f"inherits from {d.parent_template_id}")
    print(f"used by {view.usage.usage_count} memories\n\nfields:")
    for f in view.resolved.fields:
        print(f"  {f.name:24} {field_summary(f)}{kind_note(f)}")


def create(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    raw = files.read_document(args.file, "a template definition")
    if not isinstance(raw, dict):
        raise ValidationFailed.single(
            "file", "invalid", "The file must hold one template: an object with name and fields."
        )
    view = services.templates.create(caller, raw)
    _print_view(view, args.json, "Created")


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
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
    )
    view, rechecked = services.templates.update(caller, _id(services, caller, args), patch)
    if args.json:
        output.emit({"template": _data(view), "rechecked_memories": rechecked})
    else:
        print(f"Updated {view.id} to version {view.definition.version}; re-checked {rechecked} memories.")


def rm(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    deleted, trashed = services.templates.delete(
        caller, _id(services, caller, args), delete_derived_memories=args.with_memories
    )
    if args.json:
        output.emit({"template_id": deleted, "trashed_memories": trashed})
    else:
        print(f"Deleted {deleted}" + (f"; moved {trashed} memories to the trash." if trashed else "."))


def copy(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _print_view(services.templates.copy(caller, _id(services, caller, args), name=args.name), args.json, "Created")


def validate(services: Services, caller: Caller, args: argparse.Namespace) -> int:
    content = _fields(args) or {}
    _, result = services.templates.validate(caller, _id(services, caller, args), content)
    if args.json:
        output.emit(result.as_dict())
    elif result.valid:
        print(f"Valid; {result.completion:.0%} of the fields are filled.")
    for error in result.errors if not args.json else ():
        print(f"{error.field}: {error.message}", file=sys.stderr)
    return 0 if result.valid else 1


def apply(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    template_id = _id(services, caller, args)
    memory = services.applier.apply_template(caller, args.memory_id, template_id, _fields(args), reason=args.reason)
    if args.json:
        output.emit(memory.as_dict())
        return
    errors = memory.template_validation_errors
    print(f"{memory.id} now follows {template_id}; fields: {json.dumps(memory.structured_content, ensure_ascii=False)}")
    if errors:
        print(f"{len(errors)} field(s) still do not fit; see `remember get {memory.id} --json`.", file=sys.stderr)


def suggest(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    text = files.text_arg(args.text)
    context = files.json_arg(args.context, "--context")
    found = services.suggestions.suggest(caller, text, context=context, limit=args.limit)
    if args.json:
        output.emit({"suggestions": [s.as_dict() for s in found]})
        return
    for s in found:
        print(f"{s.confidence:.2f}  {s.template_id:32} {s.name}  ({s.reason})")
        if s.prefill:
            print(f"      {json.dumps(s.prefill, ensure_ascii=False)}")
    if not found:
        print("No template fits.")


def infer(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    if args.accept is None:
        if args.apply:
            raise ValidationFailed.single("--apply", "invalid", "--apply needs --accept PROPOSAL_ID.")
        found = services.inference.propose(caller)
        output.inference(found, as_json=args.json)
        return
    done = services.inference.accept(caller, args.accept, apply=args.apply)
    output.accepted(done, as_json=args.json)


def schema(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    view = services.templates.get(caller, _id(services, caller, args))
    print(json.dumps(to_json_schema(view.resolved), indent=2))


def analytics(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    figures = services.suggestions.analytics(caller, _id(services, caller, args))
    if args.json:
        output.emit(figures)
        return
    print(f"{figures['name']}: used {figures['usage_count']} times, last {figures['last_used'] or 'never'}")
    for key in ("memory_count", "average_completion_rate", "compliance_rate"):
        print(f"  {key}: {figures[key]}")
    for name, stats in figures["field_usage_statistics"].items():
        common = ", ".join(str(v["value"]) for v in figures["most_common_values"].get(name, [])[:3])
        print(f"  {name:24} filled {stats['fill_rate']:.0%}" + (f"  common: {common}" if common else ""))


ACTIONS: dict[str, Callable[[Services, Caller, argparse.Namespace], int | None]] = {
    "list": list_,
    "show": show,
    "create": create,
    "update": update,
    "rm": rm,
    "copy": copy,
    "validate": validate,
    "schema": schema,
    "analytics": analytics,
    "apply": apply,
    "infer": infer,
}


def _fields(args: argparse.Namespace) -> dict[str, Any] | None:
    """The fields of ``--file`` and ``--field`` merged (the latter win); None when neither is given."""
    if args.file is None and not args.field:
        return None
    content: Any = files.read_document(args.file, "fields") if args.file else {}
    if not isinstance(content, dict):
        raise ValidationFailed.single("file", "invalid", "The fields file must be an object of fields.")
    content.update(files.read_fields(args.field or []))
    return content


def _data(view: TemplateView) -> dict[str, Any]:
    data = view.definition.as_dict()
    data["usage_count"] = view.usage.usage_count
    return data


def _print_view(view: TemplateView, as_json: bool, verb: str) -> None:
    if as_json:
        output.emit(_data(view))
    else:
        print(f"{verb} {view.definition.name} ({view.id}) with {len(view.resolved.fields)} fields.")
