"""API tokens of the HTTP server: one row per token, found by its id; only a hash of the secret.

A token made with another names it (``parent_id``); revoking one revokes its whole line of
descendants in the same statement, so none outlives the access it was made with.
"""

from __future__ import annotations

from datetime import datetime

from remember.models import ApiToken
from remember.store.sql.base import Sql
from remember.store.sql.prefixes import ids_with_prefix
from remember.store.sql.session import Row

_COLUMNS = (
    "id, user_id, name, secret_sha256, trust_level, created_at, expires_at, revoked_at, last_used_at, parent_id, spaces"
)
# The token and every token made from it, at any depth (a cycle cannot form: a parent exists before its child).
_LINE = """
WITH RECURSIVE line(id) AS (
    SELECT id FROM api_tokens WHERE id = ?
    UNION
    SELECT child.id FROM api_tokens child JOIN line ON child.parent_id = line.id
)
"""


class TokenTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def insert(self, token: ApiToken) -> None:
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.run(
                f"INSERT INTO api_tokens ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    token.id, token.user_id, token.name, token.secret_sha256, token.trust_level,
                    d.moment(token.created_at), d.optional_moment(token.expires_at),
                    d.optional_moment(token.revoked_at), d.optional_moment(token.last_used_at), token.parent_id,
                    None if token.spaces is None else d.texts(sorted(token.spaces)),
                ),
            )  # fmt: skip

    def get(self, token_id: str) -> ApiToken | None:
        with self.sql.reading() as s:
            row = s.one(f"SELECT {_COLUMNS} FROM api_tokens WHERE id = ?", (token_id,))
        return None if row is None else self._token(row)

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int) -> list[str]:
        """Up to ``limit`` ids of the user's tokens that start with ``prefix``, in id order."""
        with self.sql.reading() as s:
            return ids_with_prefix(s, "api_tokens", user_id, prefix, limit)

    def of(self, user_id: str | None) -> list[ApiToken]:
        with self.sql.reading() as s:
            if user_id is None:
                rows = s.all(f"SELECT {_COLUMNS} FROM api_tokens ORDER BY user_id, created_at, id")
            else:
                rows = s.all(f"SELECT {_COLUMNS} FROM api_tokens WHERE user_id = ? ORDER BY created_at, id", (user_id,))
        return [self._token(r) for r in rows]

    def revoke(self, token_id: str, at: datetime) -> bool:
        """Revoke the token and every token made from it; whether any was still live."""
        with self.sql.writing() as s:
            cursor = s.run(
                f"{_LINE} UPDATE api_tokens SET revoked_at = ? "
                "WHERE id IN (SELECT id FROM line) AND revoked_at IS NULL",
                (token_id, self.sql.dialect.moment(at)),
            )
            return bool(cursor.rowcount)

    def used(self, token_id: str, at: datetime) -> None:
        with self.sql.writing() as s:
            s.run("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", (self.sql.dialect.moment(at), token_id))

    def _token(self, row: Row) -> ApiToken:
        d = self.sql.dialect
        tid, user, name, digest, trust, created, expires, revoked, used, parent, spaces = row
        return ApiToken(
            tid, user, name, digest, float(trust), d.from_moment(created), d.from_optional_moment(expires),
            d.from_optional_moment(revoked), d.from_optional_moment(used), parent,
            None if spaces is None else frozenset(d.from_texts(spaces)),
        )  # fmt: skip
