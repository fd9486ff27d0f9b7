"""`remember add`, `get`, `list`, `update`, `rm` and `restore`: each command's grammar and what it does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from remember import preferences as known
from remember.cli import files, memory_view, output
from remember.cli.grammar import Commands, command, runs
from remember.cli.when import when_of, when_options
from remember.errors import ValidationFailed

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services
    from remember.space_keys import Role


def register(commands: Commands) -> None:
    for declare in (_add, _get, _list, _update, _rm, _restore):
        declare(commands)


def _memory_options(sub: argparse.ArgumentParser, *, new: bool) -> None:
    """The options ``add`` (``new``) and ``update`` share; a default is said only where it applies."""
    sub.add_argument("--title", help="a short title")
    sub.add_argument("--type", help="kind of memory: note, person, book, ..." + (" (default: note)" if new else ""))
    tag = "a tag (repeat for more)" if new else "add a tag (repeatable; --remove-tag and --clear-tags remove)"
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help=tag)
    sub.add_argument("--weight", type=float, help="significance from 0 to 1")
    sub.add_argument("--trust", type=float, help="access level from 0 to 1")
    refs = "a related http(s) URL" + (" (repeatable)" if new else " (repeatable; replaces its references)")
    sub.add_argument("--ref", action="append", dest="references", metavar="URL", help=refs)
    sub.add_argument("--when", metavar="DATE", help="when it happened (ISO 8601" + ("; default now)" if new else ")"))


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
    _memory_options(sub, new=True)
    sub.add_argument("--template", metavar="TEMPLATE", help="make it from this template (id, name or slug)")
    sub.add_argument("--field", action="append", metavar="NAME=VALUE", help="a template field (repeatable)")
    sub.add_argument(
        "--accept-suggestion",
        action="store_true",
        help="apply the best suggested template with the fields read from the text",
    )
    sub.add_argument("--no-suggestion", action="store_true", help="do not suggest a template")
    sub.add_argument(
        "--supersedes", action="append", metavar="ID", help="a memory this one replaces: it ends (repeatable)"
    )
    sub.add_argument("--valid-from", metavar="DATE", help="when it became true (default: when it happened)")
    sub.add_argument("--valid-until", metavar="DATE", help="when it stopped being true (default: still true)")
    sub.add_argument("--space", metavar="SPACE", help="store it in this space (name, key; default: spaces.default)")
    runs(sub, add)


def add(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.drafts import MemoryDraft

    template_id = structured = None
    if args.template is not None:
        # A whole id is looked up where it is; a name or slug among the templates of where the memory goes.
        template_id = services.templates.find(services.spaces.writing_with(caller, args.space, args.template),
                                              args.template).id  # fmt: skip
        structured = files.read_fields(args.field or [])
    elif args.field:
        raise ValidationFailed.single(
            "--field", "invalid", "--field needs --template: the template the fields belong to."
        )
    elif args.accept_suggestion and args.no_suggestion:
        raise ValidationFailed.single(
            "--accept-suggestion", "invalid", "--accept-suggestion needs a suggestion: drop --no-suggestion."
        )
    caller = services.spaces.writing_with(caller, args.space, template_id)
    content = files.text_arg(args.content) if args.content is not None else None
    supersedes = [services.ids.memory(caller, i) for i in args.supersedes or ()]
    draft = MemoryDraft(
        content=content, template_id=template_id, structured_content=structured, supersedes=supersedes,
        valid_from=args.valid_from, valid_until=args.valid_until, **_options(args),
    )  # fmt: skip
    stored = services.memories.store_new(caller, draft)
    memory = stored.memory
    best = None
    wanted = args.accept_suggestion or known.flag(services.preferences.effective(caller), "templates.auto_suggest")
    if memory.template_id is None and wanted and not args.no_suggestion:
        best = next(iter(services.suggestions.for_memory(caller, memory)), None)
    applied = False
    if best is not None and args.accept_suggestion:
        try:
            memory = services.applier.apply_template(caller, memory.id, best.template_id, best.prefill or None)
            applied = True
        except ValidationFailed as problem:
            output.not_applied(memory, best, problem)
    output.memory(
        memory, as_json=args.json, space=services.spaces.name_of(memory.user_id), suggestion=best, applied=applied,
        duplicate=stored.duplicate, same=stored.identity, hints=stored.conflicts,
    )  # fmt: skip


def _get(commands: Commands) -> None:
    sub = command(commands, "get", "show one memory")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--history", action="store_true", help="also show its past changes")
    runs(sub, get)


def get(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """The memory, its relationships and (with --history) its changes; as a person reads them, or as JSON
    with the relationships in the form the MCP tool answers them."""
    from remember.schemas.relationships import links
    from remember.service.validity import timeline

    caller, memory_id = _acting(services, caller, args.memory_id, "reader")
    memory = services.memories.get(caller, memory_id)
    changes = services.memories.history(caller, memory.id)
    history = changes if args.history else None
    rels = services.relationships.links(caller, [memory.id]).get(memory.id, [])
    if args.json:
        data = {**output.public(memory), "relationships": links(memory.id, rels)}
        output.emit(data if history is None else {**data, "history": [h.as_dict() for h in history]})
        return
    others = {m: services.memories.get(caller, m, record_access=False) for r in rels for m in r.memory_ids}
    rendered = services.memories.fields_text(caller, memory)
    over_time = timeline(memory, changes)
    memory_view.show(
        memory, rendered=rendered, rels=rels, others=others, history=history, timeline=over_time,
        space=services.spaces.name_of(memory.user_id),
    )  # fmt: skip


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
    sub.add_argument(
        "--space", action="append", dest="spaces", metavar="SPACE",
        help="only this space (name, key or personal; repeatable; default: all yours)",
    )  # fmt: skip
    when_options(sub)
    runs(sub, list_)


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service import space_reads

    page = space_reads.listing(
        services.memories,
        services.spaces.reading(caller, args.spaces),
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
        when=when_of(args),
    )
    names = output.space_names(services.spaces.name_of, page.items)
    output.page(page, as_json=args.json, sort_by=args.sort, spaces=names)


def _update(commands: Commands) -> None:
    sub = command(commands, "update", "change fields of a memory (others stay)")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--content", help="new text ('-' reads standard input)")
    _memory_options(sub, new=False)
    sub.add_argument("--remove-tag", action="append", metavar="TAG", help="remove this tag (repeatable)")
    sub.add_argument("--clear-tags", action="store_true", help="remove every tag (then --tag adds)")
    sub.add_argument(
        "--field", action="append", metavar="NAME=VALUE",
        help="set a field of its template (repeatable; NAME=null empties it)",
    )  # fmt: skip
    sub.add_argument("--reason", help="why; kept in the memory's history")
    sub.add_argument("--valid-from", metavar="DATE", help="when it became true (default: when it happened)")
    sub.add_argument("--valid-until", metavar="DATE", help="end it: no longer true from then (it is kept)")
    sub.add_argument("--reopen", action="store_true", help="true again: remove its end")
    runs(sub, update)


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """The changes given, over the memory as read: refused (nothing written) if it changed in between."""
    from remember.service.drafts import MemoryPatch

    caller, memory_id = _acting(services, caller, args.memory_id, "writer")
    current = services.memories.get(caller, memory_id, record_access=False)
    options = {**_options(args), "tags": _tags(current.tags, args)}
    structured = files.read_fields(args.field) if args.field else None
    if structured is not None and current.template_id is None:
        raise ValidationFailed.single(
            "--field", "invalid",
            f"Memory {current.id} follows no template; apply one first: remember template apply TEMPLATE {current.id}.",
        )  # fmt: skip
    content = files.text_arg(args.content) if args.content is not None else None
    if args.reopen and args.valid_until is not None:
        raise ValidationFailed.single("--reopen", "conflict", "Give --valid-until or --reopen, not both.")
    clear = frozenset({"valid_until"}) if args.reopen else frozenset()
    patch = MemoryPatch(
        content=content, structured_content=structured, valid_from=args.valid_from, valid_until=args.valid_until,
        clear=clear, **options,
    )  # fmt: skip
    if not patch.changes():
        raise ValidationFailed.single("changes", "empty", f"Nothing to update: give at least one of {UPDATES}.")
    stored = services.memories.change(caller, current.id, patch, reason=args.reason, expected_version=current.version)
    output.memory(stored.memory, as_json=args.json, space=services.spaces.name_of(stored.memory.user_id))


UPDATES = (
    "--content, --title, --type, --tag, --remove-tag, --clear-tags, --weight, --trust, --ref, --when, --field, "
    "--valid-from, --valid-until, --reopen"
)


def _tags(tags: tuple[str, ...], args: argparse.Namespace) -> list[str] | None:
    """The memory's tags after --clear-tags, --remove-tag and --tag; None when none of them is given."""
    from remember.models import normalize_tag

    if not (args.tags or args.remove_tag or args.clear_tags):
        return None
    kept = [] if args.clear_tags else list(tags)
    gone = {normalize_tag(t) for t in args.remove_tag or ()}
    missing = sorted(gone - {normalize_tag(t) for t in kept})
    if missing and not args.clear_tags:
        has = f"its tags are {', '.join(tags)}" if tags else "it has none"
        raise ValidationFailed.single(
            "remove_tag", "invalid", f"--remove-tag: the memory has no tag {', '.join(map(repr, missing))}; {has}."
        )
    return [t for t in kept if normalize_tag(t) not in gone] + list(args.tags or ())


def _acting(services: Services, caller: Caller, given: str, need: Role) -> tuple[Caller, str]:
    """The caller acting in the space that holds the memory ``given`` by its whole id (a shared space's are
    taken whole), and its id; an id's first characters are looked for in the caller's personal space."""
    acting = services.spaces.on_memory(caller, given, need=need)
    return acting, services.ids.memory(acting, given)


def _rm(commands: Commands) -> None:
    sub = command(commands, "rm", "delete a memory (restorable unless --permanent)")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--permanent", action="store_true", help="erase it and its history for good")
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, rm)


def rm(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller, memory_id = _acting(services, caller, args.memory_id, "writer")
    result = services.memories.delete(caller, memory_id, permanent=args.permanent, reason=args.reason)
    output.deletion(result, as_json=args.json)


def _restore(commands: Commands) -> None:
    sub = command(commands, "restore", "bring back a deleted memory")
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--reason", help="why; kept in the memory's history")
    runs(sub, restore)


def restore(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller, memory_id = _acting(services, caller, args.memory_id, "writer")
    back = services.memories.restore(caller, memory_id, reason=args.reason)
    output.memory(back, as_json=args.json, space=services.spaces.name_of(back.user_id))
