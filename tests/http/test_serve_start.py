"""`remember serve --http` says where it listens, at INFO, on stderr: with --port 0 the port it was given."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from remember.config import Settings
from remember.http.serve import listen


def serve(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    env = {**base, "REMEMBER_HOME": str(home), "REMEMBER_EMBEDDER": "hash", **(env or {})}
    command = [sys.executable, "-m", "remember", "serve", "--http", *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_port_0_listens_on_a_free_port_and_says_which(tmp_path: Path) -> None:
    process = serve(tmp_path, "--port", "0")
    assert process.stderr is not None and process.stdout is not None
    try:
        line = process.stderr.readline()
        found = re.search(r" INFO remember\.http\.serve: remember serves MCP at http://127\.0\.0\.1:(\d+)/mcp ", line)
        assert found, line
        port = int(found.group(1))
        assert port != 0
        assert httpx2.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200
        assert httpx2.post(f"http://127.0.0.1:{port}/mcp", timeout=10).status_code == 401  # the app is there
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        stdout = process.stdout.read()
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == 0 and stdout == ""


def test_a_quieter_log_level_leaves_the_line_out(tmp_path: Path) -> None:
    process = serve(tmp_path, "--port", "0", env={"REMEMBER_LOG_LEVEL": "WARNING"})
    assert process.stderr is not None and process.stdout is not None
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=5)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        assert process.stderr.read() == ""
        process.stdout.close()
        process.stderr.close()


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve(tmp_path, "--port", str(port))
        out, err = process.communicate(timeout=60)
    assert (process.returncode, out) == (1, "")
    assert err == (
        f"remember serve: error: Cannot listen on 127.0.0.1:{port}: Address already in use; "
        "give another --port (0 picks a free one).\n"
    )


@pytest.mark.parametrize(
    ("level", "own", "others"),
    [("INFO", "INFO", "WARNING"), ("DEBUG", "DEBUG", "DEBUG"), ("WARNING", "WARNING", "WARNING"),
     ("ERROR", "ERROR", "ERROR")],
)  # fmt: skip
def test_remembers_own_lines_show_from_info_and_other_libraries_from_warning(level: str, own: str, others: str) -> None:
    settings = Settings.from_env({"REMEMBER_LOG_LEVEL": level.lower()})
    assert (settings.log_level, settings.library_log_level) == (own, others)
    assert Settings.from_env({}).log_level == "INFO"


def test_the_socket_says_it_is_tcp_so_that_responses_are_not_held_back() -> None:
    """asyncio sets TCP_NODELAY on the connections of a socket whose protocol is IPPROTO_TCP only; a socket
    made with protocol 0 would leave Nagle's algorithm on, and small responses wait for delayed ACKs."""
    with listen("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP and sock.getsockname()[1] != 0
