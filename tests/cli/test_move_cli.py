"""`remember move` and `remember copy`: a memory into another space by its id or its first characters."""

from __future__ import annotations

import pytest

from support import run, run_json


def _team(capsys: pytest.CaptureFixture[str]) -> str:
    key: str = run_json(capsys, "space", "create", "Team", "--user", "ann")[0]["space"]
    run_json(capsys, "space", "add", "Team", "ben", "--role", "reader", "--user", "ann")
    run_json(capsys, "space", "accept", key, "--user", "ben")
    return key


def test_move_and_copy_by_the_first_characters_of_an_id(capsys: pytest.CaptureFixture[str]) -> None:
    key = _team(capsys)
    made = run_json(capsys, "add", "The walrus plan", "--user", "ann")
    moved = run_json(capsys, "move", made["id"][:8], "--to-space", "Team", "--reason", "for the team", "--user", "ann")
    assert moved["id"] == made["id"] and moved["space"] == key
    got = run_json(capsys, "get", made["id"], "--history", "--user", "ben")
    assert got["history"][0]["action"] == "move" and got["history"][0]["reason"].endswith(": for the team")
    code, out, _ = run(capsys, "get", made["id"], "--history", "--user", "ben")
    history = out.split("history, newest first:")[1]
    assert code == 0 and "moved from personal to Team: for the team" in history and "space" not in history
    copied = run_json(capsys, "copy", made["id"], "--to-space", "personal", "--user", "ben")
    assert copied["id"] != made["id"] and copied.get("space") is None and copied["content"] == "The walrus plan"
    code, out, _ = run(capsys, "get", copied["id"], "--history", "--user", "ben")
    assert code == 0 and f"copied from memory {made['id']} in Team" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--to-space", "Nowhere"], "Unknown space 'Nowhere'"),
        (["--to-space", ""], "Name the space"),
        (["--to-space", "personal"], "in space personal already"),
    ],
)
def test_bad_moves_are_explained_and_change_nothing(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    _team(capsys)
    made = run_json(capsys, "add", "Ann's note", "--user", "ann")
    code, _, err = run(capsys, "move", made["id"], *args, "--user", "ann")
    assert code != 0 and says in err
    assert run_json(capsys, "get", made["id"], "--user", "ann")["version"] == 1


def test_a_reader_cannot_move_out_and_another_users_id_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    _team(capsys)
    shared = run_json(capsys, "add", "Team note", "--space", "Team", "--user", "ann")
    code, _, err = run(capsys, "move", shared["id"], "--to-space", "personal", "--user", "ben")
    assert code == 1 and "You are a reader in space Team" in err
    own = run_json(capsys, "add", "Ann's own", "--user", "ann")
    for action in ("move", "copy"):
        code, _, err = run(capsys, action, own["id"], "--to-space", "personal", "--user", "ben")
        assert code == 1 and "No memory" in err
    assert run_json(capsys, "get", shared["id"], "--user", "ann")["version"] == 1
