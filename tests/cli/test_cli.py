"""The `remember` command, called in-process and as a real console script."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from remember.cli import main
from remember.cli.parser import build_parser
from support import run, run_json


def test_add_get_update_list_rm_restore(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(
        capsys, "add", "Sarah is a PM at Google", "--title", "Sarah", "--tag", "people", "--when", "2026-02-10"
    )
    assert made["tags"] == ["people"]
    assert made["context"]["timestamp"].startswith("2026-02-10")
    updated = run_json(capsys, "update", made["id"], "--weight", "0.9", "--reason", "promoted")
    assert updated["version"] == 2
    got = run_json(capsys, "get", made["id"], "--history")
    assert got["history"][0]["reason"] == "promoted"
    listed = run_json(capsys, "list", "--tag", "people")
    assert [m["id"] for m in listed["memories"]] == [made["id"]]
    assert run_json(capsys, "rm", made["id"]) == {"memory_id": made["id"], "permanent": False}
    assert run_json(capsys, "list")["total"] == 0
    assert run_json(capsys, "restore", made["id"])["deleted_at"] is None
    assert run_json(capsys, "rm", made["id"], "--permanent")["permanent"] is True
    code, _, err = run(capsys, "get", made["id"])
    assert code == 1 and "No memory with id" in err


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "add", "A fairly long note " * 10, "--tag", "x")
    assert code == 0 and "id:" in out and "tags:" in out
    code, out, _ = run(capsys, "list")
    assert code == 0 and "[x]" in out and "-- 1-1 of 1" in out


def test_content_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("from a pipe\n"))
    assert run_json(capsys, "add", "-")["content"] == "from a pipe"


def test_list_filter_and_paging(capsys: pytest.CaptureFixture[str]) -> None:
    for weight in ("0.1", "0.9", "0.95"):
        run_json(capsys, "add", f"note {weight}", "--weight", weight)
    heavy = run_json(capsys, "list", "--filter", '{"weight": {"gte": 0.9}}', "--sort", "weight", "--asc")
    assert [m["weight"] for m in heavy["memories"]] == [0.9, 0.95]
    assert len(run_json(capsys, "list", "--limit", "1", "--offset", "2")["memories"]) == 1


def test_prefs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, "prefs", "get", "search") == {
        "search": {
            "default_limit": 10,
            "default_alpha": "auto",
            "min_score": 0.2,
            "weight_boost": 0.1,
            "recency_boost": 0.0,
            "recency_half_life_days": 30.0,
        }
    }
    change = run_json(capsys, "prefs", "set", "search.default_limit", "25", "--reason", "more")
    assert (change["old_value"], change["new_value"]) == (10, 25)
    change = run_json(capsys, "prefs", "set", "memory.default_type", "fact")
    assert change["new_value"] == "fact"
    change = run_json(capsys, "prefs", "set", "templates.suppressed_categories", '["work"]')
    assert change["new_value"] == ["work"]


def test_users_are_separate(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "--user", "alice", "add", "alice's")
    assert run_json(capsys, "--user", "bob", "list")["total"] == 0
    code, _, err = run(capsys, "--user", "bob", "get", made["id"])
    assert code == 1 and "No memory with id" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", ""], "TEXT must not be empty"),
        (["add", "x", "--weight", "2"], "--weight must be a number from 0 to 1"),
        (["add", "x", "--ref", "ftp://x"], "http:// or https://"),
        (["add", "x", "--when", "tomorrow"], "not an ISO 8601"),
        (["get", "nope"], "No memory with id 'nope'"),
        (["update", "nope", "--title", "x"], "No memory with id"),
        (["rm", "nope"], "No memory with id"),
        (["restore", "nope"], "No memory with id"),
        (["list", "--limit", "0"], "--limit must be a whole number from 1 to 100"),
        (["list", "--filter", "{bad json"], "--filter must be JSON"),
        (["list", "--filter", '{"colour": 1}'], "Unknown filter field"),
        (["prefs", "set", "nope.nope", "1"], "Unknown preference"),
        (["prefs", "set", "search.default_limit", "many"], "whole number"),
        (["prefs", "get", "colours"], "Unknown preference category"),
        (["--user", "bad user", "list"], "--user alice"),
        (["--db", "mysql://x", "list"], "sqlite:///"),
    ],
)
def test_errors_go_to_stderr_with_advice(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    assert ": error: " in err and message in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["get"])
    assert exc.value.code == 2
    assert "the following arguments are required: ID" in capsys.readouterr().err


def test_update_of_a_bad_value_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--title", "keep")
    code, _, _ = run(capsys, "update", made["id"], "--title", "new", "--weight", "5")
    assert code == 1
    assert run_json(capsys, "get", made["id"])["title"] == "keep"


def _subcommands(parser: Any) -> list[tuple[str, Any]]:
    found = []
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for name, sub in action.choices.items():
                found.append((name, sub))
                found.extend((f"{name} {child}", p) for child, p in _subcommands(sub))
    return found


def test_every_command_and_option_has_help() -> None:
    commands = _subcommands(build_parser())
    assert {"serve", "add", "get", "list", "update", "rm", "restore", "prefs", "prefs get", "prefs set"} <= {
        name for name, _ in commands
    }
    for name, sub in commands:
        assert sub.description, f"`remember {name}` has no help text"
        for action in sub._actions:
            assert action.help, f"`remember {name}` option {action.dest} has no help text"


def test_every_command_has_a_handler() -> None:
    for name, sub in _subcommands(build_parser()):
        if not any(a.__class__.__name__ == "_SubParsersAction" for a in sub._actions):
            assert callable(sub.get_default("handler")), f"`remember {name}` has no handler"


def test_reading_the_grammar_imports_no_services() -> None:
    """Every command module is read for its grammar, for `remember serve` too: handlers import the services
    when they run, so that the stdio server answers before they are imported."""
    heavy = ("remember.app", "remember.service", "remember.templates", "remember.store", "webbrowser")
    code = (
        "import sys; from remember.cli.parser import build_parser; build_parser(); "
        f"print(' '.join(sorted(m for m in sys.modules if m.startswith({heavy!r}))))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert found.stdout.split() == []


def test_the_console_script_runs(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("remember")
    env = {"REMEMBER_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    made = subprocess.run(
        [str(exe), "add", "hello", "--json"], capture_output=True, text=True, env=env, check=True, timeout=60
    )
    assert json.loads(made.stdout)["content"] == "hello"
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True, timeout=60)
    assert version.stdout.startswith("remember ")
    piped = subprocess.run(
        f"{exe} list | head -c 10", shell=True, capture_output=True, text=True, env=env, check=True, timeout=60
    )
    assert "Traceback" not in piped.stderr


def test_a_year_before_1000_is_stored_and_listed(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "ancient thing", "--when", "0999-05-01")
    assert made["context"]["timestamp"] == "0999-05-01T00:00:00.000000Z"
    assert [m["id"] for m in run_json(capsys, "list", "--since", "0999-01-01")["memories"]] == [made["id"]]
    assert run_json(capsys, "list", "--sort", "occurred_at")["memories"][0]["id"] == made["id"]


def test_an_empty_user_is_refused(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMEMBER_USER", "bob")
    for argv in (["--user", "", "list"], ["list", "--user", ""], ["add", "x", "--user="]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (1, "")
        assert "--user was given an empty user id" in err
    assert run_json(capsys, "--user", "bob", "list")["total"] == 0


@pytest.mark.parametrize(("given", "used"), [(None, "1"), ("3", "3")])
def test_the_command_runs_numpys_products_on_one_thread_unless_told(given: str | None, used: str) -> None:
    """Set before NumPy loads (the server's small products must not spin up OpenBLAS threads); a value the
    environment gives is kept."""
    script = (
        "import os\nfrom remember.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == used
