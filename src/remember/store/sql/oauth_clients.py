"""The built-in authorization server's registered clients: one row per client, found by its id, with only a
hash of its secret. Registrations are bounded per registering address (those no person has allowed yet)
and in total; a registration is counted and stored in one transaction that no other registration
interleaves with, on any server over the database."""

from __future__ import annotations

from datetime import datetime

from remember.errors import LimitReached
from remember.store.oauth_records import OAuthClient
from remember.store.sql.base import Sql
from remember.store.sql.session import Row, Session

_COLUMNS = "id, secret_sha256, metadata, address, created_at, expires_at, used_at, fresh_until"


class OAuthClientTables:
    def __init__(self, sql: Sql) -> None:
        self.sql = sql

    def register(self, client: OAuthClient, *, per_address: int, total: int) -> None:
        """Store ``client`` unless ``per_address`` clients registered from its address wait for their first
        consent, or ``total`` clients are kept (LimitReached: nothing stored). Expired clients go first."""
        with self.sql.writing() as s:
            s.lock_named("oauth_clients")
            self._make_room(s, client, per_address=per_address, total=total)
            self._insert(s, client)

    def keep_document(self, client: OAuthClient, *, per_address: int, total: int) -> None:
        """Store the client a metadata document names, or refresh the kept one's metadata and freshness."""
        d = self.sql.dialect
        with self.sql.writing() as s:
            s.lock_named("oauth_clients")
            refreshed = s.run(
                "UPDATE oauth_clients SET metadata = ?, fresh_until = ?, "
                "expires_at = CASE WHEN expires_at < ? THEN ? ELSE expires_at END WHERE id = ? AND expires_at > ?",
                (
                    d.json(client.metadata), d.optional_moment(client.fresh_until), d.moment(client.expires_at),
                    d.moment(client.expires_at), client.id, d.moment(client.created_at),
                ),
            )  # fmt: skip
            if not refreshed.rowcount:
                self._make_room(s, client, per_address=per_address, total=total)
                self._insert(s, client)

    def _make_room(self, s: Session, client: OAuthClient, *, per_address: int, total: int) -> None:
        d, now = self.sql.dialect, client.created_at
        self.sweep_in(s, now)
        waiting, first = s.one(
            "SELECT count(*), min(expires_at) FROM oauth_clients WHERE address = ? AND used_at IS NULL",
            (client.address,),
        ) or (0, None)
        if waiting >= per_address:
            raise LimitReached(
                f"This server keeps at most {per_address} registrations from one address that no person has "
                f"allowed yet; the first of them is forgotten at {d.from_moment(first):%Y-%m-%d %H:%M} UTC. "
                "Finish the authorization of a client registered before, or try again then."
            )
        kept, first = s.one("SELECT count(*), min(expires_at) FROM oauth_clients") or (0, None)
        if kept >= total:
            raise LimitReached(
                f"This server keeps at most {total} registered clients and has that many; the first is "
                f"forgotten at {d.from_moment(first):%Y-%m-%d %H:%M} UTC. Try again then, or ask its operator."
            )

    def _insert(self, s: Session, client: OAuthClient) -> None:
        d = self.sql.dialect
        s.run(
            f"INSERT INTO oauth_clients ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                client.id, client.secret_sha256, d.json(client.metadata), client.address,
                d.moment(client.created_at), d.moment(client.expires_at), d.optional_moment(client.used_at),
                d.optional_moment(client.fresh_until),
            ),
        )  # fmt: skip

    def get(self, client_id: str, now: datetime) -> OAuthClient | None:
        """The client, unless it is unknown or expired."""
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {_COLUMNS} FROM oauth_clients WHERE id = ? AND expires_at > ?",
                (client_id, self.sql.dialect.moment(now)),
            )
        return None if row is None else self._client(row)

    def allowed_in(self, s: Session, client_id: str, now: datetime, until: datetime) -> None:
        """In ``s``: a person allowed the client, or it used its grant, at ``now``: it is kept at least ``until``."""
        d = self.sql.dialect
        s.run(
            "UPDATE oauth_clients SET used_at = ?, expires_at = CASE WHEN expires_at < ? THEN ? ELSE expires_at END "
            "WHERE id = ?",
            (d.moment(now), d.moment(until), d.moment(until), client_id),
        )

    def sweep_in(self, s: Session, now: datetime) -> int:
        """In ``s``: forget the clients expired at ``now`` (with their pending requests and grants); how many."""
        return int(s.run("DELETE FROM oauth_clients WHERE expires_at <= ?", (self.sql.dialect.moment(now),)).rowcount)

    def _client(self, row: Row) -> OAuthClient:
        d = self.sql.dialect
        cid, secret, metadata, address, created, expires, used, fresh = row
        return OAuthClient(
            cid, secret, d.from_json(metadata), address, d.from_moment(created), d.from_moment(expires),
            d.from_optional_moment(used), d.from_optional_moment(fresh),
        )  # fmt: skip
