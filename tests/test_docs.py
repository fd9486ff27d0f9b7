"""The README and docs cannot drift from the code: they are checked against it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

from remember.cli.parser import build_parser
from remember.mcp.server import build_server
from remember.preferences import SPECS
from remember.service import Services

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_starts_with_the_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert blocks[0] == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/remember serve"
    assert blocks[1] == "scripts/test"
    assert (ROOT / "scripts" / "test").stat().st_mode & 0o111
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.anyio
async def test_readme_lists_every_tool(services: Services) -> None:
    async with Client(build_server(services, lambda: "u")) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    listed = set(re.findall(r"^\| `(remember_\w+)` \|", README, re.M))
    assert listed == names


def test_readme_lists_every_command() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    commands = set(sub.choices)
    documented = set(re.findall(r"^\| `remember (\w+)", README, re.M))
    assert documented == commands


def test_readme_lists_every_environment_variable() -> None:
    source = (ROOT / "src" / "remember" / "config.py").read_text()
    used = set(re.findall(r"REMEMBER_[A-Z_]+", source))
    documented = set(re.findall(r"`(REMEMBER_[A-Z_]+)`", README))
    assert used <= documented


def test_preferences_doc_lists_every_preference() -> None:
    doc = (ROOT / "docs" / "preferences.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", doc, re.M))
    assert documented == {s.path for s in SPECS}


def test_readme_links_resolve() -> None:
    for link in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)\)", README):
        assert (ROOT / link).exists(), link


def test_the_command_line_docs_commands_are_read_by_the_grammar() -> None:
    """Every command of docs/command-line.md's shell examples is one the command line accepts as written."""
    import shlex

    doc = (ROOT / "docs" / "command-line.md").read_text()
    commands = [
        line.split("  #")[0].strip()
        for block in re.findall(r"```sh\n(.*?)\n```", doc, re.S)
        for line in block.splitlines()
    ]
    assert len(commands) >= 10
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "remember", command
        build_parser().parse_args(words[1:])  # exits 2 (failing the test) on a command it cannot read
