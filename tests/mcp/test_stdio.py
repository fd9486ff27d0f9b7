"""The real server process over stdio: real clients, and nothing but protocol on stdout."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from support import error, ok, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

INSPECTOR = Path(__file__).resolve().parents[2] / ".cache" / "node" / "node_modules" / ".bin" / "mcp-inspector"
SRC = Path(__file__).resolve().parents[2] / "src"


async def test_sdk_client_over_a_real_subprocess(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "remember", "serve"], env=server_env(tmp_path))
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "remember_create_memory" in names
        made = ok(await client.call_tool("remember_create_memory", {"content": "over stdio", "tags": ["x"]}))
        got = ok(await client.call_tool("remember_get_memory", {"memory_id": made["id"]}))
        assert got["content"] == "over stdio"
        assert "weight must be" in error(
            await client.call_tool("remember_create_memory", {"content": "x", "weight": 5})
        )
    assert (tmp_path / "remember.db").exists()
    assert (tmp_path / "cache" / "tools.json").exists()  # the next start answers tools/list from it


def _rpc(id_: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if id_ is not None:
        message["id"] = id_
    return json.dumps(message)


def test_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    requests = [
        _rpc(1, "initialize", init),
        _rpc(None, "notifications/initialized"),
        _rpc(2, "tools/list"),
        _rpc(3, "tools/call", {"name": "remember_create_memory", "arguments": {"content": "x", "weight": 9}}),
        _rpc(4, "tools/call", {"name": "remember_create_memory", "arguments": {"content": "fine"}}),
        _rpc(5, "tools/call", {"name": "no_such_tool", "arguments": {}}),
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "remember", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=server_env(tmp_path),
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(requests) + "\n")
        proc.stdin.flush()
        by_id: dict[int, dict[str, Any]] = {}
        while len(by_id) < 5:
            line = proc.stdout.readline()
            assert line, "the server stopped before answering every request"
            message = json.loads(line)  # every line must be one JSON-RPC message
            assert message.get("jsonrpc") == "2.0"
            if "id" in message:
                by_id[message["id"]] = message
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stdout.read().strip() == ""
    assert set(by_id) == {1, 2, 3, 4, 5}
    assert by_id[3]["result"]["isError"] is True
    assert by_id[4]["result"]["structuredContent"]["content"] == "fine"


def test_unreadable_lines_are_answered_and_the_session_goes_on(tmp_path: Path) -> None:
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    bad_lines = [
        '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": "\\ud800"}}',  # a lone surrogate
        "[" * 10_000 + "]" * 10_000,  # nesting 10,000 deep
        "this is not JSON",
        '{"hello": "world"}',  # JSON, but no JSON-RPC message
    ]
    lines = [_rpc(1, "initialize", init), _rpc(None, "notifications/initialized"), *bad_lines, _rpc(2, "ping")]
    with subprocess.Popen(
        [sys.executable, "-m", "remember", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(tmp_path),
        bufsize=0,  # unbuffered: select() sees every line not yet read
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        answers = [json.loads(_line_within(proc.stdout, 30)) for _ in range(len(bad_lines) + 2)]
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stdout.read().strip() == b""
    errors = [a["error"]["code"] for a in answers if "error" in a]
    assert sorted(errors) == [-32700, -32700, -32700, -32600]
    assert all(a["id"] is None for a in answers if "error" in a)
    assert {a["id"] for a in answers if "result" in a} == {1, 2}  # the session went on after them


STRAY_OUTPUT = """
import sys
from remember.mcp.stdio import answering_bad_lines

with answering_bad_lines():
    print("a stray print")
    sys.stdout.buffer.write(b'{"jsonrpc": "2.0", "id": 1, "result": {}}\\n')
    sys.stdout.buffer.flush()
