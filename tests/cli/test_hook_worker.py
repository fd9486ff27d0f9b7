"""`remember hook`'s warm worker: the real command started as an assistant starts it, the worker it leaves
behind answering the next events over its socket, for one configuration and one user only, and gone by
itself when idle. Every worker here waits at most KEEP_WARM seconds and is stopped when its test ends."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from remember.cli import hook_warm
from remember.cli.hook_clients import CLIENTS
from remember.cli.hook_warm import Invocation
from remember.config import Settings

SRC = Path(__file__).resolve().parents[2] / "src"
KEEP_WARM = "60"
PROMPT = {
    "hook_event_name": "UserPromptSubmit",
    "prompt": "what should I get Anna for her birthday?",
    "session_id": "s",
}
SESSION = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s"}


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A hook's environment: its own home and a short temporary folder for the socket; every worker started
    under it is stopped at the end."""
    scratch = Path(tempfile.mkdtemp(prefix="rh", dir="/tmp"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REMEMBER_", "XDG_RUNTIME_DIR"))}
    hook_env = base | {
        "PYTHONPATH": str(SRC), "REMEMBER_HOME": str(tmp_path / "home"), "TMPDIR": str(scratch),
        "REMEMBER_HOOK_KEEP_WARM": KEEP_WARM, "REMEMBER_USER": "alice",
    }  # fmt: skip
    add(hook_env, "Anna's birthday is on 14 March; she likes orchids")
    yield hook_env
    for pid in workers(scratch):
        os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not workers(scratch), "the workers to stop")


def add(env: dict[str, str], text: str) -> None:
    argv = [sys.executable, "-m", "remember", "add", text, "--no-suggestion"]
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=120)


def hook(env: dict[str, str], event: dict[str, str], *argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "remember", "hook", "claude-code", *argv],
        input=json.dumps(event).encode(), env=env, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def workers(scratch: Path) -> list[int]:
    """The pids of the workers whose sockets are under ``scratch``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"remember.cli.hook_worker" in cmdline and any(str(scratch).encode() in arg for arg in cmdline):
            found.append(int(proc.name))
    return found


def wait_for(condition: object, what: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not callable(condition) or not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def the_socket(env: dict[str, str]) -> Path:
    folder = Path(env["TMPDIR"]) / f"remember-{os.getuid()}"
    wait_for(lambda: any(folder.glob("*.sock")), "the worker's socket")
    (path,) = folder.glob("*.sock")
    return path


def asked(path: Path, event: dict[str, str], user: str = "alice") -> hook_warm.Reply | None:
    """The worker's own answer, asked directly (None: no worker answered)."""
    return hook_warm.ask(path, Invocation(CLIENTS["claude-code"], 600, user), json.dumps(event).encode())


def memories_in(out: str) -> list[str]:
    context: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return context.splitlines()[1:]


def test_the_first_event_starts_a_worker_that_answers_the_next_ones_alike(env: dict[str, str]) -> None:
    code, first, err = hook(env, PROMPT)
    assert code == 0 and err == "" and "orchids" in memories_in(first)[0]
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    told = asked(path, PROMPT)
    assert told is not None and told.stdout == first.strip() and told.stderr == ""
    assert hook(env, PROMPT) == (0, first, "")
    session = hook(env, SESSION)
    assert session[0] == 0 and "orchids" in memories_in(session[1])[0]


