"""`remember prefs get` and `prefs set`: each action's grammar and what it does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from remember.cli import files, output
from remember.cli.grammar import Commands, command, runs

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services


def register(commands: Commands) -> None:
    actions = commands.add_group(
        "prefs", help="read or change preferences", description="Read or change preferences", actions="get or set"
    )
    shown = command(actions, "get", "show preferences (all, or one category)")
    shown.add_argument("category", nargs="?", metavar="CATEGORY", help="e.g. search or templates")
    runs(shown, get)
    changed = command(actions, "set", "change one preference")
    changed.add_argument("path", metavar="PATH", help="dot path, e.g. search.default_limit")
    changed.add_argument("value", metavar="VALUE", help='the value; JSON (20, true, ["a"]) or plain text')
    changed.add_argument("--reason", help="why; kept in the preference history")
    runs(changed, set_)


def get(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    output.preferences(services.preferences.get(caller, args.category), as_json=args.json)


def set_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    change = services.preferences.update(caller, args.path, files.loose_json(args.value), reason=args.reason)
    output.preference_change(change, as_json=args.json)
