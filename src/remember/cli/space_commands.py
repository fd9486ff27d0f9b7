"""`remember space create`, `list`, `add`, `accept`, `decline`, `remove`, `role`, `leave` and `delete`: shared
spaces, each action's grammar and what it does (the same service as the MCP tool remember_manage_space)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from remember.cli import output
from remember.cli.grammar import Commands, Handler, command, runs

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.models import Space
    from remember.service import Services
    from remember.service.spaces import SpaceView

ROLES = ("reader", "writer", "admin")
SPACE_HELP = "the space's name or key"


def register(commands: Commands) -> None:
    actions = commands.add_group(
        "space",
        help="share memories with other users in spaces",
        description="Shared spaces: memories kept with other users, each a reader, writer or admin (docs/spaces.md).",
    )
    made = _action(actions, "create", "make a shared space; you are its admin", create)
    made.add_argument("name", metavar="NAME", help="its name, e.g. Family")
    _action(actions, "list", "your shared spaces, your role, their members and your invitations", list_)
    added = _action(actions, "add", "invite a user to be a member (admins)", add)
    _space_and_user(added)
    added.add_argument("--role", choices=ROLES, default="reader", help="what they may do (default: reader)")
    accepted = _action(actions, "accept", "join a space you are invited to", accept)
    accepted.add_argument("space", metavar="SPACE", help=SPACE_HELP)
    declined = _action(actions, "decline", "say no to an invitation", decline)
    declined.add_argument("space", metavar="SPACE", help=SPACE_HELP)
    removed = _action(actions, "remove", "remove a member or take back an invitation (admins)", remove)
    _space_and_user(removed)
    role = _action(actions, "role", "change a member's role (admins)", set_role)
    _space_and_user(role)
    role.add_argument("role", metavar="ROLE", choices=ROLES, help="reader, writer or admin")
    left = _action(actions, "leave", "leave a space (its last admin cannot)", leave)
    left.add_argument("space", metavar="SPACE", help=SPACE_HELP)
    deleted = _action(actions, "delete", "delete a space and its memories, for everyone (admins)", delete)
    deleted.add_argument("space", metavar="SPACE", help=SPACE_HELP)


def _action(actions: Commands, name: str, summary: str, handler: Handler) -> argparse.ArgumentParser:
    sub = command(actions, name, summary)
    runs(sub, handler)
    return sub


def _space_and_user(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("space", metavar="SPACE", help=SPACE_HELP)
    sub.add_argument("member", metavar="USER", help="the member's user id")


def create(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _show([services.spaces.create(caller, args.name)], as_json=args.json)


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    found, offers = services.spaces.list(caller), services.spaces.invitations(caller)
    if args.json:
        output.emit({"spaces": [v.as_dict() for v in found], "invitations": [i.as_dict() for i in offers]})
        return
    if not found:
        print("No shared spaces. Make one with `remember space create NAME`.")
    else:
        _show(found, as_json=False)
    if offers:
        print()
        rows = [[i.space.key, i.space.name, i.invitation.role, i.invitation.invited_by] for i in offers]
        output.table(["INVITED TO", "NAME", "ROLE", "BY"], rows)
        print("Join with `remember space accept SPACE`, or `remember space decline SPACE`.")


def add(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    view = services.spaces.add_member(caller, args.space, args.member, args.role)
    if args.json:
        output.emit(view.as_dict())
        return
    print(f"Invited {args.member} to space {view.space.name} as {args.role}.")
    print(f"They join with `remember space accept {view.space.key}` (until then they see nothing of it).")


def accept(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _show([services.spaces.accept(caller, args.space)], as_json=args.json)


def decline(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _gone(services.spaces.decline(caller, args.space), "Declined the invitation to space {}.", as_json=args.json)


def remove(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _show([services.spaces.remove_member(caller, args.space, args.member)], as_json=args.json)


def set_role(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _show([services.spaces.set_role(caller, args.space, args.member, args.role)], as_json=args.json)


def leave(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _gone(services.spaces.leave(caller, args.space), "Left space {}.", as_json=args.json)


def delete(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    _gone(services.spaces.delete(caller, args.space), "Deleted space {}, with its memories.", as_json=args.json)


def _gone(space: Space, said: str, *, as_json: bool) -> None:
    """A space one is no longer in: its JSON, or ``said`` with its name and key."""
    if as_json:
        output.emit(space.as_dict())
    else:
        print(said.format(f"{space.name} ({space.key})"))


def _show(views: list[SpaceView], *, as_json: bool) -> None:
    if as_json:
        output.emit([v.as_dict() for v in views])
        return
    rows = [[v.space.key, v.space.name, v.role, _people(v)] for v in views]
    output.table(["SPACE", "NAME", "YOUR ROLE", "MEMBERS"], rows)


def _people(view: SpaceView) -> str:
    members = [f"{m.user} ({m.role})" for m in view.members]
    return ", ".join(members + [f"{i.user} ({i.role}, invited)" for i in view.invited])
