"""`remember add`, `get`, `list`, `update`, `rm` and `restore`: each command's grammar and what it does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from remember.cli import files, output
from remember.cli.grammar import Commands, command, runs
from remember.errors import ValidationFailed

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services


def register(commands: Commands) -> None:
    for declare in (_add, _get, _list, _update, _rm, _restore):
        declare(commands)


def _memory_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--title", help="a short title")
    sub.add_argument("--type", help="kind of memory: note, person, book, ... (default: note)")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="a tag (repeat for more)")
    sub.add_argument("--weight", type=float, help="significance from 0 to 1")
    sub.add_argument("--trust", type=float, help="access level from 0 to 1")
    sub.add_argument("--ref", action="append", dest="references", metavar="URL", help="a related http(s) URL")
    sub.add_argument("--when", metavar="DATE", help="when it happened (ISO 8601; default now)")


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The memory fields that ``add`` and ``update`` take as options."""
    options = {name: getattr(args, name) for name in ("title", "type", "weight", "trust", "tags", "references")}
    options["context"] = {"timestamp": args.when} if args.when is not None else None
    return options


def _add(commands: Commands) -> None:
    sub = command(commands, "add", "store a new memory")
    sub.add_argument(
        "content",
        nargs="?",
        metavar="TEXT",
        help="the text to remember ('-' reads standard input); optional with --template",
    )
    _memory_options(sub)
    sub.add_argument("--template", metavar="ID_OR_NAME", help="make it from this template")
    sub.add_argument("--field", action="append", metavar="NAME=VALUE", help="a template field (repeatable)")
    sub.add_argument(
        "--accept-suggestion",
        action="store_true",
        help="apply the best suggested template with the fields read from the text",
    )
    sub.add_argument("--no-suggestion", action="store_true", help="do not suggest a template")
    runs(sub, add)


def add(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.drafts import MemoryDraft

    template_id = structured = None
    if args.template is not None:
        template_id = services.templates.find(caller, args.template).id
        structured = files.read_fields(args.field or [])
    elif args.field:
        raise ValidationFailed.single(
            "--field", "invalid", "--field needs --template: the template the fields belong to."
        )
    elif args.accept_suggestion and args.no_suggestion:
        raise ValidationFailed.single(
            "--accept-suggestion", "invalid", "--accept-suggestion needs a suggestion: drop --no-suggestion."
        )
    content = files.text_arg(args.content) if args.content is not None else None
    draft = MemoryDraft(content=content, template_id=template_id, structured_content=structured, **_options(args))
    stored = services.memories.store_new(caller, draft)
    memory = stored.memory
    best = None
    wanted = args.accept_suggestion or services.preferences.effective(caller)["templates.auto_suggest"]
    if memory.template_id is None and wanted and not args.no_suggestion:
        best = next(iter(services.suggestions.for_memory(caller, memory)), None)
    applied = False
    if best is not None and args.accept_suggestion:
        try:
            memory = services.applier.apply_template(caller, memory.id, best.template_id, best.prefill or None)
            applied = True
        except ValidationFailed as problem:
            output.not_applied(memory, best, problem)
    output.memory(memory, as_json=args.json, suggestion=best, applied=applied, duplicate=stored.duplicate)


def _get(commands: Commands) -> None:
    sub = command(commands, "get", "show one memory")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--history", action="store_true", help="also show its past changes")
    runs(sub, get)


def get(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    memory_id = services.ids.memory(caller, args.memory_id)
    memory = services.memories.get(caller, memory_id)
    history = services.memories.history(caller, memory_id) if args.history else None
    output.memory(memory, history=history, as_json=args.json)


def _list(commands: Commands) -> None:
    sub = command(commands, "list", "list memories, newest first")
    sub.add_argument("--type", help="only this type")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="only with this tag (repeatable)")
    sub.add_argument("--all-tags", action="store_true", help="require every --tag, not any")
    sub.add_argument("--since", metavar="DATE", help="created on or after (ISO 8601)")
    sub.add_argument("--until", metavar="DATE", help="created before (ISO 8601)")
    sub.add_argument("--filter", metavar="JSON", help='advanced filter, e.g. \'{"weight": {"gte": 0.8}}\'')
    sub.add_argument(
        "--sort", default="created_at", choices=["created_at", "updated_at", "weight", "occurred_at"], help="order"
    )
    sub.add_argument("--asc", action="store_true", help="oldest (or lowest) first")
    sub.add_argument("--limit", type=int, default=20, help="page size, 1-100 (default 20)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")
    sub.add_argument("--deleted", choices=["exclude", "include", "only"], default="exclude", help="deleted ones")
    runs(sub, list_)


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    page = services.memories.list(
        caller,
        filters=files.json_arg(args.filter, "--filter") if args.filter else None,
        type=args.type,
        tags=args.tags,
        tags_match="all" if args.all_tags else "any",
        created_after=args.since,
        created_before=args.until,
        sort_by=args.sort,
        sort_order="asc" if args.asc else "desc",
        limit=args.limit,
        offset=args.offset,
        deleted=args.deleted,
    )
    output.page(page, as_json=args.json)


def _update(commands: Commands) -> None:
    sub = command(commands, "update", "change fields of a memory (others stay)")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--content", help="new text ('-' reads standard input)")
    _memory_options(sub)
    sub.add_argument("--clear-tags", action="store_true", help="remove all tags")
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, update)


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.drafts import MemoryPatch

    options = _options(args)
    if args.clear_tags:
        options["tags"] = []
    content = files.text_arg(args.content) if args.content is not None else None
    patch = MemoryPatch(content=content, **options)
    memory_id = services.ids.memory(caller, args.memory_id)
    output.memory(services.memories.update(caller, memory_id, patch, reason=args.reason), as_json=args.json)


def _rm(commands: Commands) -> None:
    sub = command(commands, "rm", "delete a memory (restorable unless --permanent)")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--permanent", action="store_true", help="erase it and its history for good")
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, rm)


def rm(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    memory_id = services.ids.memory(caller, args.memory_id)
    result = services.memories.delete(caller, memory_id, permanent=args.permanent, reason=args.reason)
    output.deletion(result, as_json=args.json)


def _restore(commands: Commands) -> None:
    sub = command(commands, "restore", "bring back a deleted memory")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, restore)


def restore(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    memory_id = services.ids.memory(caller, args.memory_id)
    output.memory(services.memories.restore(caller, memory_id, reason=args.reason), as_json=args.json)
