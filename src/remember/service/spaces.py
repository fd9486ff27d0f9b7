"""Shared spaces: who may read and write where, and the members an admin manages.

A space's rows are keyed by its key where a user's are keyed by their id (``space_keys``), so the services
act in a space through a ``Caller`` whose ``user`` is the space's key and whose ``actor`` is the member
(``Caller.in_space``). Only this module makes such a caller, and only after reading the member's role from
the store, on every request: no right outlives a change. A space the caller is not a member of is answered
exactly as one that does not exist; so is a memory or relationship of such a space.
"""

from __future__ import annotations

import builtins
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.config import USER_ID
from remember.errors import AccessDenied, Conflict, LimitReached, NotFound, UnknownSpace, ValidationFailed, excerpt
from remember.models import InvitationBounds, MemoryQuery, Space, SpaceInvitation, SpaceMember
from remember.service.relationships import unknown as unknown_relationship
from remember.service.visibility import unknown as unknown_memory
from remember.space_keys import ROLES, SPACE_KEY, Role, at_least, is_space_key, new_key
from remember.store import Store
from remember.templates import BUILTIN_PREFIX

PERSONAL = "personal"  # the name of every user's own space where a space is asked for
MAX_NAME = 100
MAX_SPACES = 20  # spaces one ``spaces`` argument may name
MOST_MEMBERSHIPS = 20  # shared spaces one user may belong to (every search reads them all)
MOST_PENDING = 20  # invitations one user may hold unanswered
BOUNDS = InvitationBounds(per_space=100, per_inviter=3, per_invitee=MOST_PENDING)
_UNPRINTED = ("Cc", "Cf", "Zl", "Zp")  # controls, bidi and other format marks, line breaks: not in a name
_PURGE_TRIES = 5  # rounds of erasing a space's memories while members still write
MAX_MEMBERS = 20  # memories a relationship links at most (the relationship service says so to the caller)
_PURGE_PAGE = 500


@dataclass(frozen=True)
class SpaceView:
    """A space as a member sees it: its name, the member's role, and its members."""

    space: Space
    role: str
    members: tuple[SpaceMember, ...]
    invited: tuple[SpaceInvitation, ...] = ()  # shown to its admins

    def as_dict(self) -> dict[str, Any]:
        found = {**self.space.as_dict(), "role": self.role, "members": [m.as_dict() for m in self.members]}
        return found | ({"invited": [i.as_dict() for i in self.invited]} if self.invited else {})


@dataclass(frozen=True)
class InvitationView:
    """An invitation as its user sees it: the space, the role offered, and who offered it."""

    space: Space
    invitation: SpaceInvitation

    def as_dict(self) -> dict[str, Any]:
        offered = self.invitation
        return {**self.space.as_dict(), "role": offered.role, "invited_by": offered.invited_by,
                "invited_at": self.invitation.as_dict()["invited_at"]}  # fmt: skip


