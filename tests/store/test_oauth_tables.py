"""The built-in authorization server's tables, on both backends: bounds counted and stored together, a code
spent and a refresh token rotated exactly once (also by threads racing), revocation of a whole grant,
and every expired row swept."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from remember.errors import LimitReached
from remember.store import Store
from remember.store.oauth_records import Grant, GrantCode, GrantTokens, OAuthClient, PendingAuthorization

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
TABLES = ("oauth_clients", "oauth_pending", "oauth_grants", "oauth_codes", "oauth_tokens")


def client(cid: str, address: str = "192.0.2.1", *, at: datetime = T0, secret: str | None = None) -> OAuthClient:
    return OAuthClient(
        cid, secret, {"client_name": cid, "redirect_uris": ["http://127.0.0.1/cb"]}, address, at, at + 7 * DAY
    )


def pending(request: str, client_id: str, at: datetime = T0) -> PendingAuthorization:
    return PendingAuthorization(request, client_id, {"state": "s"}, at + timedelta(minutes=10))


def grant(gid: str, client_id: str, at: datetime = T0, user: str = "erin") -> tuple[Grant, GrantCode]:
    made = Grant(gid, client_id, user, "tok1", ("read",), "http://127.0.0.1:1/mcp", at, at + timedelta(minutes=5))
    code = GrantCode(f"code-{gid}", gid, "challenge", "http://127.0.0.1/cb", True, at + timedelta(minutes=5))
    return made, code


def tokens(name: str, gid: str, at: datetime = T0) -> GrantTokens:
    return GrantTokens(f"refresh-{name}", f"access-{name}", gid, ("read",), at + timedelta(hours=1), at + 30 * DAY)


def counts(store: Store) -> dict[str, int]:
    with store.sql.reading() as s:
        return {table: int(s.value(f"SELECT count(*) FROM {table}")) for table in TABLES}


def started(store: Store, gid: str = "g1", cid: str = "c1") -> None:
    store.oauth_clients.register(client(cid), per_address=5, total=5)
    made, code = grant(gid, cid)
    store.oauth_grants.start(made, code, client_until=T0 + 90 * DAY)


def test_a_registration_is_kept_until_it_expires(store: Store) -> None:
    store.oauth_clients.register(client("c1", secret="ab" * 32), per_address=5, total=5)
    found = store.oauth_clients.get("c1", T0 + DAY)
    assert found is not None and found.secret_sha256 == "ab" * 32 and found.metadata["client_name"] == "c1"
    assert found.used_at is None
    assert store.oauth_clients.get("c1", T0 + 7 * DAY) is None
    assert store.oauth_clients.get("nope", T0) is None


def test_registrations_are_bounded_per_address_and_in_total(store: Store) -> None:
    clients = store.oauth_clients
    for n in range(3):
        clients.register(client(f"a{n}"), per_address=3, total=5)
    with pytest.raises(
        LimitReached, match=r"at most 3 registrations from one address .* forgotten at 2026-03-08 12:00"
    ):
        clients.register(client("a3"), per_address=3, total=5)
    clients.register(client("b0", "198.51.100.7"), per_address=3, total=5)
    clients.register(client("b1", "198.51.100.7"), per_address=3, total=5)
    with pytest.raises(LimitReached, match=r"at most 5 registered clients"):
        clients.register(client("c0", "203.0.113.9"), per_address=3, total=5)
    assert counts(store)["oauth_clients"] == 5  # nothing stored by a refused registration


def test_a_client_a_person_allowed_no_longer_counts_for_its_address(store: Store) -> None:
    for n in range(2):
        store.oauth_clients.register(client(f"a{n}"), per_address=2, total=10)
    made, code = grant("g1", "a0")
    store.oauth_grants.start(made, code, client_until=T0 + 90 * DAY)
    store.oauth_clients.register(client("a2"), per_address=2, total=10)
    allowed = store.oauth_clients.get("a0", T0 + 30 * DAY)
    assert allowed is not None and allowed.used_at == T0 and allowed.expires_at == T0 + 90 * DAY


def test_expired_registrations_make_room(store: Store) -> None:
    store.oauth_clients.register(client("a0"), per_address=1, total=1)
    later = T0 + 8 * DAY
    store.oauth_clients.register(client("a1", at=later), per_address=1, total=1)
    assert store.oauth_clients.get("a0", later) is None and store.oauth_clients.get("a1", later) is not None


def test_pending_requests_are_bounded_per_client_and_in_total_and_taken_once(store: Store) -> None:
    for cid in ("c1", "c2"):
        store.oauth_clients.register(client(cid), per_address=5, total=5)
    grants = store.oauth_grants
    for n in range(2):
        grants.add_pending(pending(f"r{n}", "c1"), T0, per_client=2, total=3)
    with pytest.raises(LimitReached, match=r"This client has 2 authorization requests waiting"):
        grants.add_pending(pending("r2", "c1"), T0, per_client=2, total=3)
    grants.add_pending(pending("r3", "c2"), T0, per_client=2, total=3)
    with pytest.raises(LimitReached, match=r"This server has 3 authorization requests waiting"):
        grants.add_pending(pending("r4", "c2"), T0, per_client=2, total=3)
    assert counts(store)["oauth_pending"] == 3
    found = grants.pending("r0", T0)
    assert found is not None and found.client_id == "c1" and found.params == {"state": "s"}
    assert grants.pending("r0", T0 + timedelta(minutes=10)) is None  # expired
    assert grants.take_pending("r0", T0) == found
    assert grants.take_pending("r0", T0) is None
    assert grants.take_pending("r1", T0 + timedelta(minutes=11)) is None  # expired: taken, not answered


def test_a_code_is_spent_once(store: Store) -> None:
    started(store)
    grants = store.oauth_grants
    code, made = grants.code("code-g1") or (None, None)
    assert code is not None and made is not None and code.used_at is None and made.user_id == "erin"
    assert grants.spend_code("code-g1", tokens("a", "g1"), T0, client_until=T0 + 90 * DAY)
    assert not grants.spend_code("code-g1", tokens("b", "g1"), T0, client_until=T0 + 90 * DAY)
    spent = grants.code("code-g1")
    assert spent is not None and spent[0].used_at == T0
    assert grants.access("access-a", T0) is not None and grants.access("access-b", T0) is None
    assert grants.code("code-g1") is not None and grants.code("nope") is None
    kept = grants.access("access-a", T0)
    assert kept is not None and kept[1].expires_at == T0 + 30 * DAY  # the grant lasts as long as its tokens


def test_an_expired_code_is_not_spent(store: Store) -> None:
    started(store)
    assert not store.oauth_grants.spend_code("code-g1", tokens("a", "g1"), T0 + DAY, client_until=T0 + 90 * DAY)
    assert counts(store)["oauth_tokens"] == 0


def test_a_refresh_token_is_rotated_once(store: Store) -> None:
    started(store)
    grants = store.oauth_grants
    grants.spend_code("code-g1", tokens("a", "g1"), T0, client_until=T0 + 90 * DAY)
    later = T0 + timedelta(minutes=30)
    assert grants.rotate("refresh-a", tokens("b", "g1", later), later, client_until=later + 90 * DAY)
    assert not grants.rotate("refresh-a", tokens("c", "g1", later), later, client_until=later + 90 * DAY)
    assert grants.access("access-a", later) is None  # the rotated pair's access token stops working
    assert grants.access("access-b", later) is not None
    rotated = grants.refresh("refresh-a")
    assert rotated is not None and rotated[0].rotated_at == later  # kept, to recognise a replay
    assert grants.access("access-b", later + timedelta(hours=1)) is None  # expired


def test_racing_threads_spend_a_code_and_rotate_a_token_once(store: Store) -> None:
    started(store)
    grants = store.oauth_grants
    until = T0 + 90 * DAY
    with ThreadPoolExecutor(8) as pool:
        spent = list(
            pool.map(lambda n: grants.spend_code("code-g1", tokens(f"a{n}", "g1"), T0, client_until=until), range(8))
        )
        assert spent.count(True) == 1
        first = f"refresh-a{spent.index(True)}"
        rotated = list(
            pool.map(lambda n: grants.rotate(first, tokens(f"b{n}", "g1"), T0, client_until=until), range(8))
        )
    assert rotated.count(True) == 1
    assert counts(store)["oauth_tokens"] == 2


def test_racing_registrations_stop_at_the_bound(store: Store) -> None:
    def register(n: int) -> bool:
        try:
            store.oauth_clients.register(client(f"r{n}"), per_address=3, total=100)
        except LimitReached:
            return False
        return True

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(register, range(12))).count(True) == 3
    assert counts(store)["oauth_clients"] == 3


def test_revoking_a_grant_takes_its_code_and_every_token(store: Store) -> None:
    started(store)
    started(store, "g2", "c2")
    grants = store.oauth_grants
    grants.spend_code("code-g1", tokens("a", "g1"), T0, client_until=T0 + 90 * DAY)
    grants.rotate("refresh-a", tokens("b", "g1"), T0, client_until=T0 + 90 * DAY)
    grants.spend_code("code-g2", tokens("other", "g2"), T0, client_until=T0 + 90 * DAY)
    assert grants.revoke("g1") and not grants.revoke("g1")
    assert (
        grants.code("code-g1") is None and grants.refresh("refresh-a") is None and grants.access("access-b", T0) is None
    )
    assert grants.access("access-other", T0) is not None  # another grant is untouched
    assert counts(store) == {
        "oauth_clients": 2,
        "oauth_pending": 0,
        "oauth_grants": 1,
        "oauth_codes": 1,
        "oauth_tokens": 1,
    }


def test_expired_rows_are_swept(store: Store) -> None:
    started(store)  # c1 with grant g1, allowed: kept 90 days
    store.oauth_clients.register(client("lonely"), per_address=5, total=5)  # never allowed: 7 days
    grants = store.oauth_grants
    grants.add_pending(pending("r1", "c1"), T0, per_client=5, total=5)
    grants.spend_code("code-g1", tokens("a", "g1"), T0, client_until=T0 + 90 * DAY)
    grants.rotate("refresh-a", tokens("b", "g1", T0 + DAY), T0 + DAY, client_until=T0 + 91 * DAY)
    assert grants.sweep(T0) == 0
    assert grants.sweep(T0 + timedelta(minutes=11)) == 2  # the pending request and the spent code
    assert grants.sweep(T0 + 8 * DAY) == 1  # the registration no one allowed
    assert grants.sweep(T0 + 30 * DAY) == 1  # the rotated pair, kept until its refresh token expired
    assert counts(store) == {
        "oauth_clients": 1,
        "oauth_pending": 0,
        "oauth_grants": 1,
        "oauth_codes": 0,
        "oauth_tokens": 1,
    }
    assert grants.sweep(T0 + 31 * DAY) == 2  # the live pair's refresh token expired, then its grant
    assert grants.sweep(T0 + 91 * DAY) == 1  # and 90 days after its last use, the client
    assert counts(store) == dict.fromkeys(TABLES, 0)
