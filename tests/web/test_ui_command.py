"""``remember ui``: on loopback, a one-time login link, the token revoked when it stops."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from http_support import free_port
from remember.service.tokens import TokenService
from remember.store import open_store

pytestmark = pytest.mark.slow


@contextmanager
def running_ui(home: Path, url: str, port: int) -> Iterator[str]:
    """``remember ui`` for carol until the block ends (then stopped with Ctrl-C); gives its login link."""
    process, link = _start_ui(home, url, port)
    try:
        yield link
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        assert process.stderr is not None and process.stdout is not None
        process.stderr.close()
        process.stdout.close()
    assert process.returncode == 130  # as after Ctrl-C at a terminal


def _ui_process(home: Path, url: str, port: int, *more: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    env |= {"REMEMBER_HOME": str(home), "REMEMBER_DATABASE_URL": url, "REMEMBER_EMBEDDER": "hash"}
    # Ctrl-C as at a terminal: a run started in the background (``scripts/test &``) ignores SIGINT, and
    # so would the command (uvicorn stops on it all the same, but the command then ends with 0, not 130).
    interruptible = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv = ['remember', *sys.argv[1:]]; runpy.run_module('remember', run_name='__main__')"
    )
    arguments = ["--user", "carol", "ui", "--no-browser", "--port", str(port), *more]
    command = [sys.executable, "-c", interruptible, *arguments]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _start_ui(home: Path, url: str, port: int) -> tuple[subprocess.Popen[str], str]:
    process = _ui_process(home, url, port)
    assert process.stderr is not None
    lines = [process.stderr.readline() for _ in range(3)]
    link = re.search(r"http://127\.0\.0\.1:\d+/#/login/code/\S+", "".join(lines))
    assert link, lines
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1)
            break
        except httpx2.TransportError:
            time.sleep(0.1)
    return process, link.group(0)


def test_the_link_logs_in_once_and_the_token_ends_with_the_command(tmp_path: Path, page: Any) -> None:
    url = f"sqlite:///{tmp_path / 'remember.db'}"
    port = free_port()
    with running_ui(tmp_path / "home", url, port) as link:
        page.goto(link)
        expect(page.locator("#who")).to_contain_text("carol")
        assert page.url.startswith(f"http://127.0.0.1:{port}/")
        again = page.context.browser.new_context()
        try:
            other = again.new_page()
            other.goto(link)  # a second visit of the same link
            expect(other.get_by_role("heading", name="Log in")).to_be_visible()
            expect(other.get_by_role("alert")).to_contain_text("used or has expired")
        finally:
            again.close()
    store = open_store(url)
    try:
        (made,) = TokenService(store.tokens).list("carol")
        assert made.name == "remember ui"
        assert made.revoked_at is not None
    finally:
        store.close()


def test_it_listens_on_loopback_only(tmp_path: Path) -> None:
    port = free_port()
    with running_ui(tmp_path / "home", f"sqlite:///{tmp_path / 'remember.db'}", port):
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=False)
        if listening.returncode == 0 and listening.stdout.strip():
            assert all("127.0.0.1:" in line for line in listening.stdout.strip().splitlines())
        answer = httpx2.get(f"http://127.0.0.1:{port}/api/me")
        assert answer.status_code == 401  # tokens are required even on loopback


def test_json_prints_where_it_is_and_the_link(tmp_path: Path) -> None:
    port = free_port()
    process = _ui_process(tmp_path / "home", f"sqlite:///{tmp_path / 'remember.db'}", port, "--json")
    assert process.stdout is not None and process.stderr is not None
    try:
        said = json.loads(process.stdout.readline())
        assert (said["user"], said["url"]) == ("carol", f"http://127.0.0.1:{port}")
        assert said["login_link"].startswith(f"http://127.0.0.1:{port}/#/login/code/")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()
