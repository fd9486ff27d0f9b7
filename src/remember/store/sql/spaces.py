"""Shared spaces and their members: one row per space, one per member with a role.

A space's key is its rows' ``user_id`` everywhere (``space_keys``), so these tables are keyed by it too;
a member's spaces are read through the ``space_members_member`` index.
"""

from __future__ import annotations

from datetime import datetime

from remember.models import InvitationBounds, Space, SpaceInvitation, SpaceMember
from remember.store.sql.base import Sql
from remember.store.sql.session import Row, Session

_MEMBER_COLUMNS = "user_id, member, role, added_by, added_at"
_MEMBER_INSERT = f"INSERT INTO space_members ({_MEMBER_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
_INVITATION_COLUMNS = "user_id, invitee, role, invited_by, invited_at"
_SPACE_COLUMNS = "s.user_id, s.name, s.created_by, s.created_at"


#: Rows a space may hold besides its memories, removed with it (space_members goes with spaces).
LEFT_UNDER_KEY = ("suggestion_events", "suggestion_totals", "templates", "preferences", "preference_history")


class SpaceTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def create(self, space: Space, *, most_spaces: int) -> bool:
        """A new space with its creator as its one admin; False (nothing written) when the creator already
        belongs to ``most_spaces`` spaces."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            d.lock_named(s.raw, f"invitee {space.created_by}")  # with accept: the bound holds
            if _count(s, "space_members", "member", space.created_by) >= most_spaces:
                return False
            s.run(
                "INSERT INTO spaces (user_id, name, created_by, created_at) VALUES (?, ?, ?, ?)",
                (space.key, space.name, space.created_by, d.moment(space.created_at)),
            )
            s.run(_MEMBER_INSERT, (space.key, space.created_by, "admin", space.created_by, d.moment(space.created_at)))
        return True

    def get(self, key: str) -> Space | None:
        with self.sql.reading() as s:
            row = s.one("SELECT user_id, name, created_by, created_at FROM spaces WHERE user_id = ?", (key,))
        return None if row is None else self._space(row)

    def role(self, key: str, member: str) -> str | None:
        """``member``'s role in the space, None when not a member (or no such space)."""
        with self.sql.reading() as s:
            row = s.one("SELECT role FROM space_members WHERE user_id = ? AND member = ?", (key, member))
        return None if row is None else str(row[0])

    def of_member(self, member: str) -> list[tuple[Space, str]]:
        """The spaces ``member`` belongs to, with the role there, by name."""
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT s.user_id, s.name, s.created_by, s.created_at, m.role FROM space_members m "
                "JOIN spaces s ON s.user_id = m.user_id WHERE m.member = ? ORDER BY s.name, s.user_id",
                (member,),
            )
        return [(self._space(r[:4]), str(r[4])) for r in rows]

    def members(self, key: str) -> list[SpaceMember]:
        with self.sql.reading() as s:
            rows = s.all(f"SELECT {_MEMBER_COLUMNS} FROM space_members WHERE user_id = ? ORDER BY member", (key,))
        return [self._member(r) for r in rows]

    def set_role(self, key: str, member: str, role: str) -> bool | None:
        """Change a member's role, only if an admin remains after: True when changed, False when no admin would
        remain, None when ``member`` is no member (nothing changed either way; who added them is kept)."""
        with self.sql.writing() as s:
            self.sql.dialect.lock_named(s.raw, f"space {key}")  # two admins demoting each other: one goes first
            if s.one("SELECT 1 FROM space_members WHERE user_id = ? AND member = ?", (key, member)) is None:
                return None
            if role != "admin" and not _other_admin(s, key, member):
                return False
            s.run("UPDATE space_members SET role = ? WHERE user_id = ? AND member = ?", (role, key, member))
            if role != "admin":  # what they offered as an admin is offered no more
                s.run("DELETE FROM space_invitations WHERE user_id = ? AND invited_by = ?", (key, member))
        return True

    def remove_member(self, key: str, member: str) -> bool | None:
        """Remove ``member``: True when removed, False when that would leave no admin (nothing changed),
        None when not a member."""
        with self.sql.writing() as s:
            self.sql.dialect.lock_named(s.raw, f"space {key}")
            role = s.one("SELECT role FROM space_members WHERE user_id = ? AND member = ?", (key, member))
            if role is None:
                return None
            if role[0] == "admin" and not _other_admin(s, key, member):
                return False
            s.run("DELETE FROM space_members WHERE user_id = ? AND member = ?", (key, member))
            s.run("DELETE FROM space_invitations WHERE user_id = ? AND invited_by = ?", (key, member))
        return True

    def delete(self, key: str) -> bool | None:
        """The space, its members and what else is kept under its key (its memories go first, through the
        memories: their indexes with them). None, with nothing deleted, while a memory is still under the key
        (written since the memories went); else whether there was such a space."""
        with self.sql.writing() as s:
            self.sql.dialect.lock_named(s.raw, f"space {key}")
            if s.one("SELECT 1 FROM memories WHERE user_id = ? LIMIT 1", (key,)) is not None:
                return None
            for table in (*LEFT_UNDER_KEY, "space_invitations", "space_members"):
                s.run(f"DELETE FROM {table} WHERE user_id = ?", (key,))
            return bool(s.run("DELETE FROM spaces WHERE user_id = ?", (key,)).rowcount)

    def invite(self, invitation: SpaceInvitation, bounds: InvitationBounds) -> str:
        """Offer (or offer again, with its role) a place in the space: ``"invited"`` when written, else why not
        (nothing changed): ``"member"`` already, or the bound reached, ``"space"`` (pending in the space),
        ``"inviter"`` (this admin's pending to the user) or ``"invitee"`` (the user's pending, all spaces)."""
        d, key, user = self.sql.dialect, invitation.space, invitation.user
        with self.sql.writing() as s:
            d.lock_named(s.raw, f"invitee {user}")  # two spaces inviting at once: the bounds hold
            d.lock_named(s.raw, f"space {key}")
            if s.one("SELECT 1 FROM space_members WHERE user_id = ? AND member = ?", (key, user)) is not None:
                return "member"
            s.run("DELETE FROM space_invitations WHERE user_id = ? AND invitee = ?", (key, user))
            over = _over_bounds(s, invitation, bounds)
            if over:
                return over
            s.run(
                f"INSERT INTO space_invitations ({_INVITATION_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                (key, user, invitation.role, invitation.invited_by, d.moment(invitation.invited_at)),
            )
        return "invited"

    def invitations(self, key: str) -> list[SpaceInvitation]:
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {_INVITATION_COLUMNS} FROM space_invitations WHERE user_id = ? ORDER BY invitee", (key,)
            )
        return [self._invitation(r) for r in rows]

    def invitations_of(self, user: str) -> list[tuple[Space, SpaceInvitation]]:
        with self.sql.reading() as s:
            rows = s.all(
                f"SELECT {_SPACE_COLUMNS}, i.user_id, i.invitee, i.role, i.invited_by, i.invited_at "
                "FROM space_invitations i JOIN spaces s ON s.user_id = i.user_id JOIN space_members m ON "
                "m.user_id = i.user_id AND m.member = i.invited_by AND m.role = 'admin' WHERE i.invitee = ? "
                "ORDER BY s.name, s.user_id",
                (user,),
            )
        return [(self._space(r[:4]), self._invitation(r[4:])) for r in rows]

    def accept(self, key: str, user: str, at: datetime, *, most_spaces: int) -> str | None:
        """Make the invited user a member with the role offered (answered); None when not invited, ``""``
        when they already belong to ``most_spaces`` spaces (nothing changed)."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            d.lock_named(s.raw, f"invitee {user}")
            row = s.one(
                "SELECT i.role, i.invited_by FROM space_invitations i JOIN space_members m ON m.user_id = i.user_id "
                "AND m.member = i.invited_by AND m.role = 'admin' WHERE i.user_id = ? AND i.invitee = ?",
                (key, user),
            )  # an invitation is good while the one who made it is an admin of the space
            if row is None:
                return None
            if _count(s, "space_members", "member", user) >= most_spaces:
                return ""
            s.run("DELETE FROM space_invitations WHERE user_id = ? AND invitee = ?", (key, user))
            s.run(_MEMBER_INSERT, (key, user, row[0], row[1], d.moment(at)))
        return str(row[0])

    def withdraw(self, key: str, user: str) -> bool:
        with self.sql.writing() as s:
            return bool(s.run("DELETE FROM space_invitations WHERE user_id = ? AND invitee = ?", (key, user)).rowcount)

    def _space(self, row: Row) -> Space:
        key, name, created_by, created_at = row
        return Space(str(key), str(name), str(created_by), self.sql.dialect.from_moment(created_at))

    def _invitation(self, row: Row) -> SpaceInvitation:
        key, user, role, by, at = row
        return SpaceInvitation(str(key), str(user), str(role), str(by), self.sql.dialect.from_moment(at))

    def _member(self, row: Row) -> SpaceMember:
        key, member, role, added_by, added_at = row
        return SpaceMember(str(key), str(member), str(role), str(added_by), self.sql.dialect.from_moment(added_at))


def _over_bounds(s: Session, invitation: SpaceInvitation, bounds: InvitationBounds) -> str:
    """Which bound a new invitation would pass ("" when none)."""
    if _count(s, "space_invitations", "user_id", invitation.space) >= bounds.per_space:
        return "space"
    mine = s.one(
        "SELECT count(*) FROM space_invitations WHERE invitee = ? AND invited_by = ?",
        (invitation.user, invitation.invited_by),
    )
    if mine is not None and int(mine[0]) >= bounds.per_inviter:
        return "inviter"
    if _count(s, "space_invitations", "invitee", invitation.user) >= bounds.per_invitee:
        return "invitee"
    return ""


def _count(s: Session, table: str, column: str, value: str) -> int:
    row = s.one(f"SELECT count(*) FROM {table} WHERE {column} = ?", (value,))
    return int(row[0]) if row else 0


def _other_admin(s: Session, key: str, member: str) -> bool:
    """Whether the space has an admin other than ``member``."""
    found = s.one("SELECT 1 FROM space_members WHERE user_id = ? AND role = 'admin' AND member <> ?", (key, member))
    return found is not None
