"""Shared spaces: who may read and write where, and the members an admin manages.

A space's rows are keyed by its key where a user's are keyed by their id (``space_keys``), so the services
act in a space through a ``Caller`` whose ``user`` is the space's key and whose ``actor`` is the member
(``Caller.in_space``). Only this module makes such a caller, and only after reading the member's role from
the store, on every request: no right outlives a change. A space the caller is not a member of is answered
exactly as one that does not exist; so is a memory or relationship of such a space.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.config import USER_ID
from remember.errors import AccessDenied, NotFound, ValidationFailed, excerpt
from remember.models import MemoryQuery, Space, SpaceMember
from remember.space_keys import ROLES, SPACE_KEY, Role, at_least, is_space_key, new_key
from remember.store import Store

PERSONAL = "personal"  # the name of every user's own space where a space is asked for
MAX_NAME = 100
MAX_SPACES = 20  # spaces one ``spaces`` argument may name
_PURGE_PAGE = 500


@dataclass(frozen=True)
class SpaceView:
    """A space as a member sees it: its name, the member's role, and its members."""

    space: Space
    role: str
    members: tuple[SpaceMember, ...]

    def as_dict(self) -> dict[str, Any]:
        return {**self.space.as_dict(), "role": self.role, "members": [m.as_dict() for m in self.members]}


def unknown_space(given: str) -> NotFound:
    return NotFound(
        f"Unknown space {excerpt(given)}: no space of yours has that name or key. "
        "List yours with action list; a space's admin can add you."
    )


class SpaceService:
    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock

    # managing

    def create(self, caller: Caller, name: str) -> SpaceView:
        """A new shared space, with the caller as its one admin."""
        checked = _name(name)
        space = Space(new_key(), checked, caller.person, self.clock())
        self.store.spaces.create(space)
        return self._view(space, "admin")

    def list(self, caller: Caller) -> list[SpaceView]:
        """The shared spaces the caller belongs to, with their members."""
        return [self._view(space, role) for space, role in self.store.spaces.of_member(caller.person)]

    def add_member(self, caller: Caller, space: str, user: str, role: str) -> SpaceView:
        found = self._administered(caller, space, managing=True)
        member = _user(user)
        if self.store.spaces.role(found.key, member) is not None:
            raise ValidationFailed.single(
                "user", "exists", f"{member} is already a member of {found.name}; change their role with set_role."
            )
        self.store.spaces.put_member(self._member(caller, found, member, role), keep_an_admin=False)
        return self._view(found, "admin")

    def set_role(self, caller: Caller, space: str, user: str, role: str) -> SpaceView:
        found = self._administered(caller, space, managing=True)
        member = self._existing_member(found, user)
        if not self.store.spaces.put_member(self._member(caller, found, member, role), keep_an_admin=True):
            raise _last_admin(found, "demoted")
        return self._view(found, self.store.spaces.role(found.key, caller.person) or role)

    def remove_member(self, caller: Caller, space: str, user: str) -> SpaceView:
        found = self._administered(caller, space, managing=True)
        member = self._existing_member(found, user)
        if self.store.spaces.remove_member(found.key, member) is False:
            raise _last_admin(found, "removed")
        if member == caller.person:  # an admin who removed themselves sees the space no more
            return SpaceView(found, "", ())
        return self._view(found, "admin")

    def leave(self, caller: Caller, space: str) -> Space:
        found, _ = self._membership(caller, space)
        if self.store.spaces.remove_member(found.key, caller.person) is False:
            raise _last_admin(found, "leave")
        return found

    def delete(self, caller: Caller, space: str) -> Space:
        """Erase the space: its memories, then everything else under its key with its members, at once."""
        found = self._administered(caller, space)
        if caller.restricted:
            raise AccessDenied(
                f"Deleting space {found.name} erases memories of every trust level: it needs a full-trust token."
            )
        acting = caller.in_space(found.key)
        self._purge(acting)  # first: a delete that stops midway can be run again by the same admin
        self.store.spaces.delete(found.key)
        self.store.index.forget_owner(found.key)  # the index files kept beside the database
        return found

    # resolving: which owner keys a call reads and writes

    def writing(self, caller: Caller, space: str | None) -> Caller:
        """The caller acting where a new memory, relationship or template goes: ``space`` (a name, a key, or
        ``personal``), else the preference ``spaces.default``, else the personal space. A writer or admin there."""
        chosen = space if space is not None else self._default(caller)
        if chosen is None or chosen in (PERSONAL, caller.person):
            return caller.in_space(caller.person)
        found, role = self._membership(caller, chosen)
        if not at_least(role, "writer"):
            raise _read_only(found, role)
        return caller.in_space(found.key)

    def reading(self, caller: Caller, spaces: Sequence[str] | None) -> builtins.list[Caller]:
        """The caller acting in each space it reads: ``spaces`` (names, keys, ``personal``), or every one."""
        if spaces is None:
            return [caller.in_space(caller.person)] + [
                caller.in_space(s.key) for s, _ in self.store.spaces.of_member(caller.person)
            ]
        if len(spaces) > MAX_SPACES:
            raise ValidationFailed.single("spaces", "too_many", f"Name at most {MAX_SPACES} spaces.", len(spaces))
        keys: builtins.list[str] = []
        for given in spaces:
            key = caller.person if given in (PERSONAL, caller.person) else self._membership(caller, given)[0].key
            if key not in keys:
                keys.append(key)
        return [caller.in_space(k) for k in keys]

    def on_memory(self, caller: Caller, memory_id: Any, *, need: Role = "reader") -> Caller:
        """The caller acting in the space of the memory ``memory_id`` (checked for ``need``); the personal space
        when no space of the caller's holds it within its trust, so that the service answers "unknown"."""
        return self._on(caller, memory_id, need, self._holds_memory)

    def on_relationship(self, caller: Caller, relationship_id: Any, *, need: Role = "reader") -> Caller:
        return self._on(caller, relationship_id, need, self._holds_relationship)

    def name_of(self, key: str) -> str | None:
        found = self.store.spaces.get(key) if is_space_key(key) else None
        return found.name if found else None

    # inside

    def _on(self, caller: Caller, given: Any, need: Role, holds: Any) -> Caller:
        personal = caller.in_space(caller.person)
        if not isinstance(given, str) or not given or len(given) > 200 or holds(personal, given):
            return personal
        for space, role in self.store.spaces.of_member(caller.person):
            acting = caller.in_space(space.key)
            if holds(acting, given):
                if not at_least(role, need):
                    raise _read_only(space, role)
                return acting
        return personal

    def _holds_memory(self, acting: Caller, memory_id: str) -> bool:
        memory = self.store.memories.get(acting.user, memory_id)
        return memory is not None and acting.reaches(memory.trust)

    def _holds_relationship(self, acting: Caller, relationship_id: str) -> bool:
        return self.store.relationships.get(acting.user, relationship_id, trust=acting.trust) is not None

    def _default(self, caller: Caller) -> str | None:
        chosen = self.store.preferences.get(caller.person).get("spaces.default")
        return chosen if isinstance(chosen, str) else None

    def _membership(self, caller: Caller, given: Any) -> tuple[Space, str]:
        """The space ``given`` names among the caller's (by key or name) and the caller's role there."""
        if not isinstance(given, str) or not given.strip():
            raise ValidationFailed.single("space", "required", "Name a space: its name or key (list shows yours).")
        if is_space_key(given):
            role = self.store.spaces.role(given, caller.person) if SPACE_KEY.match(given) else None
            found = self.store.spaces.get(given) if role is not None else None
            if found is None or role is None:
                raise unknown_space(given)
            return found, role
        named = [(s, r) for s, r in self.store.spaces.of_member(caller.person) if s.name == given.strip()]
        if not named:
            raise unknown_space(given)
        if len(named) > 1:
            keys = ", ".join(s.key for s, _ in named)
            message = f"Several of your spaces are named {excerpt(given)}: {keys}. Give its key."
            raise ValidationFailed.single("space", "ambiguous", message)
        space, role = named[0]
        return space, role

    def _administered(self, caller: Caller, given: Any, *, managing: bool = False) -> Space:
        """The space, if the caller administers it; ``managing`` members also needs a full-trust token (a member
        added at full trust would read what the token may not)."""
        found, role = self._membership(caller, given)
        if role != "admin":
            raise AccessDenied(
                f"Only the admins of space {found.name} manage it; you are a {role} there. Ask one of its admins."
            )
        if managing and caller.restricted:
            raise AccessDenied(
                f"Managing the members of space {found.name} needs a full-trust token: a member's own token could "
                "read memories above this one's trust level."
            )
        return found

    def _existing_member(self, space: Space, user: Any) -> str:
        member = _user(user)
        if self.store.spaces.role(space.key, member) is None:
            raise NotFound(f"{member} is not a member of space {space.name}; add them with add_member.")
        return member

    def _member(self, caller: Caller, space: Space, user: str, role: Any) -> SpaceMember:
        if role not in ROLES:
            raise ValidationFailed.single(
                "role", "unknown", f"Unknown role {excerpt(role)}: use one of {', '.join(ROLES)}.", role
            )
        return SpaceMember(space.key, user, str(role), caller.person, self.clock())

    def _view(self, space: Space, role: str) -> SpaceView:
        return SpaceView(space, role, tuple(self.store.spaces.members(space.key)))

    def _purge(self, acting: Caller) -> None:
        while True:
            page = self.store.memories.page(acting.user, MemoryQuery(deleted="include", limit=_PURGE_PAGE))
            if not page.items:
                return
            for memory in page.items:
                self.store.memories.purge(acting.user, memory.id)


