"""Stopping ``remember serve`` over stdio: Ctrl-C in a terminal and SIGTERM end it like a client hanging up."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from support import server_env

pytestmark = pytest.mark.slow

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
SERVE = [sys.executable, "-m", "remember", "serve"]


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()


def test_ctrl_c_in_a_terminal_stops_the_server(tmp_path: Path) -> None:
    master, slave = pty.openpty()

    def own_terminal() -> None:  # a session of its own, the terminal its controlling one: as a user starts it
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    try:
        with subprocess.Popen(
            SERVE,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=server_env(tmp_path),
            preexec_fn=own_terminal,  # noqa: PLW1509
        ) as process:
            os.close(slave)
            stopped = _interrupt_when_serving(process, master)
        assert stopped == 0
        assert process.stderr is not None
    finally:
        os.close(master)


def _interrupt_when_serving(process: subprocess.Popen[bytes], master: int) -> int:
    assert process.stdout is not None and process.stderr is not None
    try:
        os.write(master, _line({"id": 1, "method": "initialize", "params": INIT}))
        assert b'"id":1' in process.stdout.readline()  # serving
        os.write(master, b"\x03")  # Ctrl-C: the terminal signals its foreground process group
        code = process.wait(timeout=30)
        assert b"stopping" in process.stderr.read()
        return code
    finally:
        process.kill()


def test_sigterm_stops_the_server_and_keeps_what_it_stored(tmp_path: Path) -> None:
    with subprocess.Popen(
        SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(tmp_path)
    ) as process:
        stopped = _create_then_terminate(process)
    assert stopped == 0
    listed = subprocess.run(
        [sys.executable, "-m", "remember", "list", "--json"],
        env=server_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Barca Velha" in listed.stdout


def _create_then_terminate(process: subprocess.Popen[bytes]) -> int:
    assert process.stdin is not None and process.stdout is not None
    try:
        create = {"name": "remember_create_memory", "arguments": {"content": "Ana likes Barca Velha"}}
        for message in (
            {"id": 1, "method": "initialize", "params": INIT},
            {"method": "notifications/initialized"},
            {"id": 2, "method": "tools/call", "params": create},
        ):
            process.stdin.write(_line(message))
        process.stdin.flush()
        answers = [process.stdout.readline(), process.stdout.readline()]
        assert b'"id":2' in answers[1] and b'"isError":false' in answers[1].replace(b" ", b"")
        process.send_signal(signal.SIGTERM)  # the client's pipe is still open: the signal alone stops it
        return process.wait(timeout=30)
    finally:
        process.kill()


def test_sigterm_while_warming_up_stops_the_server_and_its_warm_up(tmp_path: Path) -> None:
    env = {**server_env(tmp_path), "REMEMBER_LOG_LEVEL": "DEBUG"}
    with subprocess.Popen(
        SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            for message in (
                {"id": 1, "method": "initialize", "params": INIT},
                {"method": "notifications/initialized"},
                {"id": 2, "method": "tools/list"},
            ):
                process.stdin.write(_line(message))
            process.stdin.flush()
            assert b'"id":2' in [process.stdout.readline(), process.stdout.readline()][1]
            while b"warming up" not in process.stderr.readline():  # the warm-up has begun
                pass
            process.send_signal(signal.SIGTERM)
            stopped = process.wait(timeout=30)
        finally:
            process.kill()
        log = process.stderr.read()
    assert stopped == 0  # the warm-up's step in progress ended before the database was closed
    assert b"Traceback" not in log
