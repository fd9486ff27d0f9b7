"""A hook's warm worker: ``python -m remember.cli.hook_worker SOCKET [--user=U] [--db=URL]``.

Started in the background by the first ``remember hook`` event of a configuration (``hook_warm.py``), it
opens the services, loads the embedding model once and answers the next events over a Unix socket, each as
the hook's own process would (``hook_answer.reply``), until ``REMEMBER_HOOK_KEEP_WARM`` seconds pass
without one, or a SIGTERM. It only reads memories (a hook's recall does not count as reading them), through
the same services as the stdio server, so what other processes write is seen by the next event.

One worker per socket: a lock beside it (``.lock``) is held while it runs, so a second one started at the
same time exits at once. The socket is made for its owner only, in a folder only its owner may enter, and a
connection from another user id is closed unanswered where the system says who connects (Linux).

A request is one line of JSON (``{"client": NAME, "budget": N}``) then the event's bytes; the answer is one
JSON object, ``{"stdout": ..., "stderr": ...}``, the hook's output.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import struct
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from types import FrameType

from remember.cli import one_blas_thread
from remember.cli.hook_answer import Recall, recall_over, reply
from remember.cli.hook_clients import CLIENTS, MAX_INPUT_BYTES, Event
from remember.config import Settings

HEADER_MAX = 4096  # bytes of the request's first line
READ_TIMEOUT = 10.0  # seconds a connection may take to send its request


def main(argv: list[str]) -> int:
    one_blas_thread()
    path, user, db = _arguments(argv)
    settings = Settings.from_env(user=user, database_url=db)
    with _only_worker(path) as alone:
        if not alone:
            return 0  # another worker serves this socket
        signal.signal(signal.SIGTERM, _stop)
        with _listening(path) as server:
            _serve_until_idle(server, settings)
    return 0


def _serve_until_idle(server: socket.socket, settings: Settings) -> None:
    from remember.app import open_services
    from remember.caller import Caller

    services = open_services(settings)
    try:
        recall = recall_over(services, Caller(settings.user, settings.trust_level))
        recall(Event("prompt", "warm-up", "warm up"), 100)  # loads the model before the first event asks
        server.settimeout(settings.hook_keep_warm)
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                return  # no event for the time asked: exit
            with conn:
                if same_user(conn):
                    answer_connection(conn, recall)
    finally:
        services.close()


def answer_connection(conn: socket.socket, recall: Recall) -> None:
    """Read one request from ``conn`` and send the hook's output; a malformed request is closed unanswered."""
    conn.settimeout(READ_TIMEOUT)
    try:
        request = _read_request(conn)
        if request is None:
            return
        client_name, budget, raw = request
        told = reply(CLIENTS[client_name], raw, budget, recall)
        conn.sendall(json.dumps(asdict(told)).encode())
    except OSError:
        return  # the hook went away (it answers the event itself after its timeout)


def same_user(conn: socket.socket) -> bool:
    """Whether the process on the other end runs as this worker's user (True where the system cannot say: the
    socket's folder already keeps other users out)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


def _read_request(conn: socket.socket) -> tuple[str, int, bytes] | None:
    data = b""
    limit = HEADER_MAX + MAX_INPUT_BYTES + 1
    while len(data) < limit and (chunk := conn.recv(65536)):
        data += chunk
    line, newline, raw = data.partition(b"\n")
    try:
        header = json.loads(line) if newline and len(line) <= HEADER_MAX else None
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("client") not in CLIENTS:
        return None
    budget = header.get("budget")
    if not isinstance(budget, int) or isinstance(budget, bool):
        return None
    return header["client"], budget, raw[: MAX_INPUT_BYTES + 1]


@contextlib.contextmanager
def _only_worker(path: Path) -> Iterator[bool]:
    """Whether this process is the socket's one worker, for as long as the block runs."""
    lock = os.open(path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        yield False
        return
    try:
        yield True
    finally:
        os.close(lock)


@contextlib.contextmanager
def _listening(path: Path) -> Iterator[socket.socket]:
    """A socket listening at ``path``, for its owner only; removed when the block ends."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a worker that was killed left it; the lock says none runs now
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    try:
        server.bind(str(path))
    finally:
        os.umask(previous)
    try:
        server.listen(16)
        yield server
    finally:
        server.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _arguments(argv: list[str]) -> tuple[Path, str | None, str | None]:
    if not argv:
        raise SystemExit("usage: python -m remember.cli.hook_worker SOCKET [--user=USER] [--db=URL]")
    options = dict(arg.removeprefix("--").split("=", 1) for arg in argv[1:] if "=" in arg)
    return Path(argv[0]), options.get("user"), options.get("db")


def _stop(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
