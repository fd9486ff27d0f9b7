"""A third-party client over HTTP: the MCP Inspector's CLI, with a token in a header."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from http_support import HttpServer, inspector
from remember.service.tokens import TokenService

pytestmark = pytest.mark.slow


def test_the_inspector_lists_and_calls_tools_with_a_token(
    http_server: HttpServer, tokens: TokenService, tmp_path: Path
) -> None:
    token = tokens.create("alice").secret
    listed = inspector(http_server, tmp_path, token, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "remember_create_memory" in {t["name"] for t in json.loads(listed.stdout)["tools"]}
    args = ["--method", "tools/call", "--tool-name", "remember_create_memory", "--tool-arg", "content=via inspector"]
    made = inspector(http_server, tmp_path, token, *args)
    assert made.returncode == 0, made.stderr
    assert "via inspector" in made.stdout
    refused = inspector(http_server, tmp_path, "rmb_wrong", "--method", "tools/list")
    assert refused.returncode != 0
    # Told not to start an OAuth flow of its own, the Inspector shows what the server said of the token.
    told = inspector(http_server, tmp_path, "rmb_wrong", "--stored-auth-only", "--method", "tools/list")
    assert told.returncode != 0 and "not an API token of remember" in told.stdout + told.stderr
