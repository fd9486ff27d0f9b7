"""Dashboard sessions on both backends: made from a token, acting as it, ended every way a session ends."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from conftest import StillClock as Clock
from remember.caller import Caller
from remember.service.dashboard_sessions import KEEP, LIFETIME, DashboardSessionService
from remember.service.tokens import TokenService, digest
from remember.store import Store


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tokens(store: Store, clock: Clock) -> TokenService:
    return TokenService(store.tokens, clock)


@pytest.fixture
def sessions(store: Store, tokens: TokenService, clock: Clock) -> DashboardSessionService:
    return DashboardSessionService(store.dashboard_sessions, tokens, clock)


def test_a_session_acts_as_its_token_and_only_its_digest_is_kept(
    store: Store, tokens: TokenService, sessions: DashboardSessionService
) -> None:
    token = tokens.create("alice", trust_level=0.4, expires_in=timedelta(days=3)).token
    issued = sessions.start(token)
    assert issued.secret.startswith("rms_") and len(issued.secret) == 47
    live = sessions.find(issued.secret)
    assert live is not None and live.token.id == token.id
    assert token.expires_at is not None
    assert live.caller == Caller("alice", 0.4, int(token.expires_at.timestamp()), token.id)
    kept = store.dashboard_sessions.get(digest(issued.secret))
    assert kept is not None and issued.secret not in repr(kept)
    assert store.dashboard_sessions.get(issued.secret) is None  # the id itself finds nothing


def test_made_up_and_malformed_ids_find_nothing(tokens: TokenService, sessions: DashboardSessionService) -> None:
    issued = sessions.start(tokens.create("alice").token)
    for presented in ["", "rms_", issued.secret[:-1], issued.secret + "x", "rms_" + "A" * 43, issued.session.id_sha256]:
        assert sessions.find(presented) is None, presented
    assert not sessions.end("not a session")


def test_logging_out_ends_the_session_for_whoever_holds_its_id(
    tokens: TokenService, sessions: DashboardSessionService
) -> None:
    token = tokens.create("alice").token
    issued, other = sessions.start(token), sessions.start(token)
    stolen = issued.secret  # copied by someone else before the owner logs out
    assert sessions.end(issued.secret)
    assert sessions.find(stolen) is None
    assert not sessions.end(stolen)
    assert sessions.find(other.secret) is not None  # the token's other sessions go on


def test_revoking_the_token_ends_its_sessions(tokens: TokenService, sessions: DashboardSessionService) -> None:
    kept, revoked = tokens.create("alice"), tokens.create("alice")
    mine, stolen = sessions.start(kept.token), sessions.start(revoked.token)
    tokens.revoke(revoked.token.id)
    assert sessions.find(stolen.secret) is None
    assert sessions.find(mine.secret) is not None


def test_a_login_replaces_the_session_the_browser_presented(
    tokens: TokenService, sessions: DashboardSessionService
) -> None:
    token = tokens.create("alice").token
    first = sessions.start(token)
    second = sessions.start(token, replacing=first.secret)
    assert second.secret != first.secret
    assert sessions.find(first.secret) is None
    assert sessions.find(second.secret) is not None
    planted = sessions.start(tokens.create("mallory").token)  # another user's session, planted in the browser
    mine = sessions.start(token, replacing=planted.secret)
    assert sessions.find(planted.secret) is None
    live = sessions.find(mine.secret)
    assert live is not None and live.caller.user == "alice"


def test_a_session_ends_after_its_lifetime_or_with_its_token(
    tokens: TokenService, sessions: DashboardSessionService, clock: Clock
) -> None:
    lasting = sessions.start(tokens.create("alice").token)
    brief = sessions.start(tokens.create("alice", expires_in=timedelta(hours=1)).token)
    assert brief.session.expires_at == clock.now + timedelta(hours=1)
    assert lasting.session.expires_at == clock.now + LIFETIME
    clock.now += timedelta(hours=1)
    assert sessions.find(brief.secret) is None
    assert sessions.find(lasting.secret) is not None
    clock.now += LIFETIME
    assert sessions.find(lasting.secret) is None


def test_a_login_forgets_ended_sessions_and_keeps_a_bounded_number_per_token(
    store: Store, tokens: TokenService, sessions: DashboardSessionService, clock: Clock
) -> None:
    token = tokens.create("alice").token
    ended = sessions.start(tokens.create("bob").token)
    clock.now += LIFETIME
    made = []
    for _ in range(KEEP + 2):
        made.append(sessions.start(token))
        clock.now += timedelta(seconds=1)
    assert store.dashboard_sessions.get(ended.session.id_sha256) is None  # swept, not only refused
    assert [sessions.find(s.secret) is not None for s in made[:3]] == [False, False, True]
    assert all(sessions.find(s.secret) is not None for s in made[2:])


def test_the_docs_give_the_lifetime_and_the_bound_the_code_has() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    said = f"{LIFETIME // timedelta(hours=1)} hours after the login"
    assert said in (docs / "dashboard.md").read_text(encoding="utf-8")
    assert said in (docs / "http.md").read_text(encoding="utf-8")
    assert f"at most {KEEP} sessions" in (docs / "dashboard.md").read_text(encoding="utf-8")
