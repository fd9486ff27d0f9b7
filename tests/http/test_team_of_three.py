"""A team of three shares a space through a third-party client over HTTP, each with their own token.

docs/spaces.md's walkthrough, step by step, through the MCP Inspector's CLI (another vendor's MCP client, as
Claude Code is): Ann makes the space and invites Ben as a writer and Cat as a reader; each accepts with their
own token; Ben writes, Cat reads and may not write, and no one's personal memory reaches another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from http_support import HttpServer, inspector
from remember.service.tokens import TokenService

pytestmark = pytest.mark.slow


def _call(server: HttpServer, tmp_path: Path, token: str, tool: str, **args: str) -> tuple[bool, Any]:
    """The tool's answer as the Inspector prints it: whether it is an error, and its structured result."""
    argv = ["--method", "tools/call", "--tool-name", tool]
    for name, value in args.items():
        argv += ["--tool-arg", f"{name}={value}"]
    done = inspector(server, tmp_path, token, *argv)
    assert done.returncode == 0 or "tool_is_error" in done.stderr, done.stderr  # an error answer: exit 5
    answer = json.loads(done.stdout)
    return bool(answer.get("isError")), answer.get("structuredContent") or answer["content"][0]["text"]


def test_a_team_of_three_shares_a_space_each_with_their_own_token(
    http_server: HttpServer, tokens: TokenService, tmp_path: Path
) -> None:
    ann, ben, cat = (tokens.create(user, name="laptop").secret for user in ("ann", "ben", "cat"))

    def call(token: str, tool: str, **args: str) -> Any:
        failed, result = _call(http_server, tmp_path, token, tool, **args)
        assert not failed, result
        return result

    key = call(ann, "remember_manage_space", action="create", name="Atlas")["spaces"][0]["space"]
    call(ann, "remember_manage_space", action="add_member", space="Atlas", user="ben", role="writer")
    call(ann, "remember_manage_space", action="add_member", space="Atlas", user="cat", role="reader")
    offered = call(cat, "remember_manage_space", action="list")["invitations"]
    assert offered == [{"space": key, "name": "Atlas", "role": "reader", "invited_by": "ann"}]
    for token in (ben, cat):
        call(token, "remember_manage_space", action="accept", space="Atlas")

    shared = call(ben, "remember_create_memory", content="Atlas launches on the 14th, in Lisbon.", space="Atlas")
    assert shared["space"] == key and shared["created_by"] == "ben"
    call(ann, "remember_create_memory", content="Ann's own note: dentist on Tuesday.")
    found = call(cat, "remember_search_memory", query="when does Atlas launch")
    assert [h["memory"]["id"] for h in found["results"]][:1] == [shared["id"]]
    assert found["results"][0]["memory"]["space"] == key
    failed, said = _call(http_server, tmp_path, cat, "remember_create_memory", content="Cat's change", space="Atlas")
    assert failed and "You are a reader in space Atlas" in said
    for token in (ben, cat):
        seen = json.dumps(call(token, "remember_search_memory", query="dentist on Tuesday"))
        assert "dentist" not in seen
