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
