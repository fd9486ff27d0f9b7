"""Helpers shared by tests: MCP calls through real clients, the command line in-process, database fingerprints."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from remember.cli import main


def server_env(home: Path, user: str = "alice") -> dict[str, str]:
    """The environment of a server process of its own: no REMEMBER_ setting of the test run's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBER_")}
    return {**env, "REMEMBER_HOME": str(home), "REMEMBER_USER": user}


def fingerprint(db_path: Path) -> str:
    """A hash of the database file and its WAL: equal means byte-for-byte unchanged."""
    digest = hashlib.sha256()
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        digest.update(path.read_bytes() if path.exists() else b"<absent>")
    return digest.hexdigest()


async def call(client: Client, tool: str, args: dict[str, Any]) -> CallToolResult:
    return await client.call_tool(tool, args)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return result.structured_content


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def error(result: CallToolResult) -> str:
    assert result.is_error, json.dumps(result.structured_content)
    return text(result)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``remember ARGV`` in this process: its exit status, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    """``remember ARGV --json``, which must succeed: its output parsed."""
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


SPACE_TABLES = (
    "spaces", "space_members", "memories", "memory_history", "relationships", "relationship_history", "templates",
    "preferences",
)  # fmt: skip


def space_rows(url: str) -> str:
    """Every row a call in a shared space could change, on either backend: equal means nothing changed."""
    from remember.store import open_store

    store = open_store(url)
    try:
        with store.sql.reading() as s:
            return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in SPACE_TABLES})
    finally:
        store.close()


def cli_team(capsys: pytest.CaptureFixture[str], *db: str) -> str:
    """Ann's space Team (``remember space``, in the database ``--db`` given or the configured one): Ben writes,
    Cat reads; Dan is no member. Its key."""
    key: str = run_json(capsys, *db, "space", "create", "Team", "--user", "ann")[0]["space"]
    run_json(capsys, *db, "space", "add", "Team", "ben", "--role", "writer", "--user", "ann")
    run_json(capsys, *db, "space", "add", "Team", "cat", "--role", "reader", "--user", "ann")
    for user in ("ben", "cat"):
        run_json(capsys, *db, "space", "accept", key, "--user", user)
    return key
