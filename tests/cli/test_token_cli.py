"""`remember token create`, `list` and `revoke`."""

from __future__ import annotations

import json

import pytest

from support import run, run_json


def test_create_prints_the_token_once_and_list_never_shows_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "token", "create", "--user", "ana", "--name", "laptop", "--expires", "30d")
    assert code == 0
    token = out.strip()
    assert token.startswith("rmb_") and "not shown again" in err
    listed = run_json(capsys, "token", "list", "--user", "ana")
    assert [(t["user_id"], t["name"], t["trust_level"]) for t in listed] == [("ana", "laptop", 1.0)]
    assert listed[0]["expires_at"] is not None
    assert token.split("_", 2)[2] not in json.dumps(listed)
    assert run_json(capsys, "token", "list", "--user", "bob") == []
    assert len(run_json(capsys, "token", "list", "--all-users")) == 1


def test_revoke_marks_the_token_revoked(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "token", "create", "--user", "ana", "--trust-level", "0.7")
    assert made["trust_level"] == 0.7 and made["token"].startswith(f"rmb_{made['id']}_")
    revoked = run_json(capsys, "token", "revoke", made["id"])
    assert revoked["revoked_at"] is not None
    code, _, err = run(capsys, "token", "revoke", "0123456789abcdef")
    assert code == 1 and "remember token list" in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--expires", "soon"], "not a duration"),
        (["--expires", "0d"], "not a duration"),
        (["--trust-level", "1.5"], "from 0 to 1"),
        (["--name", ""], "1-200 characters"),
    ],
)
def test_bad_options_are_explained(capsys: pytest.CaptureFixture[str], args: list[str], says: str) -> None:
    code, _, err = run(capsys, "token", "create", "--user", "ana", *args)
    assert code == 1 and says in err


def test_a_token_limited_to_spaces_names_them_in_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    team = run_json(capsys, "space", "create", "Team", "--user", "ana")[0]["space"]
    made = run_json(capsys, "token", "create", "--user", "ana", "--space", "Team", "--space", "personal")
    assert sorted(made["spaces"]) == sorted([team, "ana"])
    code, out, _ = run(capsys, "token", "list", "--user", "ana")
    assert code == 0 and "SPACES" in out and "Team,personal" in out.replace("personal,Team", "Team,personal")
    code, _, err = run(capsys, "token", "create", "--user", "ana", "--space", "Team")
    assert code == 0 and "reaching Team" in err
    unlimited = run_json(capsys, "token", "create", "--user", "ana")
    assert unlimited["spaces"] is None
    code, out, _ = run(capsys, "token", "list", "--user", "ana")
    assert out.count(" all ") == 1


@pytest.mark.parametrize(
    ("spaces", "says"),
    [
        (["Nowhere"], "Unknown space 'Nowhere'"),
        (["~0123456789abcdef"], "Unknown space"),
        (["Bobs"], "Unknown space 'Bobs'"),  # bob's space, ana is not in it
        ([""], "Name a space"),
        (["x" * 5000], "Unknown space"),
        ([f"s{i}" for i in range(21)], "at most 20 spaces"),
    ],
)
def test_a_token_reaches_only_spaces_its_user_is_in(
    capsys: pytest.CaptureFixture[str], spaces: list[str], says: str
) -> None:
    bobs = run_json(capsys, "space", "create", "Bobs", "--user", "bob")[0]["space"]
    spaces = [bobs if s == "~0123456789abcdef" else s for s in spaces]
    args = [a for s in spaces for a in ("--space", s)]
    code, out, err = run(capsys, "token", "create", "--user", "ana", *args)
    assert code == 1 and says in err and out == ""
    assert run_json(capsys, "token", "list", "--all-users") == []
