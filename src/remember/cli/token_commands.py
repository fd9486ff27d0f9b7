"""What `remember token create`, `list` and `revoke` do."""

from __future__ import annotations

import argparse
import sys

from remember.caller import Caller
from remember.cli import output
from remember.clock import to_text
from remember.service import Services
from remember.service.tokens import duration


def run(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    tokens = services.tokens
    if args.action == "create":
        expires = duration(args.expires) if args.expires else None
        issued = tokens.create(caller.user, name=args.name, expires_in=expires, trust_level=args.trust_level)
        if args.json:
            output.emit({**issued.token.public(), "token": issued.secret})
            return
        print(issued.secret)
        print(
            f"Token {issued.token.id} for {caller.user}: keep it now, it is not shown again "
            "(send it as 'Authorization: Bearer <token>').",
            file=sys.stderr,
        )
    elif args.action == "list":
        found = tokens.list(None if args.all_users else caller.user)
        if args.json:
            output.emit([t.public() for t in found])
            return
        for t in found:
            state = "revoked" if t.revoked_at else f"expires {to_text(t.expires_at)}" if t.expires_at else "active"
            print(f"{t.id}  {t.user_id}  trust<={t.trust_level:g}  {state}  {t.name or ''}".rstrip())
        if not found:
            print("No tokens. Make one with `remember token create --user USER`.", file=sys.stderr)
    else:
        revoked = tokens.revoke(args.token_id, user_id=None)
        if args.json:
            output.emit(revoked.public())
        else:
            print(f"Revoked token {revoked.id} of {revoked.user_id}.")
