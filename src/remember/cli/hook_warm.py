"""``remember hook CLIENT``'s quick path: hand the event to a warm worker, or answer it here and start one.

An assistant starts the hook anew for every event. Answering in that process means importing the services
and loading the embedding model each time (about a second), so the first event starts a worker
(``hook_worker.py``) that keeps them loaded and listens on a Unix socket; the next events are handed to it
by this module, which imports nothing heavy. The worker exits after ``REMEMBER_HOOK_KEEP_WARM`` seconds
without an event (default 900; 0: no worker, every event answered in its own process).

One worker serves one configuration: the socket's name is a digest of the settings the hook runs with
(database, user, trust level, home, embedder) and of the installed ``remember``, so a hook of another
database or user, or after an upgrade, gets a worker of its own. The socket lives in a folder only its
owner may enter (``$XDG_RUNTIME_DIR/remember``, else ``remember-UID`` in the temporary folder, checked to be
the owner's and closed to others); where that cannot be had, events are answered in their own process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from remember import __version__
from remember.cli.hook_answer import DEFAULT_BUDGET, Reply, recall_once, reply
from remember.cli.hook_clients import CLIENTS, MAX_INPUT_BYTES, Client
from remember.config import Settings
from remember.errors import RememberError

ANSWER_TIMEOUT = 30.0  # seconds to wait for a worker's answer before answering here
SOCKET_PATH_MAX = 100  # sun_path holds 104-108 bytes by platform


@dataclass(frozen=True)
class Invocation:
    """A hook command line the quick path takes: ``hook CLIENT`` with ``--budget``, ``--user``, ``--db``."""

    client: Client
    budget: int = DEFAULT_BUDGET
    user: str | None = None
    db: str | None = None


def answer(argv: list[str]) -> int | None:
    """Answer the hook event on stdin when ``argv`` is a hook command line; None for any other command line
    (or a hook one with options this path does not take), which the whole grammar then reads."""
    invocation = parse(argv)
    if invocation is None:
        return None
    try:
        settings = Settings.from_env(user=invocation.user, database_url=invocation.db)
    except RememberError:
        return None  # the whole command line says what is wrong with the settings
    raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    path = socket_path(settings) if settings.hook_keep_warm else None
    told = ask(path, invocation, raw) if path else None
    if told is None:
        told = reply(invocation.client, raw, invocation.budget, recall_once(settings))
        if path:
            start_worker(path, invocation)
    _print(told)
    return 0


def parse(argv: list[str]) -> Invocation | None:
    """The hook command line in ``argv``, or None when it is not one or has more than this path takes."""
    if len(argv) < 2 or argv[0] != "hook" or argv[1] not in CLIENTS:
        return None
    options: dict[str, str] = {}
    rest = argv[2:]
    while rest:
        flag, _, value = rest[0].partition("=")
        if flag not in ("--budget", "--user", "--db") or flag in options:
            return None
        if not value:
            if len(rest) < 2:
                return None
            value, rest = rest[1], rest[1:]
        options[flag] = value
        rest = rest[1:]
    budget = options.get("--budget", str(DEFAULT_BUDGET))
    if not budget.isdigit():
        return None  # the grammar says what is wrong with it
    return Invocation(CLIENTS[argv[1]], int(budget), options.get("--user"), options.get("--db"))


def socket_path(settings: Settings) -> Path | None:
    """Where the worker of these settings listens, or None when no private folder can hold its socket."""
    folder = private_folder()
    if folder is None:
        return None
    path = folder / f"hook-{configuration_digest(settings)}.sock"
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def configuration_digest(settings: Settings) -> str:
    """A digest of what a worker's answers depend on: the settings, the working folder when the database is a
    relative file, and the installed ``remember`` (its version, its folder, the Python environment's)."""
    fields = {k: str(v) for k, v in asdict(settings).items() if k not in ("http", "hook_keep_warm")}
    installed = {"version": __version__, "package": str(Path(__file__).parents[1]), "prefix": sys.prefix}
    key = {
        "settings": fields,
        "cwd": os.getcwd() if _relative_file(settings.database_url) else "",
        "installed": installed,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


def _relative_file(url: str) -> bool:
    """Whether ``url`` names a SQLite file by a path relative to the working folder."""
    if url.startswith("postgres"):
        return False
    return not Path(url.removeprefix("sqlite:///")).expanduser().is_absolute()


def private_folder() -> Path | None:
    """A folder for the worker's socket that only this user can enter, made if need be; None if there is none."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) / "remember" if runtime and Path(runtime).is_dir() else None
    folder = base or Path(tempfile.gettempdir()) / f"remember-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return folder if private else None


def ask(path: Path, invocation: Invocation, raw: bytes) -> Reply | None:
    """The worker's answer to the event, or None when no worker answers there (then the event is answered
    here)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(ANSWER_TIMEOUT)
            conn.connect(str(path))
            header = {"client": invocation.client.name, "budget": invocation.budget}
            conn.sendall(json.dumps(header).encode() + b"\n" + raw)
            conn.shutdown(socket.SHUT_WR)
            told = json.loads(_read_all(conn))
        return Reply(str(told["stdout"]), str(told["stderr"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def start_worker(path: Path, invocation: Invocation) -> None:
    """Start a worker for these settings in the background, detached from the hook (it outlives it)."""
    import subprocess

    argv = [sys.executable, "-m", "remember.cli.hook_worker", str(path)]
    argv += [f"--user={invocation.user}"] if invocation.user is not None else []
    argv += [f"--db={invocation.db}"] if invocation.db is not None else []
    with contextlib.suppress(OSError):  # then the next event is answered here again
        subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )  # fmt: skip


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _print(told: Reply) -> None:
    if told.stdout:
        print(told.stdout)
    if told.stderr:
        sys.stderr.write(told.stderr)