class SpaceService:
    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock

    # managing

    def create(self, caller: Caller, name: str) -> SpaceView:
        """A new shared space, with the caller as its one admin."""
        checked = _name(name)
        if caller.spaces is not None:
            raise AccessDenied(
                f"This token reaches only the spaces it was made for: it cannot create space {checked} (it would not "
                "reach it). Create it with a token that is not limited to spaces, or on the command line."
            )
        space = Space(new_key(), checked, caller.person, self.clock())
        if not self.store.spaces.create(space, most_spaces=MOST_MEMBERSHIPS):
            raise _too_many_spaces()
        return self._view(space, "admin")

    def list(self, caller: Caller) -> list[SpaceView]:
        """The shared spaces the caller belongs to, with their members."""
        return [self._view(space, role) for space, role in self._mine(caller)]

    def add_member(self, caller: Caller, space: str, user: str, role: str) -> SpaceView:
        """Invite ``user`` with ``role`` (again: with this role); they are a member once they accept."""
        found = self._administered(caller, space, managing=True)
        member = _user(user)
        offered = self._member(caller, found, member, role)
        invitation = SpaceInvitation(found.key, member, offered.role, caller.person, offered.added_at)
        written = self.store.spaces.invite(invitation, BOUNDS)
        if written == "member":
            raise ValidationFailed.single(
                "user", "exists", f"{member} is already a member of {found.name}; change their role with set_role."
            )
        if written != "invited":
            raise _too_many_invitations(found, member, written)
        return self._view(found, "admin")

    def invitations(self, caller: Caller) -> builtins.list[InvitationView]:
        """The invitations the caller has not answered (none to a token limited to spaces: it joins none)."""
        if caller.spaces is not None:
            return []
        return [InvitationView(space, offered) for space, offered in self.store.spaces.invitations_of(caller.person)]

    def accept(self, caller: Caller, space: str) -> SpaceView:
        """Become a member of a space one is invited to, with the role offered."""
        found = self._invited(caller, space)
        if caller.restricted or caller.spaces is not None:
            raise AccessDenied(
                f"Joining space {found.name} needs a full-trust token not limited to spaces: its memories would join "
                "every search of yours."
            )
        role = self.store.spaces.accept(found.key, caller.person, self.clock(), most_spaces=MOST_MEMBERSHIPS)
        if role is None:  # answered meanwhile
            raise unknown_invitation(space)
        if not role:
            raise _too_many_spaces()
        return self._view(found, role)

    def decline(self, caller: Caller, space: str) -> Space:
        """Say no to an invitation (the space's admins may invite again)."""
        found = self._invited(caller, space)
        self.store.spaces.withdraw(found.key, caller.person)
        return found

    def set_role(self, caller: Caller, space: str, user: str, role: str) -> SpaceView:
        found = self._administered(caller, space, managing=True)
        member = self._existing_member(found, user)
        changed = self.store.spaces.set_role(found.key, member, self._member(caller, found, member, role).role)
        if changed is None:  # removed, or left, meanwhile
            raise NotFound(f"{member} is not a member of space {found.name}; add them with add_member.")
        if not changed:
            raise _last_admin(found, "demoted")
        return self._view(found, self.store.spaces.role(found.key, caller.person) or role)

    def remove_member(self, caller: Caller, space: str, user: str) -> SpaceView:
        """Remove a member, or take back an invitation not yet answered."""
        found = self._administered(caller, space, managing=True)
        if isinstance(user, str) and self.store.spaces.withdraw(found.key, user):
            return self._view(found, "admin")
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
        for _ in range(_PURGE_TRIES):
            self._purge(acting)  # first: a delete that stops midway can be run again by the same admin
            if self.store.spaces.delete(found.key) is not None:
                self.store.index.forget_owner(found.key)  # the index files kept beside the database
                return found
        raise Conflict(f"Members of space {found.name} are still adding memories to it; delete it again.")

    # resolving: which owner keys a call reads and writes

    def writing(self, caller: Caller, space: str | None) -> Caller:
        """The caller acting where a new memory, relationship or template goes: ``space`` (a name, a key, or
        ``personal``), else the preference ``spaces.default`` (while it names a space of the caller's), else the
        personal space. A writer or admin there."""
        chosen = space if space is not None else self._default_or_personal(caller)
        if chosen is None or chosen in (PERSONAL, caller.person):
            return self.personal(caller, given=chosen or PERSONAL)
        found, role = self._membership(caller, chosen)
        if not at_least(role, "writer"):
            raise _read_only(found, role)
        return caller.in_space(found.key)

    def reading(self, caller: Caller, spaces: Sequence[str] | None) -> builtins.list[Caller]:
        """The caller acting in each space it reads: ``spaces`` (names, keys, ``personal``), or every one."""
        if spaces is None:
            keys = [caller.person] if caller.home else []
            keys += [s.key for s, _ in self._mine(caller)]
            if not keys:
                raise _reaches_none()
            return [caller.in_space(k) for k in keys]
        if len(spaces) > MAX_SPACES:
            raise ValidationFailed.single("spaces", "too_many", f"Name at most {MAX_SPACES} spaces.", len(spaces))
        keys = []
        for given in spaces:
            key = self.personal(caller, given=given).user if given in (PERSONAL, caller.person) else None
            key = key or self._membership(caller, given)[0].key
            if key not in keys:
                keys.append(key)
        return [caller.in_space(k) for k in keys]

    def administering(self, caller: Caller, space: str | None) -> Caller:
        """The caller acting where a template is made or changed: ``space`` (a name, a key, or ``personal``),
        else the personal space (``spaces.default`` is for memories). An admin there."""
        if space is None or space in (PERSONAL, caller.person):
            return self.personal(caller, given=space or PERSONAL)
        found, role = self._membership(caller, space)
        if role != "admin":
            raise _not_admin(found, role)
        return caller.in_space(found.key)

    def writing_with(self, caller: Caller, space: str | None, template_id: Any) -> Caller:
        """``writing``, for a memory made with the template ``template_id``: without ``space``, where the template
        is (a built-in: ``writing``'s choice); a template of another space than ``space`` is refused."""
        if not isinstance(template_id, str) or template_id.startswith(BUILTIN_PREFIX):
            return self.writing(caller, space)
        holder = self.on_template(caller, template_id)
        if not self._holds_template(holder, template_id):  # no space of the caller's has it: "unknown" later
            return self.writing(caller, space)
        acting = self.writing(caller, space if space is not None else _key_or_personal(holder))
        self.require_template_here(acting, template_id)
        return acting

    def require_template_here(self, acting: Caller, template_id: Any) -> None:
        """Refuse ``template_id`` for a memory of ``acting``'s space when it is one of another space of the
        person's (their personal ones included), saying where it is; an unknown id is left to the service."""
        if not isinstance(template_id, str) or template_id.startswith(BUILTIN_PREFIX):
            return
        holder = self.on_template(acting, template_id)
        if holder.user == acting.user or not self._holds_template(holder, template_id):
            return
        here = self._space_name(acting)
        if not is_space_key(holder.user):
            message = (
                f"Template {template_id} is one of your personal templates; a memory of space {here} can use "
                "that space's templates and the built-ins. An admin of the space can copy it there "
                "(remember_copy_template with space, or `remember template copy --space`)."
            )
        else:
            message = (
                f"Template {template_id} belongs to space {self.name_of(holder.user)}: a memory made with it goes "
                "there (leave out space, or name that space)."
            )
        raise ValidationFailed.single("template_id", "other_space", message, template_id)

    def on_template(self, caller: Caller, template_id: Any, *, need: Role = "reader") -> Caller:
        """The caller acting in the space of the template ``template_id`` (checked for ``need``: its admins
        change it); the personal space when no space of the caller's holds it, so that the service answers
        "unknown"."""
        if isinstance(template_id, str) and template_id.startswith(BUILTIN_PREFIX):  # everyone's, in no space
            return self.personal(caller)
        return self._on(caller, template_id, need, self._holds_template, _no_template)

    def personal(self, caller: Caller, *, given: str = PERSONAL) -> Caller:
        """The caller in its personal space; "unknown space" when its token is limited to other spaces."""
        if not caller.home:
            raise UnknownSpace(given)
        return caller.in_space(caller.person)

    def limit(self, caller: Caller, spaces: Sequence[str] | None) -> frozenset[str] | None:
        """The keys of the spaces a new token of the caller's is limited to: ``spaces`` (names, keys, ``personal``)
        among those the caller reaches; with none given, the caller's own limit (a token made with a limited one is
        limited as much)."""
        if spaces is None:
            return caller.spaces
        if isinstance(spaces, str) or not spaces:
            raise ValidationFailed.single(
                "spaces", "required", "Name the spaces the token reaches: a list of names, keys or 'personal'."
            )
        return frozenset(reader.user for reader in self.reading(caller, spaces))

    def limit_names(self, caller: Caller, keys: frozenset[str] | None) -> builtins.list[str] | None:
        """How a token's limit reads for its user: ``personal`` and each space's name (its key if it is gone)."""
        if keys is None:
            return None
        return sorted(PERSONAL if k == caller.person else self.name_of(k) or k for k in keys)

    def keys(self, caller: Caller) -> dict[str, str]:
        """Every space the caller's person is in, by owner key: their own id (``personal``), then their spaces'
        keys with their names."""
        own = {caller.person: PERSONAL} if caller.home else {}
        return own | {s.key: s.name for s, _ in self._mine(caller)}

    def role(self, caller: Caller, space: str) -> str:
        """The caller's role in ``space`` (a name, a key, or ``personal``: its owner, as an admin)."""
        if space in (PERSONAL, caller.person):
            self.personal(caller, given=space)
            return "admin"
        return self._membership(caller, space)[1]

    def reading_from(
        self, caller: Caller, memory_id: str | None, spaces: Sequence[str] | None
    ) -> builtins.list[Caller]:
        """Where a read about a memory goes: that memory's space (``spaces`` then left aside), else ``reading``."""
        if memory_id is not None:
            return [self.on_memory(caller, memory_id)]
        return self.reading(caller, spaces)

    def administers(self, acting: Caller) -> bool:
        """Whether ``acting`` (a caller acting in a space: ``writing``'s answer) is an admin there; in one's
        personal space, yes."""
        return acting.actor is None or self.role(acting, acting.user) == "admin"

    def on_memory(self, caller: Caller, memory_id: Any, *, need: Role = "reader") -> Caller:
        """The caller acting in the space of the memory ``memory_id`` (checked for ``need``); the personal space
        when no space of the caller's holds it within its trust, so that the service answers "unknown" (or, for a
        token that does not reach the personal space, "no memory" here)."""
        return self._on(caller, memory_id, need, self._holds_memory, _no_memory)

    def on_memories(self, caller: Caller, memory_ids: Sequence[Any], *, need: Role = "writer") -> Caller:
        """The caller acting in the one space that holds the memories ``memory_ids`` (a relationship's members),
        checked for ``need``; refused when they are in several. Ids no space of the caller's holds are left for
        the service to answer "unknown"."""
        held = self._holding(caller, memory_ids, need)
        return next(iter(held.values()), None) or self.personal(caller)

    def relinking(self, acting: Caller, relationship_id: Any, memory_ids: Sequence[Any]) -> None:
        """New members for the relationship ``relationship_id`` of the space ``acting`` acts in: refused when they
        are in several spaces, or in another one than the relationship's (an unknown relationship is left for
        the service to answer "unknown")."""
        given = relationship_id if isinstance(relationship_id, str) and 0 < len(relationship_id) <= 200 else None
        if given is None or not self._holds_relationship(acting, given):
            return
        held = self._holding(acting, memory_ids, "reader")
        if held and acting.user not in held:
            there = self._label(next(iter(held)))
            raise ValidationFailed.single(
                "memory_ids", "spaces", f"These memories are in {there}, and the relationship in "
                f"{self._label(acting.user)}: a relationship links memories of its own space.",
            )  # fmt: skip

    def _holding(self, caller: Caller, memory_ids: Sequence[Any], need: Role) -> dict[str, Caller]:
        """The spaces holding some of ``memory_ids`` (the caller acting in each, checked for ``need``); refused
        when they are several."""
        personal = caller.in_space(caller.person) if caller.home else None
        if not isinstance(memory_ids, list | tuple) or len(memory_ids) > MAX_MEMBERS:
            return {}  # the relationship service says what a list of members is
        held: dict[str, Caller] = {}
        for memory_id in memory_ids:
            acting = self.on_memory(caller, memory_id, need=need)
            mine = personal is not None and isinstance(memory_id, str) and self._holds(personal, memory_id)
            if personal is None or acting.user != personal.user or mine:
                held.setdefault(acting.user, acting)
        if len(held) > 1:
            names = ", ".join(self.name_of(key) or PERSONAL for key in held)
            raise ValidationFailed.single(
                "memory_ids", "spaces", f"These memories are in {len(held)} spaces ({names}); a relationship links "
                "memories of one space. Link only memories of one space.",
            )  # fmt: skip
        return held

    def _label(self, key: str) -> str:
        return f"space {self.name_of(key) or key}" if is_space_key(key) else "your personal space"

    def on_relationship(self, caller: Caller, relationship_id: Any, *, need: Role = "reader") -> Caller:
        return self._on(caller, relationship_id, need, self._holds_relationship, _no_relationship)

    def name_of(self, key: str) -> str | None:
        found = self.store.spaces.get(key) if is_space_key(key) else None
        return found.name if found else None

    # inside

    def _on(self, caller: Caller, given: Any, need: Role, holds: Any, unknown: Any) -> Caller:
        personal = caller.in_space(caller.person) if caller.home else None
        if not isinstance(given, str) or not given or len(given) > 200 or "\x00" in given:
            return personal or unknown(given)
        held: builtins.list[tuple[Space | None, str, Caller]] = []
        if personal is not None and holds(personal, given):
            held.append((None, "admin", personal))
        for space, role in self._mine(caller):
            acting = caller.in_space(space.key)
            if holds(acting, given):
                held.append((space, role, acting))
        if not held:
            return personal or unknown(given)
        if len(held) > 1:  # never the first one found: another member could have put one there
            raise _held_twice(given, [s.name if s is not None else PERSONAL for s, _, _ in held])
        holder, role, acting = held[0]
        if holder is not None and not at_least(role, need):
            raise _not_admin(holder, role) if need == "admin" else _read_only(holder, role)
        return acting

    def _holds(self, acting: Caller, memory_id: str) -> bool:
        return 0 < len(memory_id) <= 200 and self._holds_memory(acting, memory_id)

    def _holds_memory(self, acting: Caller, memory_id: str) -> bool:
        memory = self.store.memories.get(acting.user, memory_id)
        return memory is not None and acting.reaches(memory.trust)

    def _holds_template(self, acting: Caller, template_id: str) -> bool:
        if len(template_id) > 200 or "\x00" in template_id:  # no stored id is so
            return False
        return self.store.templates.get(acting.user, template_id) is not None

    def _space_name(self, acting: Caller) -> str:
        return self.name_of(acting.user) or acting.user

    def _holds_relationship(self, acting: Caller, relationship_id: str) -> bool:
        return self.store.relationships.get(acting.user, relationship_id, trust=acting.trust) is not None

    def _default(self, caller: Caller) -> str | None:
        chosen = self.store.preferences.get(caller.person).get("spaces.default")
        return chosen if isinstance(chosen, str) else None

    def _default_or_personal(self, caller: Caller) -> str | None:
        """``_default_reached``, or the personal space once the default names a space the caller is no longer in
        (for a token that reaches it)."""
        try:
            chosen = self._default_reached(caller)
            if chosen not in (None, PERSONAL, caller.person):
                self._membership(caller, chosen)
            return chosen
        except NotFound:
            if not caller.home:
                raise
            return PERSONAL

    def _default_reached(self, caller: Caller) -> str | None:
        """``spaces.default``, if the caller's token reaches it; else the one space a token limited to one reaches."""
        chosen = self._default(caller)
        if caller.spaces is None:
            return chosen
        reached = [k for k in caller.spaces if k == caller.person or self._role(caller, k) is not None]
        default_key = caller.person if chosen in (None, PERSONAL, caller.person) else self._key_of(caller, chosen)
        if default_key in reached:
            return default_key
        if not reached:
            raise _reaches_none()
        if len(reached) == 1:
            return reached[0]
        names = ", ".join(self.limit_names(caller, frozenset(reached)) or [])
        raise ValidationFailed.single(
            "space", "required", f"Name the space to write to: this token reaches {names}, not your default space."
        )

    def _key_of(self, caller: Caller, given: str) -> str | None:
        try:
            return self._membership(caller, given)[0].key
        except (NotFound, ValidationFailed):
            return None

    def _role(self, caller: Caller, key: str) -> str | None:
        return self.store.spaces.role(key, caller.person) if is_space_key(key) else None

    def _mine(self, caller: Caller) -> builtins.list[tuple[Space, str]]:
        """The caller's spaces and its role in each, as far as its token reaches: the one list every path reads."""
        return [(s, r) for s, r in self.store.spaces.of_member(caller.person) if caller.reaches_space(s.key)]

    def _membership(self, caller: Caller, given: Any) -> tuple[Space, str]:
        """The space ``given`` names among the caller's (by key or name) and the caller's role there."""
        if not isinstance(given, str) or not given.strip():
            raise ValidationFailed.single("space", "required", "Name a space: its name or key (list shows yours).")
        if is_space_key(given):
            reached = SPACE_KEY.match(given) and caller.reaches_space(given)
            role = self.store.spaces.role(given, caller.person) if reached else None
            found = self.store.spaces.get(given) if role is not None else None
            if found is None or role is None:
                raise UnknownSpace(given)
            return found, role
        named = [(s, r) for s, r in self._mine(caller) if s.name == given.strip()]
        if not named:
            raise UnknownSpace(given)
        if len(named) > 1:
            keys = ", ".join(s.key for s, _ in named)
            message = f"Several of your spaces are named {excerpt(given)}: {keys}. Give its key."
            raise ValidationFailed.single("space", "ambiguous", message)
        space, role = named[0]
        return space, role

    def _invited(self, caller: Caller, given: Any) -> Space:
        """The space ``given`` names (key or name) among those the caller is invited to."""
        if not isinstance(given, str) or not given.strip():
            raise ValidationFailed.single("space", "required", "Name a space: its name or key (list shows yours).")
        offers = [view.space for view in self.invitations(caller)]
        named = [s for s in offers if given in (s.key, s.name) or s.name == given.strip()]
        if not named:
            raise unknown_invitation(given)
        if len(named) > 1:
            keys = ", ".join(s.key for s in named)
            message = f"You are invited to several spaces named {excerpt(given)}: {keys}. Give its key."
            raise ValidationFailed.single("space", "ambiguous", message)
        return named[0]

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
            if any(i.user == member for i in self.store.spaces.invitations(space.key)):
                raise NotFound(
                    f"{member} is invited to space {space.name} and has not accepted yet; invite them again "
                    "(add_member) to offer another role."
                )
            raise NotFound(f"{member} is not a member of space {space.name}; add them with add_member.")
        return member

    def _member(self, caller: Caller, space: Space, user: str, role: Any) -> SpaceMember:
        if role not in ROLES:
            raise ValidationFailed.single(
                "role", "unknown", f"Unknown role {excerpt(role)}: use one of {', '.join(ROLES)}.", role
            )
        return SpaceMember(space.key, user, str(role), caller.person, self.clock())

    def _view(self, space: Space, role: str) -> SpaceView:
        invited = tuple(self.store.spaces.invitations(space.key)) if role == "admin" else ()
        return SpaceView(space, role, tuple(self.store.spaces.members(space.key)), invited)

    def _purge(self, acting: Caller) -> None:
        while True:
            page = self.store.memories.page(acting.user, MemoryQuery(deleted="include", limit=_PURGE_PAGE))
            if not page.items:
                return
            for memory in page.items:
                self.store.memories.purge(acting.user, memory.id)


