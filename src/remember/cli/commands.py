"""What each command does: parse its arguments into a service call and print."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from remember.caller import Caller
from remember.cli import (
    db_commands,
    files,
    output,
    relationship_commands,
    search_commands,
    template_commands,
    token_commands,
)
from remember.errors import ValidationFailed
from remember.service import Services
from remember.service.drafts import MemoryDraft, MemoryPatch

Handler = Callable[[Services, Caller, argparse.Namespace], int | None]


def add(services: Services, caller: Caller, args: argparse.Namespace) -> None:
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


def get(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    memory = services.memories.get(caller, args.memory_id)
    history = services.memories.history(caller, args.memory_id) if args.history else None
    output.memory(memory, history=history, as_json=args.json)


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


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    options = _options(args)
    if args.clear_tags:
        options["tags"] = []
    content = files.text_arg(args.content) if args.content is not None else None
    patch = MemoryPatch(content=content, **options)
    output.memory(services.memories.update(caller, args.memory_id, patch, reason=args.reason), as_json=args.json)


def rm(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    result = services.memories.delete(caller, args.memory_id, permanent=args.permanent, reason=args.reason)
    output.deletion(result, as_json=args.json)


def restore(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    output.memory(services.memories.restore(caller, args.memory_id, reason=args.reason), as_json=args.json)


def prefs(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    if args.action == "get":
        output.preferences(services.preferences.get(caller, args.category), as_json=args.json)
        return
    change = services.preferences.update(caller, args.path, files.loose_json(args.value), reason=args.reason)
    output.preference_change(change, as_json=args.json)


HANDLERS: dict[str, Handler] = {
    "add": add,
    "get": get,
    "list": list_,
    "update": update,
    "rm": rm,
    "restore": restore,
    "prefs": prefs,
    "template": template_commands.run,
    "suggest": template_commands.suggest,
    "search": search_commands.search,
    "similar": search_commands.similar,
    "context": search_commands.context,
    "reindex": search_commands.reindex,
    "relate": relationship_commands.relate,
    "related": relationship_commands.related,
    "relationships": relationship_commands.run,
    "export": db_commands.export,
    "import": db_commands.load,
    "token": token_commands.run,
}


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The memory fields that ``add`` and ``update`` take as options."""
    options = {name: getattr(args, name) for name in ("title", "type", "weight", "trust", "tags", "references")}
    options["context"] = {"timestamp": args.when} if args.when is not None else None
    return options
