"""`remember move` and `remember copy`: a memory into another space, each command's grammar and what it does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from remember.cli import output
from remember.cli.grammar import Commands, command, runs

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services


def register(commands: Commands) -> None:
    moving = command(commands, "move", "move a memory into another space, its history kept")
    _where(moving)
    moving.add_argument("--reason", help="why; kept in the memory's history")
    runs(moving, move)
    copying = command(commands, "copy", "copy a memory into another space (a new memory naming its source)")
    _where(copying)
    runs(copying, copy)


def _where(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("memory_id", metavar="ID", help="the memory's id, or its first characters (4 or more)")
    sub.add_argument("--to-space", required=True, metavar="SPACE", help="where to: a space's name, key or personal")


def move(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    memory_id = _whole_id(services, caller, args.memory_id)
    moved = services.moves.move(caller, memory_id, args.to_space, reason=args.reason)
    output.memory(moved, as_json=args.json)


def copy(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    stored = services.moves.copy(caller, _whole_id(services, caller, args.memory_id), args.to_space)
    output.memory(stored.memory, as_json=args.json, duplicate=stored.duplicate)


def _whole_id(services: Services, caller: Caller, given: str) -> str:
    """The whole id of the memory ``given`` (a shared one by its whole id; the first characters of an id are
    looked for in the caller's personal space)."""
    return services.ids.memory(services.spaces.on_memory(caller, given), given)
