"""The built-in authorization server's pending authorizations, grants, codes and tokens.

A code is spent, and a refresh token rotated, by one conditional ``UPDATE`` each: of two servers
presented the same code or refresh token at once, exactly one wins, and the other sees it spent. A
spent code and a rotated refresh token are kept until they expire, so that their reuse is recognised;
revoking a grant deletes it with its code and every token descended from it. Pending authorizations are
bounded per client and in total, counted and stored in one transaction no other one interleaves with.
"""

from __future__ import annotations

from datetime import datetime

from remember.errors import LimitReached
from remember.store.oauth_records import Grant, GrantCode, GrantTokens, PendingAuthorization
from remember.store.sql.base import Sql
from remember.store.sql.oauth_clients import OAuthClientTables
from remember.store.sql.session import Row, Session

_PENDING = "request_sha256, client_id, params, expires_at"
_GRANT = "g.id, g.client_id, g.user_id, g.api_token_id, g.scopes, g.resource, g.created_at, g.expires_at"
_CODE = "c.code_sha256, c.grant_id, c.code_challenge, c.redirect_uri, c.redirect_uri_explicit, c.expires_at, c.used_at"
_TOKENS = "t.refresh_sha256, t.access_sha256, t.grant_id, t.scopes, t.access_expires_at, t.expires_at, t.rotated_at"
# Swept in this order: what hangs off a grant, the grants, then the clients (with what is left of theirs).
_EXPIRING = ("oauth_tokens", "oauth_codes", "oauth_pending", "oauth_grants")


