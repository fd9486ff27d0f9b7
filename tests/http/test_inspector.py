"""A third-party client over HTTP: the MCP Inspector's CLI, with a token in a header."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from http_support import HttpServer
from remember.service.tokens import TokenService

pytestmark = pytest.mark.slow

INSPECTOR = Path(__file__).resolve().parents[2] / ".cache" / "node" / "node_modules" / ".bin" / "mcp-inspector"


def _inspector(server: HttpServer, tmp_path: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    if not INSPECTOR.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR}; scripts/test installs it")
        pytest.skip("the MCP Inspector is not installed; run scripts/test to install it")
    assert shutil.which("node"), "node is needed to run the MCP Inspector"
    command = [str(INSPECTOR), "--cli", f"{server.url}/mcp", "--transport", "http"]
    command += ["--header", f"Authorization: Bearer {token}", *args]
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "inspector.json")}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_inspector_lists_and_calls_tools_with_a_token(
    http_server: HttpServer, tokens: TokenService, tmp_path: Path
) -> None:
    token = tokens.create("alice").secret
    listed = _inspector(http_server, tmp_path, token, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "remember_create_memory" in {t["name"] for t in json.loads(listed.stdout)["tools"]}
    args = ["--method", "tools/call", "--tool-name", "remember_create_memory", "--tool-arg", "content=via inspector"]
    made = _inspector(http_server, tmp_path, token, *args)
    assert made.returncode == 0, made.stderr
    assert "via inspector" in made.stdout
    refused = _inspector(http_server, tmp_path, "rmb_wrong", "--method", "tools/list")
    assert refused.returncode != 0
    # Told not to start an OAuth flow of its own, the Inspector shows what the server said of the token.
    told = _inspector(http_server, tmp_path, "rmb_wrong", "--stored-auth-only", "--method", "tools/list")
    assert told.returncode != 0 and "not an API token of remember" in told.stdout + told.stderr
