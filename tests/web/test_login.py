"""Logging in to the dashboard: with a token, by a one-time link, refused without either."""

from __future__ import annotations

from typing import Any

import httpx2
from playwright.sync_api import expect

from web_support import Site


def test_a_token_logs_in_and_logging_out_ends_the_session(site: Site, page: Any) -> None:
    user = site.user("alice")
    page.goto(f"{site.url}/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("API token").fill(site.token(user))
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who")).to_contain_text(user)
    session = page.evaluate("localStorage.getItem('remember.session')")
    assert site.services.dashboard_sessions.find(session) is not None
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []  # the dashboard keeps nothing in cookies
    assert site.services.dashboard_sessions.find(session) is None  # ended on the server, not only forgotten


def test_a_wrong_token_is_refused_with_the_reason(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/#/login")
    page.get_by_label("API token").fill("rmb_0000000000000000_" + "x" * 43)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("unknown, revoked or expired")
    expect(page.locator("#nav")).to_be_hidden()
    site.shot(page, "login")


def test_a_revoked_token_ends_the_browser_session_at_once(site: Site, page: Any) -> None:
    user = site.user("bob")
    issued = site.services.tokens.create(user)
    site.open_as(page, site.services.dashboard_sessions.start(issued.token).secret, "#/memories")
    expect(page.locator("#who")).to_contain_text(user)
    site.services.tokens.revoke(issued.token.id)
    page.reload()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()


def test_the_api_refuses_a_request_without_a_token(site: Site) -> None:
    answer = httpx2.get(f"{site.url}/api/me")
    assert answer.status_code == 401
    assert "Log in with a token" in answer.json()["message"]


def test_the_api_refuses_a_write_without_the_dashboard_header(site: Site) -> None:
    token = site.token(site.user())
    answer = httpx2.delete(f"{site.url}/api/session", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 403
    assert "X-Remember-Request" in answer.json()["message"]


def test_the_dashboard_refuses_a_foreign_host(site: Site) -> None:
    token = site.token(site.user())
    answer = httpx2.get(f"{site.url}/api/me", headers={"Authorization": f"Bearer {token}", "Host": "evil.example"})
    assert answer.status_code == 403
    assert "does not answer to the host" in answer.json()["message"]
