"""The dashboard's sessions: one row per login, found by the SHA-256 of its id, naming its API token.

A login writes its row, forgets the session it replaces and, in the same transaction, the sessions
past their end and those of its token beyond the newest ``keep``: the table stays bounded without a
sweeper of its own.
"""

from __future__ import annotations

from remember.models import DashboardSession
from remember.store.sql.base import Sql
from remember.store.sql.session import Row, Session

_COLUMNS = "id_sha256, token_id, user_id, created_at, expires_at"


class DashboardSessionTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def start(self, session: DashboardSession, *, replacing: str | None, keep: int) -> None:
        d = self.sql.dialect
        with self.sql.writing() as s:
            if replacing is not None:
                s.run("DELETE FROM dashboard_sessions WHERE id_sha256 = ?", (replacing,))
            s.run("DELETE FROM dashboard_sessions WHERE expires_at <= ?", (d.moment(session.created_at),))
            s.run(
                f"INSERT INTO dashboard_sessions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                (session.id_sha256, session.token_id, session.user_id, d.moment(session.created_at),
                 d.moment(session.expires_at)),
            )  # fmt: skip
            _keep_newest(s, session.token_id, keep)

    def get(self, id_sha256: str) -> DashboardSession | None:
        with self.sql.reading() as s:
            row = s.one(f"SELECT {_COLUMNS} FROM dashboard_sessions WHERE id_sha256 = ?", (id_sha256,))
        return None if row is None else self._session(row)

    def end(self, id_sha256: str) -> bool:
        with self.sql.writing() as s:
            return bool(s.run("DELETE FROM dashboard_sessions WHERE id_sha256 = ?", (id_sha256,)).rowcount)

    def _session(self, row: Row) -> DashboardSession:
        d = self.sql.dialect
        digest, token_id, user_id, created, expires = row
        return DashboardSession(digest, token_id, user_id, d.from_moment(created), d.from_moment(expires))


def _keep_newest(s: Session, token_id: str, keep: int) -> None:
    """Forget the sessions of ``token_id`` but its newest ``keep``."""
    s.run(
        "DELETE FROM dashboard_sessions WHERE token_id = ? AND id_sha256 NOT IN ("
        "SELECT id_sha256 FROM dashboard_sessions WHERE token_id = ? "
        "ORDER BY created_at DESC, id_sha256 DESC LIMIT ?)",
        (token_id, token_id, keep),
    )
