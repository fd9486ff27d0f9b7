"""Ids given by their first characters (``remember get 88127a57``), for the caller's user only.

A full id is taken as it is. Otherwise at least ``MIN_PREFIX`` characters that start exactly
one of the caller's ids stand for it: of a memory within its trust (in the trash too), a
relationship it can see, one of its tokens. A prefix that starts several is refused with a few
of them listed, each with what it is, so that the caller can give more characters; another
user's ids never match. The command line resolves every id it is given here; the MCP tools
and the HTTP API take full ids only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from remember.caller import Caller
from remember.clock import to_text
from remember.errors import FieldError, NotFound, ValidationFailed, excerpt
from remember.models import ApiToken, Memory, Relationship
from remember.nouns import counted, plural
from remember.service import visibility
from remember.service.relationships import member_id
from remember.store import Store

MIN_PREFIX = 4  # fewer characters would match too much to mean one thing
SHOWN = 5  # matches listed when a prefix is ambiguous
SNIPPET = 50


class IdPrefixes:
    """Full ids for ids or id prefixes given by a caller, among its own records."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def memory(self, caller: Caller, given: str, *, field: str = "memory_id") -> str:
        """The id of the caller's memory that ``given`` is, or that it is the only one to start with."""
        clean = usable(given, field)
        exact = visibility.reachable(caller, self.store.memories.get(caller.user, clean))
        if exact is not None:
            return exact.id
        found = self.store.memories.ids_with_prefix(caller.user, clean, limit=SHOWN + 1, max_trust=caller.trust)
        return one_of(found, clean, field, "memory", lambda ids: self._memories(caller, ids))

    def relationship(self, caller: Caller, given: str, *, field: str = "relationship_id") -> str:
        """The id of the caller's relationship that ``given`` is, or that it is the only one to start with."""
        clean = usable(given, field)
        if self.store.relationships.get(caller.user, clean, trust=caller.trust) is not None:
            return clean
        found = self.store.relationships.ids_with_prefix(caller.user, clean, limit=SHOWN + 1, trust=caller.trust)
        return one_of(found, clean, field, "relationship", lambda ids: self._relationships(caller, ids))

    def token(self, caller: Caller, given: str, *, any_user: bool = False, field: str = "token_id") -> str:
        """The id of the caller's token that ``given`` is, or that it is the only one to start with; with
        ``any_user``, a full id may be any user's token (a prefix is still the caller's only)."""
        clean = usable(given, field)
        exact = self.store.tokens.get(clean)
        if exact is not None and (any_user or exact.user_id == caller.user):
            return exact.id
        found = self.store.tokens.ids_with_prefix(caller.user, clean, limit=SHOWN + 1)
        return one_of(found, clean, field, "token", self._tokens)

    def _memories(self, caller: Caller, ids: Sequence[str]) -> list[str]:
        by_id = {m.id: m for m in self.store.memories.get_many(caller.user, ids)}
        return [_memory_line(by_id[i]) if i in by_id else i for i in ids]

    def _relationships(self, caller: Caller, ids: Sequence[str]) -> list[str]:
        by_id = {r.id: r for r in self.store.relationships.by_id(caller.user, ids, trust=caller.trust)}
        return [_relationship_line(by_id[i]) if i in by_id else i for i in ids]

    def _tokens(self, ids: Sequence[str]) -> list[str]:
        tokens = [self.store.tokens.get(i) for i in ids]
        return [_token_line(t) for t in tokens if t is not None]


def usable(given: str, field: str) -> str:
    """``given`` trimmed, if it can be an id at all; else ValidationFailed naming ``field``."""
    errors: list[FieldError] = []
    clean = member_id(given, field, errors)
    if errors or clean is None:
        raise ValidationFailed("The id is not usable.", errors)
    return clean


def one_of(
    found: Sequence[str], given: str, field: str, noun: str, describe: Callable[[Sequence[str]], list[str]]
) -> str:
    """The one id ``given`` starts (``found``: up to SHOWN + 1 of them); NotFound when none, and
    ValidationFailed ``ambiguous`` listing them (``describe``: a line for each) when several."""
    if len(given) < MIN_PREFIX or not found:
        raise not_found(noun, given)
    if len(found) == 1:
        return found[0]
    raise ambiguous(noun, given, field, describe(found[:SHOWN]), more=len(found) > SHOWN)


def not_found(noun: str, given: str) -> NotFound:
    short = len(given) < MIN_PREFIX
    hint = f" (a prefix needs at least {MIN_PREFIX} characters)" if short else " or an id starting with it"
    return NotFound(f"No {noun} with id {excerpt(given)}{hint}. {WHERE[noun]}")


def ambiguous(noun: str, given: str, field: str, lines: Sequence[str], *, more: bool) -> ValidationFailed:
    """A prefix that starts several ids: what each of them is, and to give more characters."""
    count = f"{'more than ' if more else ''}{len(lines)} of your {plural(noun)}"
    listed = "\n".join(f"  {line}" for line in lines)
    message = f"{excerpt(given)} starts the ids of {count}; give more of the id:\n{listed}"
    return ValidationFailed.single(field, "ambiguous", message, given)


WHERE = {
    "memory": "Find ids by listing or searching memories.",
    "relationship": "Find ids by searching relationships or in a memory's relationships.",
    "token": "`remember token list` shows the ids.",
    "template": "`remember template list` shows them.",
}


def _memory_line(m: Memory) -> str:
    text = " ".join((m.title or m.content).split())
    text = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
    deleted = "  (deleted)" if m.is_deleted else ""
    return f"{m.id}  {m.occurred_at.date().isoformat()}  {m.type}  {text}{deleted}"


def _relationship_line(r: Relationship) -> str:
    about = " ".join(r.observation.split())
    about = about if len(about) <= SNIPPET else about[: SNIPPET - 1] + "…"
    members = counted(len(r.memory_ids), "memory")
    return f"{r.id}  {r.relationship_type} of {members}" + (f": {about}" if about else "")


def _token_line(t: ApiToken) -> str:
    state = "revoked" if t.revoked_at else "active"
    return f"{t.id}  {t.name or 'unnamed'}, made {to_text(t.created_at)[:10]}, {state}"