"""


def test_only_protocol_lines_reach_stdout_through_the_checking_pipe() -> None:
    done = subprocess.run([sys.executable, "-c", STRAY_OUTPUT], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == '{"jsonrpc": "2.0", "id": 1, "result": {}}\n'
    assert "a stray print" in done.stderr


def _line_within(stream: Any, seconds: float) -> bytes:
    """The next line the server writes, failing (not hanging) when none comes in time."""
    ready, _, _ = select.select([stream], [], [], seconds)
    assert ready, f"no answer within {seconds} s"
    return bytes(stream.readline())


def test_a_bad_configuration_fails_on_stderr_with_advice(tmp_path: Path) -> None:
    env = {**server_env(tmp_path), "REMEMBER_DATABASE_URL": "mysql://nope"}
    proc = subprocess.run(
        [sys.executable, "-m", "remember", "serve"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "sqlite:///" in proc.stderr


def test_a_damaged_database_fails_at_start_before_any_request(tmp_path: Path) -> None:
    (tmp_path / "remember.db").write_bytes(b"this is no SQLite database, only text" * 200)
    proc = subprocess.run(
        [sys.executable, "-m", "remember", "serve"], capture_output=True, text=True, env=server_env(tmp_path),
        timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "remember.db" in proc.stderr and "Traceback" not in proc.stderr


def _serving(
    tmp_path: Path, requests: list[str], *, warmed: bool = False, idle: float = 0.0
) -> tuple[list[str], list[dict[str, Any]]]:
    """What a stdio server wrote on stderr (the modules it imported, remember's log at DEBUG) while answering
    ``requests`` (and, with ``warmed``, until it has warmed up; then ``idle`` seconds more), and its answers."""
    expected = sum('"id"' in request for request in requests)
    log = tmp_path / "stderr.txt"
    env = {**server_env(tmp_path), "REMEMBER_LOG_LEVEL": "DEBUG"}
    with log.open("w") as stderr, subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "remember", "serve"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=stderr, env=env, bufsize=0,
    ) as proc:  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(("\n".join(requests) + "\n").encode())
        proc.stdin.flush()
        answers = [json.loads(_line_within(proc.stdout, 60)) for _ in range(expected)]
        deadline = time.monotonic() + 60
        while warmed and "warmed up" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(idle)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    return log.read_text().splitlines(), answers


def _modules(lines: list[str]) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}


def _until(lines: list[str], text: str) -> list[str]:
    return lines[: next((i for i, line in enumerate(lines) if text in line), len(lines))]


def test_the_handshake_and_tools_list_do_not_wait_for_the_services(tmp_path: Path) -> None:
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    handshake = [_rpc(1, "initialize", init), _rpc(None, "notifications/initialized"), _rpc(2, "tools/list")]
    _serving(tmp_path, handshake)  # the first start keeps the tools/list answer
    lines, answers = _serving(tmp_path, handshake, warmed=True)
    assert len(answers[1]["result"]["tools"]) > 10
    # Until tools/list is answered and the warm-up begins, the services are not imported
    answered = {m for m in _modules(_until(lines, "warming up")) if m.startswith("remember")}
    assert "remember.store" in answered  # the database is opened (and checked) at start
    assert not {m for m in answered if m.startswith(("remember.service", "remember.templates", "remember.schemas"))}
    assert not {m for m in answered if m.startswith("remember.mcp.tools.")}  # the tools are registered on first use
    # then the warm-up makes ready what a first create waits for
    warmed = _modules(_until(lines, "warmed up"))
    assert {"remember.service.memories", "remember.templates.suggest", "onnxruntime"} <= warmed
    lines, _ = _serving(tmp_path, [*handshake[:2], _rpc(2, "ping")], idle=1.0)
    assert not any("warming up" in line for line in lines)  # not before tools/list or a call

    call = _rpc(3, "tools/call", {"name": "remember_create_memory", "arguments": {"content": "first call"}})
    lines, answers = _serving(tmp_path, [*handshake, call])
    assert "remember.service.memories" in _modules(lines)  # built by the first call that needs them
    assert "remember.mcp.tools.search" not in _modules(lines)  # a call registers its own tool
    assert answers[2]["result"]["structuredContent"]["content"] == "first call"


def _inspector(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not INSPECTOR.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR}; scripts/test installs it")
        pytest.skip("the MCP Inspector is not installed; run scripts/test to install it")
    node = shutil.which("node")
    assert node, "node is needed to run the MCP Inspector"
    # The inspector starts the server with a clean environment: settings go in with -e, and so does this
    # checkout's code (the installed package may be another checkout's).
    command = [str(INSPECTOR), "--cli", "-e", f"REMEMBER_HOME={tmp_path}", "-e", "REMEMBER_USER=alice"]
    command += ["-e", f"PYTHONPATH={SRC}"]
    command += [sys.executable, "-m", "remember", "serve", *args]
    env = {**server_env(tmp_path), "MCP_CATALOG_PATH": str(tmp_path / "inspector.json")}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_mcp_inspector_lists_and_calls_tools(tmp_path: Path) -> None:
    listed = _inspector(tmp_path, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "Schema portability" not in listed.stderr  # its summary of findings, printed only when there are some
    names = {t["name"] for t in json.loads(listed.stdout)["tools"]}
    assert {"remember_create_memory", "remember_list_memories", "remember_update_preferences"} <= names
    made = _inspector(
        tmp_path,
        "--method", "tools/call", "--tool-name", "remember_create_memory",
        "--tool-arg", "content=Met Sarah at PyCon", "tags=[\"people\"]",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    memory = json.loads(made.stdout)["structuredContent"]
    assert memory["tags"] == ["people"]
    listed_memories = _inspector(
        tmp_path, "--method", "tools/call", "--tool-name", "remember_list_memories", "--tool-arg", 'tags=["people"]'
    )
    assert json.loads(listed_memories.stdout)["structuredContent"]["total"] == 1


def test_the_mcp_inspector_sees_tool_errors(tmp_path: Path) -> None:
    bad = _inspector(
        tmp_path, "--method", "tools/call", "--tool-name", "remember_get_memory", "--tool-arg", "memory_id=nope"
    )
    assert bad.returncode == 5  # the inspector's exit code for a tool error
    assert "No memory with id" in bad.stdout


async def test_serve_takes_the_user_after_the_command_and_the_cli_sees_what_it_stored(tmp_path: Path) -> None:
    env = server_env(tmp_path, user="someone-else")
    params = StdioServerParameters(command=sys.executable, args=["-m", "remember", "serve", "--user", "bob"], env=env)
    async with Client(params) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "stored for bob"}))
    listed = subprocess.run(
        [sys.executable, "-m", "remember", "list", "--user", "bob", "--json"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert [m["content"] for m in json.loads(listed.stdout)["memories"]] == ["stored for bob"]
    other = subprocess.run(
        [sys.executable, "-m", "remember", "list", "--json"], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(other.stdout)["memories"] == []


async def test_the_stdio_servers_trust_level_setting(tmp_path: Path) -> None:
    env = server_env(tmp_path)
    full = StdioServerParameters(command=sys.executable, args=["-m", "remember", "serve"], env=env)
    async with Client(full) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "vault code", "trust": 0.9}))
        ok(await client.call_tool("remember_create_memory", {"content": "shopping list", "trust": 0.1}))
    limited = StdioServerParameters(
        command=sys.executable, args=["-m", "remember", "serve"], env={**env, "REMEMBER_TRUST_LEVEL": "0.5"}
    )
    async with Client(limited) as client:
        listed = ok(await client.call_tool("remember_list_memories", {}))
        assert [m["content"] for m in listed["memories"]] == ["shopping list"]


def test_a_call_the_mcp_inspector_retries_is_stored_once(tmp_path: Path) -> None:
    call = ["--method", "tools/call", "--tool-name", "remember_create_memory", "--tool-arg", "content=Met Ann at PyCon"]
    first, again = (_inspector(tmp_path, *call) for _ in range(2))
    assert first.returncode == again.returncode == 0, again.stderr
    made, repeated = (json.loads(r.stdout)["structuredContent"] for r in (first, again))
    assert repeated["id"] == made["id"]
    assert repeated["duplicate"] == {"memory_id": made["id"], "match": "repeat", "similarity": 1.0, "action": "skipped"}
    listed = _inspector(tmp_path, "--method", "tools/call", "--tool-name", "remember_list_memories")
    assert json.loads(listed.stdout)["structuredContent"]["total"] == 1
