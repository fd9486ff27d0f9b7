"""What `remember relate`, `related` and `relationships search|show|update|delete` do."""

from __future__ import annotations

import argparse

from remember.caller import Caller
from remember.cli import output
from remember.models import Relationship
from remember.service import RelationshipDraft, Services
from remember.service.related import Criteria

SNIPPET = 70


def relate(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    draft = RelationshipDraft(
        args.memory_ids, args.relationship_type, args.observation, args.strength, args.confidence, args.tags
    )
    rel = services.relationships.create(caller, draft)
    if args.json:
        output.emit(rel.as_dict())
    else:
        print(f"Linked {len(rel.memory_ids)} memories: relationship {rel.id}")


def related(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    found = services.related.related(
        caller, args.memory_id, depth=args.depth, types=args.types, min_strength=args.min_strength
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


def run(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    rels = services.relationships
    if args.action == "search":
        _search(services, caller, args)
    elif args.action == "show":
        rel = rels.get(caller, args.relationship_id)
        history = rels.history(caller, rel.id)
        if args.json:
            output.emit({**rel.as_dict(), "history": [h.as_dict() for h in history]})
        else:
            _print(rel)
            for h in history:
                print(f"  v{h.version} {h.action} {h.reason or ''}".rstrip())
    elif args.action == "update":
        changes = {
            "relationship_type": args.relationship_type, "observation": args.observation,
            "strength": args.strength, "confidence": args.confidence, "tags": args.tags,
            "memory_ids": [m.strip() for m in args.members.split(",")] if args.members else None,
        }  # fmt: skip
        after = rels.update(caller, args.relationship_id, changes, reason=args.reason)
        if args.json:
            output.emit(after.as_dict())
        else:
            print(f"Relationship {after.id} is now version {after.version}.")
    else:
        gone = rels.delete(caller, args.relationship_id)
        if args.json:
            output.emit({"relationship_id": gone.id, "deleted": True})
        else:
            print(f"Deleted relationship {gone.id}; its memories are unchanged.")


def _search(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    criteria = Criteria(
        args.types, args.memory_id, args.min_strength, args.min_confidence, args.tags, args.created_after,
        args.created_before,
    )  # fmt: skip
    found = services.related.search(
        caller, args.query, alpha=args.alpha, criteria=criteria, limit=args.limit, offset=args.offset
    )
    if args.json:
        output.emit(
            {
                "results": [{**h.relationship.as_dict(), "score": h.score} for h in found.hits],
                "total": found.total,
                "has_more": found.has_more,
            }
        )
        return
    for h in found.hits:
        _print(h.relationship)
    if not found.hits:
        print("No relationships found.")
    if found.has_more:
        print(f"-- more: --offset {found.offset + len(found.hits)}")


def _print(rel: Relationship) -> None:
    print(f"{rel.id}  {rel.relationship_type}  strength {rel.strength:g}  {' '.join(rel.memory_ids)}")
    if rel.observation:
        print(f"  {_snippet(rel.observation)}")


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1] + "…"