class OAuthGrantTables:
    def __init__(self, sql: Sql, clients: OAuthClientTables) -> None:
        self.sql = sql
        self.clients = clients

    # pending authorizations

    def add_pending(self, pending: PendingAuthorization, now: datetime, *, per_client: int, total: int) -> None:
        """Store ``pending`` unless its client has ``per_client`` pending, or ``total`` are pending
        (LimitReached: nothing stored). Expired ones go first."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.lock_named("oauth_pending")
            s.run("DELETE FROM oauth_pending WHERE expires_at <= ?", (d.moment(now),))
            mine, first = s.one(
                "SELECT count(*), min(expires_at) FROM oauth_pending WHERE client_id = ?", (pending.client_id,)
            ) or (0, None)
            if mine >= per_client:
                raise LimitReached(
                    f"This client has {mine} authorization requests waiting for consent, the most this server "
                    f"keeps for one client; the first expires at {d.from_moment(first):%Y-%m-%d %H:%M} UTC. "
                    "Finish one, or try again then."
                )
            waiting, first = s.one("SELECT count(*), min(expires_at) FROM oauth_pending") or (0, None)
            if waiting >= total:
                raise LimitReached(
                    f"This server has {waiting} authorization requests waiting for consent, the most it keeps; the "
                    f"first expires at {d.from_moment(first):%Y-%m-%d %H:%M} UTC. Try again then."
                )
            s.run(
                f"INSERT INTO oauth_pending ({_PENDING}) VALUES (?, ?, ?, ?)",
                (pending.request_sha256, pending.client_id, d.json(pending.params), d.moment(pending.expires_at)),
            )

    def pending(self, request_sha256: str, now: datetime) -> PendingAuthorization | None:
        """The pending authorization, unless it is unknown, answered or expired."""
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {_PENDING} FROM oauth_pending WHERE request_sha256 = ? AND expires_at > ?",
                (request_sha256, self.sql.dialect.moment(now)),
            )
        return None if row is None else self._pending(row)

    def take_pending(self, request_sha256: str, now: datetime) -> PendingAuthorization | None:
        """The pending authorization, forgotten as it is read: of several answers, only one gets it."""
        with self.sql.writing() as s:
            row = s.one(f"SELECT {_PENDING} FROM oauth_pending WHERE request_sha256 = ?", (request_sha256,))
            taken = s.run("DELETE FROM oauth_pending WHERE request_sha256 = ?", (request_sha256,)).rowcount
            if row is None or not taken:
                return None
        found = self._pending(row)
        return found if found.expires_at > now else None

    # grants and their codes

    def start(self, grant: Grant, code: GrantCode, *, client_until: datetime) -> None:
        """Store a new grant and its code; its client was allowed (kept at least ``client_until``)."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.run(
                "INSERT INTO oauth_grants (id, client_id, user_id, api_token_id, scopes, resource, created_at, "
                "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    grant.id, grant.client_id, grant.user_id, grant.api_token_id, d.texts(grant.scopes),
                    grant.resource, d.moment(grant.created_at), d.moment(grant.expires_at),
                ),
            )  # fmt: skip
            s.run(
                "INSERT INTO oauth_codes (code_sha256, grant_id, code_challenge, redirect_uri, redirect_uri_explicit, "
                "expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    code.code_sha256, code.grant_id, code.code_challenge, code.redirect_uri,
                    d.flag(code.redirect_uri_explicit), d.moment(code.expires_at), d.optional_moment(code.used_at),
                ),
            )  # fmt: skip
            self.clients.allowed_in(s, grant.client_id, grant.created_at, client_until)

    def code(self, code_sha256: str) -> tuple[GrantCode, Grant] | None:
        """The code (spent or not, expired or not) and its grant; None if either is gone."""
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {_CODE}, {_GRANT} FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id "
                "WHERE c.code_sha256 = ?",
                (code_sha256,),
            )
        return None if row is None else (self._code(row[:7]), self._grant(row[7:]))

    def spend_code(self, code_sha256: str, tokens: GrantTokens, now: datetime, *, client_until: datetime) -> bool:
        """Spend the code for ``tokens``, the grant's first; False (nothing stored) when it was spent already,
        expired or revoked."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            spent = s.run(
                "UPDATE oauth_codes SET used_at = ? WHERE code_sha256 = ? AND used_at IS NULL AND expires_at > ?",
                (d.moment(now), code_sha256, d.moment(now)),
            )
            if not spent.rowcount:
                return False
            self._issue_in(s, tokens, now, client_until)
        return True

    def revoke(self, grant_id: str) -> bool:
        """Revoke the grant: its code and every token descended from it stop working; False if it was gone."""
        with self.sql.writing() as s:
            return bool(s.run("DELETE FROM oauth_grants WHERE id = ?", (grant_id,)).rowcount)

    # tokens

    def access(self, access_sha256: str, now: datetime) -> tuple[GrantTokens, Grant] | None:
        """The live tokens whose access token this is (not rotated, not expired), and their grant."""
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {_TOKENS}, {_GRANT} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id "
                "WHERE t.access_sha256 = ? AND t.rotated_at IS NULL AND t.access_expires_at > ?",
                (access_sha256, self.sql.dialect.moment(now)),
            )
        return None if row is None else (self._tokens(row[:7]), self._grant(row[7:]))

    def refresh(self, refresh_sha256: str) -> tuple[GrantTokens, Grant] | None:
        """The tokens whose refresh token this is (rotated or not, expired or not), and their grant."""
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {_TOKENS}, {_GRANT} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id "
                "WHERE t.refresh_sha256 = ?",
                (refresh_sha256,),
            )
        return None if row is None else (self._tokens(row[:7]), self._grant(row[7:]))

    def rotate(self, refresh_sha256: str, tokens: GrantTokens, now: datetime, *, client_until: datetime) -> bool:
        """Replace the tokens of ``refresh_sha256`` with ``tokens`` (same grant); False (nothing stored) when
        they were rotated already or are gone."""
        with self.sql.writing() as s:
            rotated = s.run(
                "UPDATE oauth_tokens SET rotated_at = ? WHERE refresh_sha256 = ? AND rotated_at IS NULL",
                (self.sql.dialect.moment(now), refresh_sha256),
            )
            if not rotated.rowcount:
                return False
            self._issue_in(s, tokens, now, client_until)
        return True

    def sweep(self, now: datetime) -> int:
        """Forget every row expired at ``now`` (clients too); how many rows went, cascades not counted."""
        moment = self.sql.dialect.moment(now)
        with self.sql.writing() as s:
            gone = sum(int(s.run(f"DELETE FROM {t} WHERE expires_at <= ?", (moment,)).rowcount) for t in _EXPIRING)
            return gone + self.clients.sweep_in(s, now)

    def _issue_in(self, s: Session, tokens: GrantTokens, now: datetime, client_until: datetime) -> None:
        """In ``s``: store ``tokens``; their grant lasts as long as they do, their client at least ``client_until``."""
        d = self.sql.dialect
        s.run(
            f"INSERT INTO oauth_tokens ({_TOKENS.replace('t.', '')}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                tokens.refresh_sha256, tokens.access_sha256, tokens.grant_id, d.texts(tokens.scopes),
                d.moment(tokens.access_expires_at), d.moment(tokens.expires_at), d.optional_moment(tokens.rotated_at),
            ),
        )  # fmt: skip
        until = d.moment(tokens.expires_at)
        s.run(
            "UPDATE oauth_grants SET expires_at = CASE WHEN expires_at < ? THEN ? ELSE expires_at END WHERE id = ?",
            (until, until, tokens.grant_id),
        )
        client = s.value("SELECT client_id FROM oauth_grants WHERE id = ?", (tokens.grant_id,))
        if client is not None:
            self.clients.allowed_in(s, str(client), now, client_until)

    def _pending(self, row: Row) -> PendingAuthorization:
        d = self.sql.dialect
        return PendingAuthorization(row[0], row[1], d.from_json(row[2]), d.from_moment(row[3]))

    def _grant(self, row: Row) -> Grant:
        d = self.sql.dialect
        gid, client, user, api_token, scopes, resource, created, expires = row
        return Grant(
            gid, client, user, api_token, d.from_texts(scopes), resource, d.from_moment(created), d.from_moment(expires)
        )

    def _code(self, row: Row) -> GrantCode:
        d = self.sql.dialect
        code, grant, challenge, redirect, explicit, expires, used = row
        return GrantCode(
            code, grant, challenge, redirect, bool(d.from_flag(explicit)), d.from_moment(expires),
            d.from_optional_moment(used),
        )  # fmt: skip

    def _tokens(self, row: Row) -> GrantTokens:
        d = self.sql.dialect
        refresh, access, grant, scopes, access_expires, expires, rotated = row
        return GrantTokens(
            refresh, access, grant, d.from_texts(scopes), d.from_moment(access_expires), d.from_moment(expires),
            d.from_optional_moment(rotated),
        )  # fmt: skip
