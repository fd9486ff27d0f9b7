"""`remember relate`, `related` and `relationships search|show|update|delete` (docs/relationships.md): each
command's grammar and what it does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from remember.cli import output
from remember.cli.grammar import Commands, runs
from remember.cli.search_commands import MIN_SCORE_HELP, SPACES_HELP, spaces_read
from remember.cli.when import when_of, when_options
from remember.errors import ValidationFailed
from remember.nouns import counted
from remember.space_keys import is_space_key

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.models import Relationship
    from remember.service import Services
    from remember.space_keys import Role

SNIPPET = 70
MIN_MEMBERS = 2


def register(commands: Commands) -> None:
    _relate(commands)
    _related(commands)
    actions = commands.add_group(
        "relationships", help="search, show, update or delete relationships", description="Manage relationships."
    )
    for declare in (_search, _show, _update, _delete):
        declare(actions)


def _fields(sub: argparse.ArgumentParser, *, new: bool) -> None:
    """The options ``relate`` (``new``) and ``relationships update`` share; defaults only where they apply."""
    sub.add_argument("--observation", help="what links them (searchable)")
    sub.add_argument("--strength", type=float, help="0-1" + (" (default 0.5)" if new else ""))
    sub.add_argument("--confidence", type=float, help="0-1" + (" (default 0.8)" if new else ""))
    tag = "a tag (repeat for more)" if new else "its tags (repeatable; replaces them)"
    sub.add_argument("--tag", "--tags", action="append", dest="tags", metavar="TAG", help=tag)
    since = "when it became true" + (" (default: when its last member became true)" if new else "")
    sub.add_argument("--valid-from", metavar="DATE", help=since)
    sub.add_argument("--valid-until", metavar="DATE", help="when it stopped being true (it is kept)")


def _relate(commands: Commands) -> None:
    sub = commands.add_parser(
        "relate", help="link two or more memories", description="Link two or more of your memories."
    )
    sub.add_argument(
        "memory_ids", nargs="+", metavar="ID", help="the memories to link (2 to 20; ids or their first characters)"
    )
    sub.add_argument("--type", required=True, dest="relationship_type", help="how they relate, e.g. works_with")
    _fields(sub, new=True)
    sub.add_argument(
        "--space", metavar="SPACE", help="the space of the memories (name, key or personal; default: where they are)"
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, relate)


def relate(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """A relationship in the space of its memories (whole ids of a shared space's; first characters are looked
    up in the space found, or named by --space)."""
    from remember.service import RelationshipDraft

    if len(args.memory_ids) < MIN_MEMBERS:
        raise ValidationFailed.single("memory_ids", "invalid", "Give at least two memory IDs to link.")
    if args.space is not None:
        caller = services.spaces.writing(caller, args.space)
    else:
        caller = services.spaces.on_memories(caller, args.memory_ids)
    members = _members(services, caller, args.memory_ids, "memory_ids")
    draft = RelationshipDraft(
        members, args.relationship_type, args.observation, args.strength, args.confidence, args.tags,
        args.valid_from, args.valid_until,
    )  # fmt: skip
    rel = services.relationships.create(caller, draft)
    if args.json:
        output.emit(_public(rel))
    else:
        print(f"Linked {counted(len(rel.memory_ids), 'memory')}: relationship {rel.id}")


def _related(commands: Commands) -> None:
    sub = commands.add_parser(
        "related", help="memories linked to a memory", description="The memories linked to one, with their paths."
    )
    sub.add_argument("memory_id", metavar="ID", help="the memory to start from (an id or its first characters)")
    sub.add_argument("--depth", type=int, default=1, help="relationships away, 1-3 (default 1)")
    sub.add_argument("--type", action="append", dest="types", metavar="TYPE", help="only this type (repeatable)")
    sub.add_argument("--min-strength", type=float, default=0.0, help="lowest strength, 0-1")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    when_options(sub)
    runs(sub, related)


def related(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller = services.spaces.on_memory(caller, args.memory_id)
    memory_id = services.ids.memory(caller, args.memory_id)
    found = services.related.related(
        caller, memory_id, depth=args.depth, types=args.types, min_strength=args.min_strength, when=when_of(args)
    )
    if args.json:
        output.emit(
            [
                {"memory": r.memory.as_dict(), "depth": r.depth,
                 "path": [{"relationship_id": s.relationship_id, "type": s.relationship_type, "to": s.memory_id}
                          for s in r.path]}
                for r in found
            ]
        )  # fmt: skip
        return
    for r in found:
        via = " > ".join(s.relationship_type for s in r.path)
        print(f"{r.memory.id}  {r.depth}  {via}  {_snippet(r.memory.title or r.memory.content)}")
    if not found:
        print("No linked memories.")


def _search(actions: Commands) -> None:
    sub = actions.add_parser(
        "search", help="find relationships by observation and filters", description="Search relationships."
    )
    sub.add_argument("query", nargs="?", metavar="QUERY", help="words to match observations (none: newest first)")
    sub.add_argument(
        "--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default: chosen for each search)"
    )
    sub.add_argument("--type", action="append", dest="types", metavar="TYPE", help="only this type (repeatable)")
    sub.add_argument(
        "--memory", dest="memory_id", metavar="ID", help="only those of this memory (an id or its first characters)"
    )
    sub.add_argument("--min-strength", type=float, default=0.0, help="lowest strength, 0-1")
    sub.add_argument("--min-confidence", type=float, default=0.0, help="lowest confidence, 0-1")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="with this tag (any; repeatable)")
    sub.add_argument("--after", dest="created_after", metavar="DATE", help="created on or after (ISO 8601)")
    sub.add_argument("--before", dest="created_before", metavar="DATE", help="created before (ISO 8601)")
    sub.add_argument("--limit", type=int, default=10, help="how many, 1-100 (default 10)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")
    sub.add_argument("--min-score", type=float, help=MIN_SCORE_HELP)
    sub.add_argument(
        "--space", action="append", dest="spaces", metavar="SPACE", help=SPACES_HELP + "; with --memory, its space"
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, search)


def search(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """The relationships of every space read (--space), or of the space of --memory."""
    from remember.service import space_reads
    from remember.service.related import Criteria

    callers, memory_id = spaces_read(services, caller, args, "--memory searches its memory's space: drop --space.")
    criteria = Criteria(
        args.types, memory_id, args.min_strength, args.min_confidence, args.tags, args.created_after,
        args.created_before,
    )  # fmt: skip
    found = space_reads.relationships(
        services.related, callers, args.query, alpha=args.alpha, criteria=criteria, limit=args.limit,
        offset=args.offset, min_score=args.min_score,
    )  # fmt: skip
    if args.json:
        output.emit(
            {
                "results": [{**_public(h.relationship), "score": h.score} for h in found.hits],
                "total": found.total,
                "has_more": found.has_more,
            }
        )
        return
    names = {key: services.spaces.name_of(key) or key for key in {h.relationship.user_id for h in found.hits}}
    for h in found.hits:
        _print(h.relationship, names if len(callers) > 1 else None)
    if not found.hits:
        print("No relationships found.")
    if found.has_more:
        print(f"-- more: --offset {found.offset + len(found.hits)}")


def _show(actions: Commands) -> None:
    sub = actions.add_parser("show", help="one relationship and its history", description="Show a relationship.")
    sub.add_argument("relationship_id", metavar="ID", help="the relationship's id, or its first characters (4 or more)")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, show)


def show(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller, relationship_id = _acting(services, caller, args.relationship_id, "reader")
    rel = services.relationships.get(caller, relationship_id)
    history = services.relationships.history(caller, rel.id)
    if args.json:
        output.emit({**_public(rel), "history": [h.as_dict() for h in history]})
        return
    _print(rel, {rel.user_id: services.spaces.name_of(rel.user_id) or rel.user_id})
    for h in history:
        by = f" by {h.actor}" if h.actor else ""
        print(f"  v{h.version} {h.action}{by} {h.reason or ''}".rstrip())


def _update(actions: Commands) -> None:
    sub = actions.add_parser(
        "update", help="change some of its fields", description="Change some fields; the old values are kept."
    )
    sub.add_argument("relationship_id", metavar="ID", help="the relationship's id, or its first characters (4 or more)")
    sub.add_argument("--type", dest="relationship_type", help="a new type")
    sub.add_argument("--members", metavar="ID,ID", help="new members, comma-separated (ids or their first characters)")
    _fields(sub, new=False)
    sub.add_argument("--reopen", action="store_true", help="true again: remove its end")
    sub.add_argument("--reason", help="why (kept in its history)")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, update)


def update(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller, relationship_id = _acting(services, caller, args.relationship_id, "writer")
    if args.members:
        services.spaces.relinking(caller, relationship_id, args.members.split(","))
    changes = {
        "relationship_type": args.relationship_type, "observation": args.observation,
        "strength": args.strength, "confidence": args.confidence, "tags": args.tags,
        "memory_ids": _members(services, caller, args.members.split(","), "members") if args.members else None,
        "valid_from": args.valid_from, "valid_until": args.valid_until,
    }  # fmt: skip
    if args.reopen and args.valid_until is not None:
        raise ValidationFailed.single("--reopen", "conflict", "Give --valid-until or --reopen, not both.")
    clear = ("valid_until",) if args.reopen else ()
    after = services.relationships.update(caller, relationship_id, changes, reason=args.reason, clear=clear)
    if args.json:
        output.emit(_public(after))
    else:
        print(f"Relationship {after.id} is now version {after.version}.")


def _delete(actions: Commands) -> None:
    sub = actions.add_parser("delete", help="delete it (its memories stay)", description="Delete a relationship.")
    sub.add_argument("relationship_id", metavar="ID", help="the relationship's id, or its first characters (4 or more)")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, delete)


def delete(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    caller, relationship_id = _acting(services, caller, args.relationship_id, "writer")
    gone = services.relationships.delete(caller, relationship_id)
    if args.json:
        output.emit({"relationship_id": gone.id, "deleted": True})
    else:
        print(f"Deleted relationship {gone.id}; its memories are unchanged.")


def _acting(services: Services, caller: Caller, given: str, need: Role) -> tuple[Caller, str]:
    """The caller acting in the space that holds the relationship ``given`` by its whole id (a shared space's are
    taken whole), and its id; an id's first characters are looked for in the caller's personal space."""
    acting = services.spaces.on_relationship(caller, given, need=need)
    return acting, services.ids.relationship(acting, given)


def _public(rel: Relationship) -> dict[str, object]:
    """The relationship's JSON form, naming its space (the key) when it is a shared space's."""
    data = rel.as_dict()
    return {**data, "space": rel.user_id} if is_space_key(rel.user_id) else data


def _members(services: Services, caller: Caller, given: list[str], field: str) -> list[str]:
    """The full ids of the memories given (ids or id prefixes); a repeated one stays, for the service to refuse."""
    return [services.ids.memory(caller, m, field=f"{field}[{i}]") for i, m in enumerate(given)]


def _print(rel: Relationship, spaces: dict[str, str] | None = None) -> None:
    """A line for the relationship (with the name of its space when ``spaces`` names it), its observation below."""
    where = f"[{spaces[rel.user_id]}]  " if spaces and is_space_key(rel.user_id) else ""
    print(f"{rel.id}  {rel.relationship_type}  {where}strength {rel.strength:g}  {' '.join(rel.memory_ids)}")
    if rel.observation:
        print(f"  {_snippet(rel.observation)}")


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1] + "…"