def test_the_worker_sees_what_other_processes_write(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    question = PROMPT | {"prompt": "when is the dentist appointment?"}
    assert hook(env, question) == (0, "", "")
    add(env, "The dentist appointment is on Friday at 9")
    code, out, _ = hook(env, question)
    assert code == 0 and "dentist appointment is on Friday" in memories_in(out)[0]


def test_a_worker_serves_one_user_and_another_user_gets_a_worker_of_its_own(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    alice = the_socket(env)
    bob_env = env | {"REMEMBER_USER": "bob"}
    assert hook(bob_env, PROMPT) == (0, "", "")  # bob has no memories; alice's worker is not asked
    wait_for(lambda: len(set(alice.parent.glob("*.sock"))) == 2, "bob's worker")
    (bob,) = set(alice.parent.glob("*.sock")) - {alice}
    wait_for(lambda: asked(bob, PROMPT, "bob") is not None, "bob's worker to answer")
    assert asked(bob, PROMPT, "bob") == hook_warm.Reply()
    assert hook(bob_env, PROMPT) == (0, "", "")


def test_an_idle_worker_exits_by_itself_and_removes_its_socket(env: dict[str, str]) -> None:
    env = env | {"REMEMBER_HOOK_KEEP_WARM": "2"}
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: not path.exists() and not workers(Path(env["TMPDIR"])), "the idle worker to exit", 60)
    code, out, _ = hook(env, PROMPT)  # answered in its own process again, and a worker started anew
    assert code == 0 and "orchids" in memories_in(out)[0]


def test_a_killed_workers_socket_is_replaced(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    (pid,) = workers(Path(env["TMPDIR"]))
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not workers(Path(env["TMPDIR"])), "the killed worker to go")
    assert path.exists() and asked(path, PROMPT) is None  # left behind, nobody answers
    code, out, _ = hook(env, PROMPT)
    assert code == 0 and "orchids" in memories_in(out)[0]
    wait_for(lambda: asked(path, PROMPT) is not None, "a new worker to answer")


def test_one_worker_per_socket(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    second = subprocess.run(
        [sys.executable, "-m", "remember.cli.hook_worker", str(path)], env=env, capture_output=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert second.returncode == 0 and len(workers(Path(env["TMPDIR"]))) == 1
    assert asked(path, PROMPT) is not None


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"",
        b"no header line",
        b"{not json\n{}",
        b'{"client": "vim", "budget": 600}\n{}',
        b'{"client": "claude-code", "budget": "600"}\n{}',
        b'{"client": "claude-code", "budget": true}\n{}',
        b"[1]\n{}",
        b"x" * 5000 + b"\n{}",
    ],
)
def test_a_malformed_request_is_closed_unanswered_and_the_worker_goes_on(
    env: dict[str, str], request_bytes: bytes
) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(str(path))
        conn.sendall(request_bytes)
        conn.shutdown(socket.SHUT_WR)
        assert conn.recv(100) == b""
    told = asked(path, PROMPT)
    assert told is not None and "orchids" in told.stdout


def test_bad_events_get_the_same_one_line_from_the_worker(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    code, out, err = hook(env, {"hook_event_name": "Stop"})
    assert (code, out) == (0, "") and err == (
        "remember hook claude-code: no memories given: 'Stop' is not an event this hook answers "
        "(SessionStart, UserPromptSubmit)\n"
    )
    code, out, err = hook(env, SESSION, "--budget", "5")
    assert (code, out) == (0, "") and "--budget must be a whole number from 100 to 32000" in err


def test_the_socket_is_its_owners_alone(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.with_suffix(".lock").stat().st_mode) == 0o600


def test_a_folder_others_may_enter_is_not_used(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(env["TMPDIR"]) / f"remember-{os.getuid()}"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    monkeypatch.setenv("TMPDIR", env["TMPDIR"])
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    tempfile.tempdir = None
    try:
        assert hook_warm.private_folder() is None
        assert hook_warm.socket_path(Settings.from_env()) is None
    finally:
        tempfile.tempdir = None
    code, out, _ = hook(env, PROMPT)  # answered all the same, in its own process, and no worker started
    assert code == 0 and "orchids" in memories_in(out)[0]
    time.sleep(1)
    assert list(folder.iterdir()) == [] and workers(Path(env["TMPDIR"])) == []


AS_NOBODY = """
import os, socket, sys
os.setgid(65534)
os.setuid(65534)
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"client": "claude-code", "budget": 600}\\n' + sys.argv[2].encode())
    s.shutdown(socket.SHUT_WR)
    got = s.recv(1000)
except (BrokenPipeError, ConnectionResetError):  # closed as soon as it was accepted
    got = b""
sys.stdout.write(repr(got))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_a_connection_from_another_user_is_closed_unanswered(env: dict[str, str]) -> None:
    hook(env, PROMPT)
    path = the_socket(env)
    wait_for(lambda: asked(path, PROMPT) is not None, "the worker to answer")
    path.parent.parent.chmod(0o711)  # as if the folders let others in: the worker still checks who connects
    path.parent.chmod(0o777)
    path.chmod(0o666)
    try:
        done = subprocess.run(
            [sys.executable, "-c", AS_NOBODY, str(path), json.dumps(PROMPT)], capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
    finally:
        path.parent.parent.chmod(0o700)
        path.parent.chmod(0o700)
        path.chmod(0o600)
    assert done.returncode == 0 and done.stdout == "b''", done.stderr
    assert asked(path, PROMPT) is not None


def test_keep_warm_0_starts_no_worker(env: dict[str, str]) -> None:
    env = env | {"REMEMBER_HOOK_KEEP_WARM": "0"}
    code, out, _ = hook(env, PROMPT)
    assert code == 0 and "orchids" in memories_in(out)[0]
    time.sleep(1)
    assert workers(Path(env["TMPDIR"])) == []
    assert not list((Path(env["TMPDIR"]) / f"remember-{os.getuid()}").glob("*.sock"))


def test_a_malformed_keep_warm_is_reported(env: dict[str, str]) -> None:
    code, out, err = hook(env | {"REMEMBER_HOOK_KEEP_WARM": "soon"}, PROMPT)
    assert (code, out) == (1, "")
    assert "REMEMBER_HOOK_KEEP_WARM='soon' is not usable: give a whole number from 0 to 604800" in err


@pytest.mark.parametrize(
    ("argv", "taken"),
    [
        (["hook", "claude-code"], Invocation(CLIENTS["claude-code"])),
        (["hook", "gemini-cli", "--budget", "900"], Invocation(CLIENTS["gemini-cli"], 900)),
        (["hook", "claude-code", "--budget=150", "--user", "bob"], Invocation(CLIENTS["claude-code"], 150, "bob")),
        (["hook", "claude-code", "--db=sqlite:///x.db"], Invocation(CLIENTS["claude-code"], db="sqlite:///x.db")),
        (["hook", "claude-code", "--budget", "x"], None),
        (["hook", "claude-code", "--budget"], None),
        (["hook", "claude-code", "--budget", "1", "--budget", "2"], None),
        (["hook", "claude-code", "--help"], None),
        (["hook", "install", "claude-code"], None),
        (["hook", "vim"], None),
        (["--user", "bob", "hook", "claude-code"], None),
        (["list"], None),
        ([], None),
    ],
)
def test_the_quick_path_takes_only_the_command_lines_it_knows(argv: list[str], taken: Invocation | None) -> None:
    assert hook_warm.parse(argv) == taken
