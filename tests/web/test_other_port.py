"""Another service on another port of 127.0.0.1 can neither take the dashboard's session nor plant one.

A browser shares a host's cookies with every port of it: a cookie session would be sent to that
service and could be set by it. The dashboard's session lives in storage of its own origin (port
included) and travels as a header, so here a second local HTTP service, visited by the logged-in
browser, looks for it in every request it receives and in everything its page can read, and then
plants cookies (its own user's session id and token) that the dashboard must not take up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from http_support import free_port
from web_support import Site

# What the other service's page reads of the browser: its cookies and storage, and what it can get
# of the dashboard's API (with the browser's credentials, were there any to send).
LOOK = """
const dashboard = new URLSearchParams(location.search).get("dashboard");
let api;
try {
  api = await (await fetch(dashboard + "/api/me", { credentials: "include" })).text();
} catch (error) {
  api = "refused: " + error;
}
const seen = { cookies: document.cookie, local: JSON.stringify({ ...localStorage }),
               session: JSON.stringify({ ...sessionStorage }), api };
await fetch("/report", { method: "POST", body: JSON.stringify(seen) });
document.title = "looked";
"""
PLANT = """
const value = new URLSearchParams(location.search).get("value");
document.cookie = `X-Remember-Session=${value}; path=/`;
localStorage.setItem("remember.session", value);  // this origin's storage: not the dashboard's
document.title = "planted";
"""


class OtherService:
    """A plain HTTP service on another port of 127.0.0.1: it records every request's headers and
    serves a page that reports what it can see (``/look``) or plants a session (``/plant``)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[dict[str, str]] = []
        self.reports: list[dict[str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                service.requests.append({k.lower(): v for k, v in self.headers.items()})
                address = urlsplit(self.path)
                if address.path.endswith(".js"):
                    self._answer("text/javascript", LOOK if address.path == "/look.js" else PLANT)
                    return
                query = parse_qs(address.query)
                cookies = [f"remember_session={v}; Path=/" for v in query.get("value", [])]
                name = "look" if address.path == "/look" else "plant"
                page = f'<!doctype html><title>other</title><script type="module" src="/{name}.js"></script>'
                self._answer("text/html", page, cookies)

            def do_POST(self) -> None:
                service.requests.append({k.lower(): v for k, v in self.headers.items()})
                length = int(self.headers.get("content-length", "0"))
                service.reports.append(json.loads(self.rfile.read(length)))
                self._answer("text/plain", "ok")

            def _answer(self, kind: str, text: str, cookies: list[str] | None = None) -> None:
                body = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for cookie in cookies or []:
                    self.send_header("Set-Cookie", cookie)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> OtherService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def other() -> Iterator[OtherService]:
    with OtherService() as service:
        yield service


def log_in_by_form(site: Site, page: Any, token: str, user: str) -> str:
    """Log in through the login page, as a person does; the session id the page keeps."""
    page.goto(f"{site.url}/#/login")
    page.get_by_label("API token").fill(token)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who")).to_contain_text(user)
    session: str = page.evaluate("localStorage.getItem('remember.session')")
    assert session.startswith("rms_")
    return session


def test_another_port_never_receives_the_session(site: Site, page: Any, other: OtherService) -> None:
    user = site.user("victim")
    token = site.token(user)
    session = log_in_by_form(site, page, token, user)

    page.goto(f"{other.url}/look?dashboard={site.url}")
    expect(page).to_have_title("looked")
    assert other.requests, "the other service was visited"
    sent = json.dumps(other.requests)
    assert session not in sent and token not in sent  # in no header of any request it received
    (seen,) = other.reports
    assert session not in json.dumps(seen) and token not in json.dumps(seen)  # in nothing its page can read
    assert user not in seen["api"]  # and the dashboard told its page nothing

    page.goto(f"{site.url}/#/memories")
    expect(page.locator("#who")).to_contain_text(user)  # the session itself goes on


def test_a_session_planted_from_another_port_is_not_accepted(site: Site, page: Any, other: OtherService) -> None:
    mallory, victim = site.user("mallory"), site.user("victim")
    planted = site.session(mallory)  # a session of the other service's owner, valid on the dashboard
    for value in (planted, site.token(mallory)):
        page.goto(f"{other.url}/plant?value={value}")
        expect(page).to_have_title("planted")
        sent_to_dashboard = {c["name"]: c["value"] for c in page.context.cookies(site.url)}
        assert sent_to_dashboard["remember_session"] == value  # the browser would send it to the dashboard's port
        page.goto(f"{site.url}/#/memories")
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()  # not logged in as mallory
        expect(page.locator("#who")).to_be_empty()

    session = log_in_by_form(site, page, site.token(victim), victim)
    page.goto(f"{other.url}/plant?value={planted}")
    expect(page).to_have_title("planted")
    page.goto(f"{site.url}/#/memories")
    expect(page.locator("#who")).to_contain_text(victim)  # still the victim's own session
    assert page.evaluate("localStorage.getItem('remember.session')") == session
    found = site.services.dashboard_sessions.find(planted)
    assert found is not None and found.caller.user == mallory  # the planted id is valid, yet was never taken up