def unknown_invitation(given: str) -> NotFound:
    return NotFound(
        f"No invitation to a space {excerpt(given)}: list shows the invitations you have; a space's admin invites "
        "you with add_member."
    )


def _too_many_invitations(space: Space, user: str, bound: str) -> LimitReached:
    why = {
        "space": f"space {space.name} has {BOUNDS.per_space} invitations waiting for an answer; take some back first",
        "inviter": f"{BOUNDS.per_inviter} of your invitations to them wait for an answer already",
    }.get(bound, "too many invitations wait for their answer; they answer some first")
    return LimitReached(f"{user} cannot be invited now: {why}.")


def _too_many_spaces() -> LimitReached:
    return LimitReached(
        f"You belong to {MOST_MEMBERSHIPS} shared spaces, the most one user may (every search reads them all): "
        "leave one first."
    )


def _name(given: Any) -> str:
    if not isinstance(given, str) or not given.strip():
        raise ValidationFailed.single("name", "required", "Give the space a name, e.g. 'Family' or 'Team Atlas'.")
    name: str = given.strip()
    if len(name) > MAX_NAME or any(unicodedata.category(c) in _UNPRINTED for c in name) or is_space_key(name):
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


def _key_or_personal(acting: Caller) -> str:
    return acting.user if is_space_key(acting.user) else PERSONAL


