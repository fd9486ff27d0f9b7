"""`remember token create`, `list` and `revoke`: the HTTP server's API tokens, each action's grammar and
what it does."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from remember.cli import output
from remember.cli.grammar import Commands, runs
from remember.clock import to_text

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.models import ApiToken
    from remember.service import Services


def register(commands: Commands) -> None:
    actions = commands.add_group(
        "token",
        help="manage API tokens for the HTTP server",
        description="Manage API tokens: each lets an HTTP client act for one user (see docs/http.md).",
    )
    made = actions.add_parser(
        "create",
        help="make a token for --user (shown once)",
        description="Make a token for --user. It is printed once; only its hash is kept.",
    )
    made.add_argument("--name", help="what it is for, e.g. 'laptop' or 'claude.ai'")
    made.add_argument("--expires", metavar="SPAN", help="lifetime, e.g. 90m, 12h, 30d, 2w (default: none)")
    made.add_argument(
        "--trust-level",
        type=float,
        default=1.0,
        metavar="LEVEL",
        help="highest memory trust it reaches, 0-1 (default 1: all)",
    )
    made.add_argument(
        "--space",
        dest="spaces",
        action="append",
        metavar="SPACE",
        help="reach only this space (name, key or personal; repeatable; default: every space of --user)",
    )
    made.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(made, create)
    listing = actions.add_parser(
        "list", help="show --user's tokens (never their secrets)", description="Show tokens (never their secrets)."
    )
    listing.add_argument("--all-users", action="store_true", help="every user's tokens, not only --user's")
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(listing, list_)
    revoked = actions.add_parser(
        "revoke", help="stop a token working, at once", description="Revoke a token: refused from its next request."
    )
    revoked.add_argument(
        "token_id", metavar="ID", help="the token's id (from `remember token list`), or its first characters"
    )
    revoked.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(revoked, revoke)


def create(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.tokens import duration

    expires = duration(args.expires) if args.expires else None
    spaces = services.spaces.limit(caller, args.spaces)
    issued = services.tokens.create(
        caller.user, name=args.name, expires_in=expires, trust_level=args.trust_level, spaces=spaces
    )
    if args.json:
        output.emit({**issued.token.public(), "token": issued.secret})
        return
    print(issued.secret)
    reach = f" reaching {', '.join(services.spaces.limit_names(caller, spaces) or [])}" if spaces else ""
    print(
        f"Token {issued.token.id} for {caller.user}{reach}: keep it now, it is not shown again "
        "(send it as 'Authorization: Bearer <token>').",
        file=sys.stderr,
    )


def list_(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    found = services.tokens.list(None if args.all_users else caller.user)
    if args.json:
        output.emit([t.public() for t in found])
        return
    rows = [_row(services, t) for t in found]
    if rows:
        output.table(["ID", "USER", "TRUST", "SPACES", "MADE", "STATE", "NAME"], rows)
    else:
        print("No tokens. Make one with `remember token create --user USER`.", file=sys.stderr)


def _row(services: Services, t: ApiToken) -> list[str]:
    made = to_text(t.created_at)[:10]
    return [t.id, t.user_id, f"{t.trust_level:g}", _reach(services, t), made, _state(t), t.name or ""]


def _reach(services: Services, t: ApiToken) -> str:
    """The spaces a token reaches, by name (``all``: every space of its user)."""
    from remember.caller import Caller

    names = services.spaces.limit_names(Caller(t.user_id), t.spaces)
    return "all" if names is None else ",".join(names) or "none"


def _state(t: ApiToken) -> str:
    if t.revoked_at:
        return f"revoked {to_text(t.revoked_at)[:10]}"
    return f"expires {to_text(t.expires_at)[:16].replace('T', ' ')}" if t.expires_at else "active"


def revoke(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """Any user's token by its full id (the command line administers the database); --user's by a prefix."""
    revoked = services.tokens.revoke(services.ids.token(caller, args.token_id, any_user=True), user_id=None)
    if args.json:
        output.emit(revoked.public())
    else:
        print(f"Revoked token {revoked.id} of {revoked.user_id}.")