def _name(given: Any) -> str:
    if not isinstance(given, str) or not given.strip():
        raise ValidationFailed.single("name", "required", "Give the space a name, e.g. 'Family' or 'Team Atlas'.")
    name: str = given.strip()
    if len(name) > MAX_NAME or any(ord(c) < 32 or c == "\x7f" for c in name) or is_space_key(name):
        raise ValidationFailed.single(
            "name", "invalid", f"A space's name is up to {MAX_NAME} printable characters, not starting with ~.",
            excerpt(name),
        )  # fmt: skip
    if name == PERSONAL:
        raise ValidationFailed.single("name", "reserved", "'personal' names your own space; choose another name.")
    return name


def _user(user: Any) -> str:
    if not isinstance(user, str) or not USER_ID.match(user):
        raise ValidationFailed.single(
            "user", "invalid",
            f"User {excerpt(user)} is not a user id: 1-128 letters, digits or . _ @ + - "
            "(starting with a letter or digit).",
        )  # fmt: skip
    return user


def _last_admin(space: Space, what: str) -> ValidationFailed:
    verb = {"leave": "leave"}.get(what, f"be {what}")
    return ValidationFailed.single(
        "user", "last_admin",
        f"The last admin of space {space.name} cannot {verb}: make another member admin first (set_role), "
        "or delete the space.",
    )  # fmt: skip


def _read_only(space: Space, role: str) -> AccessDenied:
    return AccessDenied(
        f"You are a {role} in space {space.name}: only its writers and admins add or change its memories "
        "and relationships. Ask one of its admins (set_role)."
    )


__all__ = ["PERSONAL", "SpaceService", "SpaceView", "unknown_space"]
