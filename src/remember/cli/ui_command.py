"""``remember ui``: the dashboard for the local user, on loopback, opened in the browser.

It serves what ``remember serve --http`` serves, on ``127.0.0.1`` only (a free
port unless ``--port`` names one), with tokens required: it makes a token for
``--user`` that lasts ``SESSION`` at most, prints a one-time login link for it
and opens the browser there (the code is in the address's fragment, which the page
reads and the browser never sends). When the command stops the token is revoked,
so the browser's session ends with it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import socket
import sys
import threading
import time
from datetime import timedelta

from remember.cli.grammar import Commands, runs_alone
from remember.config import Settings

SESSION = timedelta(hours=12)
LOOPBACK = "127.0.0.1"
WAIT = 15.0  # seconds to wait for the server to listen before opening the browser anyway


def register(commands: Commands) -> None:
    sub = commands.add_parser(
        "ui",
        help="open the dashboard in the browser",
        description="Serve the dashboard on 127.0.0.1 for --user and open the browser, logged in.",
    )
    sub.add_argument("--port", type=int, help="port to listen on (default: a free one)")
    sub.add_argument("--no-browser", action="store_true", help="only print the login link")
    sub.add_argument("--json", action="store_true", help="print the address and login link as JSON for scripts")
    runs_alone(sub, ui)


def ui(settings: Settings, args: argparse.Namespace) -> None:
    from remember.app import open_services
    from remember.http.serve import run
    from remember.web import LoginCodes

    port = args.port if args.port else free_port()
    settings = dataclasses.replace(settings, http=settings.http.with_address(LOOPBACK, port))
    services = open_services(settings)
    issued = services.tokens.create(
        settings.user, name="remember ui", expires_in=SESSION, trust_level=settings.trust_level
    )
    try:
        codes = LoginCodes()
        link = f"{settings.http.base_url}/#/login/code/{codes.issue(issued.secret)}"
        _said(settings, link, as_json=args.json)
        if not args.no_browser:
            threading.Thread(target=_open_when_listening, args=(port, link), daemon=True).start()
        run(services, settings, codes=codes)
    finally:
        services.tokens.revoke(issued.token.id)
        services.close()


def _said(settings: Settings, link: str, *, as_json: bool) -> None:
    """Where the dashboard is and the link that logs in: JSON on stdout for a script, else words on stderr."""
    if as_json:
        print(json.dumps({"user": settings.user, "url": settings.http.base_url, "login_link": link}), flush=True)
        return
    print(f"remember: the dashboard for {settings.user!r} is at\n  {link}", file=sys.stderr)
    print("  (the link logs in once, within 5 minutes; Ctrl-C stops the dashboard)", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        port: int = s.getsockname()[1]
        return port


def _open_when_listening(port: int, link: str) -> None:
    import webbrowser  # here, not at the top: every command's start reads this module for its grammar

    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.1)
    if not webbrowser.open(link):
        print("remember: no browser could be opened; open the link above yourself.", file=sys.stderr, flush=True)
