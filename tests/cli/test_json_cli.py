"""`--json` on every command that prints (all but `serve`, whose stdout is the MCP protocol's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from remember.cli.parser import build_parser
from support import run, run_json


def _leaves(parser: Any, name: str = "") -> list[tuple[str, Any]]:
    groups = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    if not groups:
        return [(name, parser)]
    return [
        leaf for g in groups for child, sub in g.choices.items() for leaf in _leaves(sub, f"{name} {child}".strip())
    ]


# serve prints nothing; a hook answers in its assistant's own JSON protocol, always.
NO_JSON = {"serve", "hook claude-code", "hook gemini-cli"}


def test_every_command_but_serve_takes_json() -> None:
    lacking = [
        name for name, sub in _leaves(build_parser())
        if name not in NO_JSON and "--json" not in {s for a in sub._actions for s in a.option_strings}
    ]  # fmt: skip
    assert lacking == []


def test_export_says_what_it_wrote_as_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run_json(capsys, "add", "Sarah is a PM at Google", "--no-suggestion")
    run_json(capsys, "add", "Tom is an engineer", "--no-suggestion")
    dump = tmp_path / "dump.jsonl"
    said = run_json(capsys, "export", "-o", str(dump))
    assert said == {"format": "jsonl", "path": str(dump), "records": len(dump.read_text().splitlines()) - 1}
    notes = tmp_path / "notes"
    assert run_json(capsys, "export", "--format", "markdown", str(notes)) == {
        "format": "markdown", "path": str(notes), "memories": 2,
    }  # fmt: skip
    assert len(list(notes.iterdir())) == 2


def test_an_export_to_stdout_keeps_stdout_for_the_export(capsys: pytest.CaptureFixture[str]) -> None:
    run_json(capsys, "add", "x", "--no-suggestion")
    code, out, err = run(capsys, "export", "--json")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["format"] == "remember-export"
    assert json.loads(err) == {"format": "jsonl", "path": "-", "records": len(records) - 1}


def test_export_without_json_counts_in_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run_json(capsys, "add", "x", "--no-suggestion")
    code, out, err = run(capsys, "export", "--format", "markdown", str(tmp_path / "notes"))
    assert (code, out) == (0, "")
    assert err == f"Exported 1 memory (markdown) to {tmp_path / 'notes'}.\n"
