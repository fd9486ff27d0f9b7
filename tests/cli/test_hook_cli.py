"""`remember hook claude-code|gemini-cli`: the documented event JSON fed on stdin, over a real database
with the real model, and what the hook prints; `remember hook install` on real settings files."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support import run, run_json

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def memories(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    notes = {
        "tests": ["The user prefers pytest over unittest and runs tests under nice -n 19", "--weight", "0.9"],
        "anna": ["Anna's birthday is on 14 March; she likes orchids", "--when", "2024-03-01"],
        "deploy": ["Deploys of the billing service go through the staging cluster first"],
        "dinner": ["Dinner at Luigi's was great, the carbonara especially"],
    }
    return {key: run_json(capsys, "add", *argv, "--no-suggestion")["id"] for key, argv in notes.items()}


def hook(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: bytes, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    return run(capsys, "hook", *argv)


def event(name: str, **fields: Any) -> bytes:
    base = {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/project"}
    return json.dumps({**base, "hook_event_name": name, **fields}).encode()


def context_of(out: str, event_name: str) -> list[str]:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == event_name
    lines: list[str] = answer["additionalContext"].splitlines()
    assert lines[0].startswith("Memories from `remember`")
    return lines[1:]


def test_a_prompt_gets_the_memories_relevant_to_it_and_no_others(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, memories: dict[str, str]
) -> None:
    code, out, err = hook(
        capsys, monkeypatch, event("UserPromptSubmit", prompt="what gift should I buy Anna?"), "claude-code"
    )
    assert code == 0 and err == ""
    assert context_of(out, "UserPromptSubmit") == ["[1] 2024-03-01: Anna's birthday is on 14 March; she likes orchids"]
    code, out, _ = hook(capsys, monkeypatch, event("BeforeAgent", prompt="deploy billing to production"), "gemini-cli")
    assert code == 0 and context_of(out, "BeforeAgent")[0].endswith("go through the staging cluster first")


def test_an_unrelated_prompt_gets_nothing_at_all(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, memories: dict[str, str]
) -> None:
    prompt = event("UserPromptSubmit", prompt="explain quantum chromodynamics")
    assert hook(capsys, monkeypatch, prompt, "claude-code") == (0, "", "")


def test_a_session_starts_with_the_heaviest_then_the_latest_memories(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, memories: dict[str, str]
) -> None:
    code, out, _ = hook(capsys, monkeypatch, event("SessionStart", source="startup"), "claude-code")
    lines = context_of(out, "SessionStart")
    assert code == 0 and len(lines) == 4 and "prefers pytest" in lines[0]
    run_json(capsys, "add", "A long note on the garden. " * 40, "--no-suggestion")
    code, out, _ = hook(capsys, monkeypatch, event("SessionStart", source="startup"), "claude-code", "--budget", "100")
    within = context_of(out, "SessionStart")
    assert 1 <= len(within) < 5 and len("\n".join(within)) <= 100 * 4


def test_a_templated_memory_shows_its_fields(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run_json(
        capsys, "add", "--template", "builtin:book_review",
        "--field", "title=Dune", "--field", "author=Frank Herbert", "--field", "rating=5",
    )  # fmt: skip
    _, out, err = hook(
        capsys, monkeypatch, event("UserPromptSubmit", prompt="the Dune book by Frank Herbert"), "claude-code"
    )
    line = context_of(out, "UserPromptSubmit")[0]
    assert "title: Dune" in line and "author: Frank Herbert" in line and "\n" not in line, err


def test_an_empty_memory_answers_nothing(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert hook(capsys, monkeypatch, event("SessionStart", source="resume"), "claude-code") == (0, "", "")


@pytest.mark.parametrize(
    ("stdin", "reason"),
    [
        (b"not json", "input is not JSON"),
        (b"[1, 2]", "input is not a JSON object"),
        (event("Stop"), "'Stop' is not an event this hook answers"),
        (event("UserPromptSubmit"), "UserPromptSubmit without a prompt"),
        (event("UserPromptSubmit", prompt="   "), "UserPromptSubmit without a prompt"),
        (b" " * 1_000_001, "not a hook event"),
        (b"\xff\xfe", "input is not JSON"),
    ],
)
def test_bad_input_exits_0_with_nothing_on_stdout_and_one_line_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: bytes, reason: str
) -> None:
    code, out, err = hook(capsys, monkeypatch, stdin, "claude-code")
    assert (code, out) == (0, "") and err.count("\n") == 1
    assert err.startswith("remember hook claude-code: no memories given: ") and reason in err


def test_a_budget_out_of_range_gives_nothing_rather_than_failing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, memories: dict[str, str]
) -> None:
    code, out, err = hook(capsys, monkeypatch, event("SessionStart", source="startup"), "claude-code", "--budget", "5")
    assert (code, out) == (0, "") and "--budget must be a whole number from 100 to 32000" in err


def test_the_real_command_answers_a_prompt(tmp_path: Path, memories: dict[str, str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "remember", "hook", "claude-code"],
        input=event("UserPromptSubmit", prompt="how should I run the tests here?"),
        capture_output=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "prefers pytest" in context_of(done.stdout.decode(), "UserPromptSubmit")[0]


def test_install_merges_into_the_project_settings_keeping_what_is_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {"type": "command", "command": "echo hi"}
    settings.write_text(json.dumps({"model": "opus", "hooks": {"SessionStart": [{"hooks": [theirs]}]}}))
    code, out, _ = run(capsys, "hook", "install", "claude-code", "--project", str(tmp_path))
    assert code == 0 and out.startswith("Added `remember hook claude-code` on SessionStart and UserPromptSubmit")
    first = json.loads(settings.read_text())
    ours = {"hooks": [{"type": "command", "command": "remember hook claude-code"}]}
    assert first == {
        "model": "opus",
        "hooks": {"SessionStart": [{"hooks": [theirs]}, ours], "UserPromptSubmit": [ours]},
    }
    code, out, _ = run(capsys, "hook", "install", "claude-code", "--project", str(tmp_path))
    assert code == 0 and out.startswith("Already there:") and json.loads(settings.read_text()) == first
    run(capsys, "hook", "install", "claude-code", "--project", str(tmp_path), "--budget", "300")
    updated = json.loads(settings.read_text())["hooks"]["UserPromptSubmit"]
    assert updated == [{"hooks": [{"type": "command", "command": "remember hook claude-code --budget 300"}]}]


def test_install_in_the_home_folder_for_gemini(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    code, _, _ = run(capsys, "hook", "install", "gemini-cli", "--home")
    written = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert code == 0 and set(written["hooks"]) == {"SessionStart", "BeforeAgent"}
    assert written["hooks"]["BeforeAgent"][0]["hooks"][0]["command"] == "remember hook gemini-cli"


def test_install_refuses_a_settings_file_that_is_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{oops")
    code, _, err = run(capsys, "hook", "install", "claude-code", "--project", str(tmp_path))
    assert code == 1 and "is not JSON" in err and "fix it, then run the install again" in err
