"""Shared spaces and their members: one row per space, one per member with a role.

A space's key is its rows' ``user_id`` everywhere (``space_keys``), so these tables are keyed by it too;
a member's spaces are read through the ``space_members_member`` index.
"""

from __future__ import annotations

from datetime import datetime

from remember.models import Space, SpaceInvitation, SpaceMember
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

    def create(self, space: Space) -> None:
        """A new space with its creator as its one admin."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.run(
                "INSERT INTO spaces (user_id, name, created_by, created_at) VALUES (?, ?, ?, ?)",
                (space.key, space.name, space.created_by, d.moment(space.created_at)),
            )
            s.run(_MEMBER_INSERT, (space.key, space.created_by, "admin", space.created_by, d.moment(space.created_at)))

    def member_count(self, member: str) -> int:
        """How many spaces ``member`` belongs to."""
        with self.sql.reading() as s:
            return _count(s, "space_members", "member", member)

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

    def put_member(self, member: SpaceMember, *, keep_an_admin: bool) -> bool:
        """Add ``member`` or change its role; with ``keep_an_admin``, only if an admin remains after.

        Whether it was written (False: it would have left the space without an admin; nothing changed)."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            d.lock_named(s.raw, f"space {member.space}")  # two admins demoting each other: one goes first
            if keep_an_admin and member.role != "admin" and not _other_admin(s, member.space, member.user):
                return False
            s.run("DELETE FROM space_members WHERE user_id = ? AND member = ?", (member.space, member.user))
            s.run(_MEMBER_INSERT, (member.space, member.user, member.role, member.added_by, d.moment(member.added_at)))
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
        return True

    def delete(self, key: str) -> bool:
        """The space, its members and what else is kept under its key (its memories go first, through the
        memories: their indexes with them)."""
        with self.sql.writing() as s:
            for table in (*LEFT_UNDER_KEY, "space_invitations", "space_members"):
                s.run(f"DELETE FROM {table} WHERE user_id = ?", (key,))
            return bool(s.run("DELETE FROM spaces WHERE user_id = ?", (key,)).rowcount)

    def invite(self, invitation: SpaceInvitation, *, most_pending: int) -> bool | None:
        """Offer (or offer again) a place in the space; None when already a member, False when the user has
        ``most_pending`` invitations from other spaces (nothing changed)."""
        d, key, user = self.sql.dialect, invitation.space, invitation.user
        with self.sql.writing() as s:
            d.lock_named(s.raw, f"invitee {user}")  # two spaces inviting at once: the bound holds
            if s.one("SELECT 1 FROM space_members WHERE user_id = ? AND member = ?", (key, user)) is not None:
                return None
            s.run("DELETE FROM space_invitations WHERE user_id = ? AND invitee = ?", (key, user))
            if _count(s, "space_invitations", "invitee", user) >= most_pending:
                return False
            s.run(
                f"INSERT INTO space_invitations ({_INVITATION_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                (key, user, invitation.role, invitation.invited_by, d.moment(invitation.invited_at)),
            )
        return True

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
                "FROM space_invitations i JOIN spaces s ON s.user_id = i.user_id WHERE i.invitee = ? "
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
            row = s.one("SELECT role, invited_by FROM space_invitations WHERE user_id = ? AND invitee = ?", (key, user))
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


def _count(s: Session, table: str, column: str, value: str) -> int:
    row = s.one(f"SELECT count(*) FROM {table} WHERE {column} = ?", (value,))
    return int(row[0]) if row else 0


def _other_admin(s: Session, key: str, member: str) -> bool:
    """Whether the space has an admin other than ``member``."""
    found = s.one("SELECT 1 FROM space_members WHERE user_id = ? AND role = 'admin' AND member <> ?", (key, member))
    return found is not None
