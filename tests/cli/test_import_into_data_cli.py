"""`remember import FILE` into a database with data: --on-conflict, --user, --dry-run, and refusals that leave
the database file as it was, byte for byte."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from support import fingerprint, run, run_json


@pytest.fixture
def dump(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """An export of local (two notes, one related to the other, a preference) and bob (one note)."""
    url = str(tmp_path / "source.db")
    first = run_json(capsys, "--db", url, "add", "Sarah is a PM at Google", "--tag", "people")
    second = run_json(capsys, "--db", url, "add", "Sarah recommended Dune")
    run_json(capsys, "--db", url, "relate", first["id"], second["id"], "--type", "mentions")
    run_json(capsys, "--db", url, "prefs", "set", "search.default_limit", "30")
    run_json(capsys, "--db", url, "--user", "bob", "add", "Bob's note")
    path = tmp_path / "dump.jsonl"
    assert run(capsys, "--db", url, "export", "--all-users", "-o", str(path))[0] == 0
    return path


def contents(capsys: pytest.CaptureFixture[str], db: Path, user: str = "local") -> list[tuple[str, float]]:
    listed = run_json(capsys, "--db", str(db), "--user", user, "list")["memories"]
    return sorted((m["content"], m["weight"]) for m in listed)


def test_skip_keeps_what_is_stored_and_replace_overwrites_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dump: Path
) -> None:
    db = tmp_path / "target.db"
    assert run(capsys, "--db", str(db), "import", str(dump))[0] == 0
    [sarah] = [m for m in run_json(capsys, "--db", str(db), "list")["memories"] if "Google" in m["content"]]
    run_json(capsys, "--db", str(db), "update", sarah["id"], "--weight", "0.9")
    run_json(capsys, "--db", str(db), "add", "a note of the target's own")
    before = fingerprint(db)

    code, _, err = run(capsys, "--db", str(db), "import", str(dump))
    assert code == 1 and "user local: 2 memories (" in err and "1 relationship (" in err and "1 preference (" not in err
    assert "Choose with --on-conflict: skip keeps what is stored and imports the rest, replace overwrites" in err
    assert fingerprint(db) == before

    code, out, _ = run(capsys, "--db", str(db), "import", str(dump), "--on-conflict", "skip")
    assert code == 0 and out.splitlines()[0] == (
        "Imported 0 of the file's 3 memories (2 users); stored already, kept as they are:"
    )
    assert "\n  user local: 2 memories ('" in out and "'), 1 relationship ('" in out
    assert (sarah["content"], 0.9) in contents(capsys, db)

    report = run_json(capsys, "--db", str(db), "import", str(dump), "--on-conflict", "replace")
    assert report["stored_already"] == {
        "bob": {"memories": 1}, "local": {"memories": 2, "relationships": 1},
    }  # fmt: skip
    assert contents(capsys, db) == sorted(
        [(sarah["content"], 0.5), ("Sarah recommended Dune", 0.5), ("a note of the target's own", 0.5)]
    )
    shown = run_json(capsys, "--db", str(db), "get", sarah["id"], "--history")
    assert (shown["version"], shown.get("history", [])) == (1, [])  # the file's, in place of the update made here


def test_user_imports_the_files_one_user_into_the_named_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dump: Path
) -> None:
    one = tmp_path / "bob.jsonl"
    lines = dump.read_text().splitlines()
    one.write_text("\n".join(line for line in lines if '"user_id": "local"' not in line) + "\n")
    db = tmp_path / "target.db"
    assert run_json(capsys, "--db", str(db), "--user", "carol", "import", str(one))["users"] == {"carol": 1}
    assert run_json(capsys, "--db", str(db), "import", str(one), "--user", "dave")["users"] == {"dave": 1}
    assert contents(capsys, db, "carol") == contents(capsys, db, "dave") == [("Bob's note", 0.5)]
    assert run_json(capsys, "--db", str(db), "--user", "bob", "list")["total"] == 0  # the file's user: untouched
    code, _, err = run(capsys, "--db", str(db), "--user", "carol", "import", str(one))
    assert code == 1 and "user carol: 1 memory" in err  # carol has it now

    before = fingerprint(db)
    code, _, err = run(capsys, "--db", str(db), "--user", "erin", "import", str(dump), "--on-conflict", "skip")
    assert code == 1 and "This export holds 2 users (bob, local); --user takes the export of one user." in err
    assert fingerprint(db) == before


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda lines: [*lines[:-1], "{not json", lines[-1]], "is not JSON"),
        (lambda lines: [*lines, lines[1]], "again (line 2 has it): an export has each once"),
        (lambda lines: [*lines, json.dumps({**json.loads(lines[1]), "user_id": "x" * 200})], "is not usable"),
        (lambda lines: [*lines, '{"kind": "memory", "user_id": "local", "memory": {"id": "m"}}'], "cannot be read"),
        (lambda lines: [*lines, '{"kind": "preference", "user_id": "local", "path": "p", "value": NaN}'],
         "holds NaN, which is not a JSON number"),
    ],
)  # fmt: skip
def test_a_bad_line_anywhere_leaves_the_database_as_it_was(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dump: Path, corrupt: object, message: str
) -> None:
    db = tmp_path / "target.db"
    run_json(capsys, "--db", str(db), "add", "here before")
    before = fingerprint(db)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(corrupt(dump.read_text().splitlines())) + "\n")  # type: ignore[operator]
    for mode in ("refuse", "skip", "replace"):
        code, _, err = run(capsys, "--db", str(db), "import", str(bad), "--on-conflict", mode)
        assert code == 1 and message in err, err
        assert fingerprint(db) == before


def test_a_dry_run_checks_everything_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, dump: Path
) -> None:
    db = tmp_path / "target.db"
    assert run(capsys, "--db", str(db), "import", str(dump))[0] == 0
    before = fingerprint(db)
    monkeypatch.setattr(sys, "stdin", io.StringIO(dump.read_text()))
    code, out, _ = run(capsys, "--db", str(db), "import", "-", "--dry-run", "--on-conflict", "replace")
    first, bob, local = out.splitlines()
    assert code == 0 and first == "Would import 3 memories of 2 users, in place of what was stored already:"
    assert bob.startswith("  user bob: 1 memory ('")
    assert local.startswith("  user local: 2 memories ('")
    assert local.endswith("'), 1 relationship ('" + local.rsplit("('", 1)[1])
    assert fingerprint(db) == before


def test_on_conflict_is_for_remember_exports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    code, _, err = run(capsys, "import", "--from", "basic-memory", str(notes), "--on-conflict", "skip")
    assert code == 1 and "--on-conflict is for remember exports" in err
    with pytest.raises(SystemExit):
        run(capsys, "import", str(notes), "--on-conflict", "merge")
    assert "--on-conflict: invalid choice: 'merge' (choose from refuse, skip, replace)" in capsys.readouterr().err
