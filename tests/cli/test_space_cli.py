"""`remember space …`, and `--space` on add, list and search: a space shared by two users of one database."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import run, run_json


def _team(capsys: pytest.CaptureFixture[str]) -> str:
    made = run_json(capsys, "space", "create", "Team", "--user", "ann")
    key: str = made[0]["space"]
    assert made[0]["role"] == "admin" and key.startswith("~")
    run_json(capsys, "space", "add", "Team", "ben", "--role", "writer", "--user", "ann")
    run_json(capsys, "space", "accept", key, "--user", "ben")
    return key


def test_a_member_writes_in_the_space_and_the_other_reads_it(capsys: pytest.CaptureFixture[str]) -> None:
    key = _team(capsys)
    shared = run_json(capsys, "add", "The team ships Atlas on Friday", "--space", "Team", "--user", "ben")
    assert shared["created_by"] == "ben"
    own = run_json(capsys, "add", "Ann's own dentist note", "--user", "ann")
    listed = run_json(capsys, "list", "--user", "ann")
    assert {m["id"] for m in listed["memories"]} == {shared["id"], own["id"]}
    only = run_json(capsys, "list", "--space", key, "--user", "ann")
    assert [m["id"] for m in only["memories"]] == [shared["id"]]
    found = run_json(capsys, "search", "Atlas", "--user", "ann")
    assert shared["id"] in {h["memory"]["id"] for h in found["results"]}
    assert own["id"] not in {m["id"] for m in run_json(capsys, "list", "--user", "ben")["memories"]}
    run_json(capsys, "update", shared["id"], "--title", "Atlas", "--reason", "named", "--user", "ann")
    got = run_json(capsys, "get", shared["id"], "--history", "--user", "ben")
    assert got["title"] == "Atlas" and [h["by"] for h in got["history"]] == ["ann"]
    code, out, _ = run(capsys, "space", "list", "--user", "ben")
    assert code == 0 and "Team" in out and "ann (admin), ben (writer)" in out


def test_refusals_name_the_fix_and_change_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    _team(capsys)
    run_json(capsys, "space", "role", "Team", "ben", "reader", "--user", "ann")
    code, _, err = run(capsys, "add", "note", "--space", "Team", "--user", "ben")
    assert code == 1 and "You are a reader in space Team" in err
    code, _, err = run(capsys, "add", "note", "--space", "Team", "--user", "cat")
    assert code == 1 and "Unknown space 'Team'" in err
    code, _, err = run(capsys, "space", "add", "Team", "cat", "--user", "ben")
    assert code == 1 and "Only the admins of space Team" in err
    code, _, err = run(capsys, "space", "leave", "Team", "--user", "ann")
    assert code == 1 and "last admin" in err
    with pytest.raises(SystemExit) as exited:
        run(capsys, "space", "add", "Team", "cat", "--role", "owner", "--user", "ann")
    assert exited.value.code == 2 and "invalid choice: 'owner'" in capsys.readouterr().err
    assert run_json(capsys, "list", "--user", "ben")["memories"] == []


def test_leave_and_delete(capsys: pytest.CaptureFixture[str]) -> None:
    key = _team(capsys)
    shared = run_json(capsys, "add", "Atlas retro", "--space", key, "--user", "ben")
    assert run_json(capsys, "space", "leave", "Team", "--user", "ben")["space"] == key
    code, _, err = run(capsys, "get", shared["id"], "--user", "ben")
    assert code == 1 and "No memory with id" in err
    code, out, _ = run(capsys, "space", "delete", "Team", "--user", "ann")
    assert code == 0 and "Deleted space Team" in out
    code, _, _ = run(capsys, "get", shared["id"], "--user", "ann")
    assert code == 1
    code, out, _ = run(capsys, "space", "list", "--user", "ann")
    assert "No shared spaces" in out


def test_whole_database_work_reaches_spaces_or_refuses_clearly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key = _team(capsys)
    shared = run_json(capsys, "add", "Atlas ships on Friday", "--space", key, "--user", "ben")
    assert run_json(capsys, "reindex")["reindexed"] == 1
    assert shared["id"] in {h["memory"]["id"] for h in run_json(capsys, "search", "Atlas", "--user", "ann")["results"]}
    for argv in (["export", "--all-users", "-o", str(tmp_path / "all.jsonl")],
                 ["db", "copy", str(tmp_path / "home" / "remember.db"), str(tmp_path / "copy.db")]):  # fmt: skip
        code, _, err = run(capsys, *argv)
        assert code == 1 and "holds shared spaces" in err and "--user" in err
    assert not (tmp_path / "all.jsonl").exists() or "memory" not in (tmp_path / "all.jsonl").read_text()
    code, _, _ = run(capsys, "export", "--user", "ann", "-o", str(tmp_path / "ann.jsonl"))
    assert code == 0 and shared["id"] not in (tmp_path / "ann.jsonl").read_text()