def _not_admin(space: Space, role: str) -> AccessDenied:
    return AccessDenied(
        f"You are a {role} in space {space.name}: only its admins create, change or delete its templates. "
        "Ask one of its admins (set_role)."
    )


def _held_twice(given: str, names: builtins.list[str]) -> Conflict:
    return Conflict(
        f"The id {excerpt(given)} names something in several of your spaces ({', '.join(names)}), so it is "
        "not used in any: an id names one thing. Copy the one you mean (it gets a new id), then delete the other, "
        "or leave the space that should not hold it."
    )


def _no_memory(given: Any) -> Caller:
    raise unknown_memory(given if isinstance(given, str) else repr(given))


def _no_template(given: Any) -> Caller:
    raise NotFound(f"No template with id {excerpt(given)}.")


def _no_relationship(given: Any) -> Caller:
    raise unknown_relationship(given if isinstance(given, str) else repr(given))


def _reaches_none() -> NotFound:
    return NotFound(
        "This token reaches none of your spaces now (those it was made for were deleted or left). "
        "Make a new token for the spaces you need."
    )


def _read_only(space: Space, role: str) -> AccessDenied:
    return AccessDenied(
        f"You are a {role} in space {space.name}: only its writers and admins add or change its memories "
        "and relationships. Ask one of its admins (set_role)."
    )


__all__ = ["PERSONAL", "InvitationView", "SpaceService", "SpaceView", "unknown_invitation"]
