"""`remember template validate|schema|analytics|apply|infer` and `remember suggest`: templates put to use
with memories and texts, each command's grammar and what it does."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from remember.cli import files, output
from remember.cli.grammar import Commands, command, runs
from remember.cli.template_commands import located, template_action
from remember.clock import to_text
from remember.errors import ValidationFailed
from remember.nouns import counted

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services


def register(commands: Commands, templates: Commands) -> None:
    """Declare these actions in the ``templates`` group, and ``suggest`` among the ``commands``."""
    for declare in (_validate, _schema, _analytics, _apply, _infer):
        declare(templates)
    _suggest(commands)


def _fields(args: argparse.Namespace) -> dict[str, Any] | None:
    """The fields of ``--file`` and ``--field`` merged (the latter win); None when neither is given."""
    if args.file is None and not args.field:
        return None
    content: Any = files.read_document(args.file, "fields") if args.file else {}
    if not isinstance(content, dict):
        raise ValidationFailed.single("file", "invalid", "The fields file must be an object of fields.")
    content.update(files.read_fields(args.field or []))
    return content


def _validate(actions: Commands) -> None:
    sub = template_action(actions, "validate", "check fields against a template (exit 1 if they do not fit)")
    sub.add_argument("-f", "--file", metavar="FILE", help="the fields as YAML/JSON ('-' reads stdin)")
    sub.add_argument("--field", action="append", metavar="NAME=VALUE", help="one field (repeatable)")
    runs(sub, validate)


def validate(services: Services, caller: Caller, args: argparse.Namespace) -> int:
    content = _fields(args) or {}
    _, result = services.templates.validate(*located(services, caller, args), content)
    if args.json:
        output.emit(result.as_dict())
    elif result.valid:
        print(f"Valid; {result.completion:.0%} of the fields are filled.")
    for error in result.errors if not args.json else ():
        print(f"{error.field}: {error.message}", file=sys.stderr)
    return 0 if result.valid else 1


def _schema(actions: Commands) -> None:
    runs(template_action(actions, "schema", "print the JSON Schema of a template's fields"), schema)


def schema(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.templates import to_json_schema

    view = services.templates.get(*located(services, caller, args))
    print(json.dumps(to_json_schema(view.resolved), indent=2))


def _analytics(actions: Commands) -> None:
    runs(template_action(actions, "analytics", "usage, completion and compliance of a template's memories"), analytics)


def analytics(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    report = services.suggestions.analytics(*located(services, caller, args))
    if args.json:
        output.emit(report.as_dict())
        return
    figures = report.analytics
    last = to_text(figures.last_used) if figures.last_used else "never"
    print(f"{figures.name}: used {counted(figures.usage_count, 'time')}, last {last}")
    print(f"  memory_count: {figures.memory_count}")
    print(f"  average_completion_rate: {figures.average_completion_rate}")
    print(f"  compliance_rate: {figures.compliance_rate}")
    for name, stats in figures.field_usage_statistics.items():
        common = ", ".join(str(v.value) for v in figures.most_common_values.get(name, ())[:3])
        print(f"  {name:24} filled {stats.fill_rate:.0%}" + (f"  common: {common}" if common else ""))


def _apply(actions: Commands) -> None:
    sub = template_action(actions, "apply", "make a stored memory one of this template's (its text stays)", space=None)
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("-f", "--file", metavar="FILE", help="the fields as YAML/JSON ('-' reads stdin)")
    sub.add_argument(
        "--field", action="append", metavar="NAME=VALUE",
        help="one field (repeatable); with no fields given, those readable from the memory's text",
    )  # fmt: skip
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, apply)


def apply(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    acting = services.spaces.on_memory(caller, args.memory_id, need="writer")  # a shared memory by its whole id
    memory_id = services.ids.memory(acting, args.memory_id)
    services.spaces.require_template_here(acting, args.template)
    template = services.templates.find(acting, args.template).id  # the memory's space's templates, the built-ins
    memory = services.applier.apply_template(acting, memory_id, template, _fields(args), reason=args.reason)
    if args.json:
        output.emit(memory.as_dict())
        return
    errors = memory.template_validation_errors
    print(f"{memory.id} now follows {template}; fields: {json.dumps(memory.structured_content, ensure_ascii=False)}")
    if errors:
        print(
            f"{counted(len(errors), 'field')} still not fitting; see `remember get {memory.id} --json`.",
            file=sys.stderr,
        )


def _infer(actions: Commands) -> None:
    sub = command(actions, "infer", "propose templates learned from your untemplated memories")
    sub.add_argument("--accept", metavar="PROPOSAL_ID", help="create the template of this proposal")
    sub.add_argument("--apply", action="store_true", help="with --accept: also apply it to the memories it covers")
    sub.add_argument(
        "--space", metavar="SPACE", help="learn from a shared space's memories, for its templates (its admins)"
    )
    runs(sub, infer)


def infer(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    if args.accept is None and args.apply:
        raise ValidationFailed.single("--apply", "invalid", "--apply needs --accept PROPOSAL_ID.")
    acting = services.spaces.administering(caller, args.space) if args.space is not None else caller
    if args.accept is None:
        found = services.inference.propose(acting)
        output.inference(found, as_json=args.json)
        return
    done = services.inference.accept(acting, args.accept, apply=args.apply)
    output.accepted(done, as_json=args.json)


def _suggest(commands: Commands) -> None:
    sub = commands.add_parser(
        "suggest", help="which templates fit a text", description="Which templates fit a text, with the fields read."
    )
    sub.add_argument("text", metavar="TEXT", help="what was said or is to be remembered ('-' reads standard input)")
    sub.add_argument(
        "--context", metavar="JSON",
        help='the moment, e.g. \'{"time_of_day": "dinner", "participants_present": true}\'',
    )  # fmt: skip
    sub.add_argument("--limit", type=int, help="most suggestions, 1-10 (default: preference)")
    sub.add_argument(
        "--space",
        metavar="SPACE",
        help="the space the memory is for: its templates and the built-ins (default: personal)",
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, suggest)


def suggest(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    text = files.text_arg(args.text)
    context = files.json_arg(args.context, "--context")
    acting = services.spaces.writing(caller, args.space) if args.space is not None else caller
    found = services.suggestions.suggest(acting, text, context=context, limit=args.limit)
    if args.json:
        output.emit({"suggestions": [s.as_dict() for s in found]})
        return
    for s in found:
        print(f"{s.confidence:.2f}  {s.template_id:32} {s.name}  ({s.reason})")
        if s.prefill:
            print(f"      {json.dumps(s.prefill, ensure_ascii=False)}")
    if not found:
        print("No template fits.")
