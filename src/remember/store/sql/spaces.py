"""Shared spaces and their members: one row per space, one per member with a role.

A space's key is its rows' ``user_id`` everywhere (``space_keys``), so these tables are keyed by it too;
a member's spaces are read through the ``space_members_member`` index.
"""

from __future__ import annotations

from remember.models import Space, SpaceMember
from remember.store.sql.base import Sql
from remember.store.sql.session import Row, Session

_MEMBER_COLUMNS = "user_id, member, role, added_by, added_at"
_MEMBER_INSERT = f"INSERT INTO space_members ({_MEMBER_COLUMNS}) VALUES (?, ?, ?, ?, ?)"


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
            for table in LEFT_UNDER_KEY:
                s.run(f"DELETE FROM {table} WHERE user_id = ?", (key,))
            return bool(s.run("DELETE FROM spaces WHERE user_id = ?", (key,)).rowcount)

    def _space(self, row: Row) -> Space:
        key, name, created_by, created_at = row
        return Space(str(key), str(name), str(created_by), self.sql.dialect.from_moment(created_at))

    def _member(self, row: Row) -> SpaceMember:
        key, member, role, added_by, added_at = row
        return SpaceMember(str(key), str(member), str(role), str(added_by), self.sql.dialect.from_moment(added_at))


def _other_admin(s: Session, key: str, member: str) -> bool:
    """Whether the space has an admin other than ``member``."""
    found = s.one("SELECT 1 FROM space_members WHERE user_id = ? AND role = 'admin' AND member <> ?", (key, member))
    return found is not None
