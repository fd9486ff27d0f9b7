"""The grammar of `remember token ...`: the HTTP server's API tokens."""

from __future__ import annotations

from remember.cli.grammar import Commands


def add_token_commands(commands: Commands) -> None:
    actions = commands.add_group(
        "token",
        help="manage API tokens for the HTTP server",
        description="Manage API tokens: each lets an HTTP client act for one user (see docs/http.md).",
    )
    create = actions.add_parser(
        "create",
        help="make a token for --user (shown once)",
        description="Make a token for --user. It is printed once; only its hash is kept.",
    )
    create.add_argument("--name", help="what it is for, e.g. 'laptop' or 'claude.ai'")
    create.add_argument("--expires", metavar="SPAN", help="lifetime, e.g. 90m, 12h, 30d, 2w (default: none)")
    create.add_argument(
        "--trust-level",
        type=float,
        default=1.0,
        metavar="LEVEL",
        help="highest memory trust it reaches, 0-1 (default 1: all)",
    )
    create.add_argument("--json", action="store_true", help="print JSON for scripts")
    listing = actions.add_parser(
        "list", help="show --user's tokens (never their secrets)", description="Show tokens (never their secrets)."
    )
    listing.add_argument("--all-users", action="store_true", help="every user's tokens, not only --user's")
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    revoke = actions.add_parser(
        "revoke", help="stop a token working, at once", description="Revoke a token: refused from its next request."
    )
    revoke.add_argument("token_id", help="the token's id (from `remember token list`)")
    revoke.add_argument("--json", action="store_true", help="print JSON for scripts")
