"""`remember export --space` and `remember import --space` on both backends: a shared space moves to another
database with its memories, history and relationships; who stored and changed them travels out, and comes in
as the member who imports (a file can name anyone); every refusal changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support import cli_team, run, run_json, space_rows


@pytest.fixture(autouse=True)
def _database(store_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("REMEMBER_DATABASE_URL", store_url)
    return store_url


@pytest.fixture
def other_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A second database on the same backend, the one a space moves to."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'other.db'}"
    return str(request.getfixturevalue("empty_postgres_url"))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def filled_team(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Team with two memories stored by Ben, one changed by Ann, a relationship of them; Ann's personal note."""
    key = cli_team(capsys)
    first = run_json(capsys, "add", "Atlas ships on Friday", "--space", "Team", "--user", "ben")
    second = run_json(capsys, "add", "Zoe leads the Atlas launch", "--space", key, "--user", "ben")
    run_json(capsys, "update", first["id"], "--title", "Launch day", "--reason", "named", "--user", "ann")
    link = run_json(capsys, "relate", first["id"], second["id"], "--type", "led_by", "--space", "Team", "--user", "ben")
    run_json(capsys, "relationships", "update", link["id"], "--strength", "0.9", "--user", "ann")
    own = run_json(capsys, "add", "Ann's dentist is on Monday", "--user", "ann")
    return {"space": key, "first": first["id"], "second": second["id"], "link": link["id"], "own": own["id"]}


def test_a_space_moves_to_another_database_and_the_importer_is_its_author(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, other_url: str
) -> None:
    ids = filled_team(capsys)
    out = tmp_path / "team.jsonl"
    said = run_json(capsys, "export", "--space", "Team", "-o", str(out), "--user", "cat")  # a reader may export
    head, *records = lines(out)
    assert said["records"] == len(records), [r["kind"] for r in records]
    assert head["spaces"] == {ids["space"]: "Team"} and {r["user_id"] for r in records} == {ids["space"]}
    memories = {r["memory"]["id"]: r for r in records if r["kind"] == "memory"}
    assert set(memories) == {ids["first"], ids["second"]}  # nobody's personal note
    assert memories[ids["first"]]["memory"]["created_by"] == "ben"
    assert [h["by"] for h in memories[ids["first"]]["history"]] == ["ann"]
    [rel] = [r for r in records if r["kind"] == "relationship"]
    assert rel["relationship"]["id"] == ids["link"] and [h["by"] for h in rel["history"]] == ["ann"]

    db = ("--db", other_url)
    run_json(capsys, *db, "space", "create", "Atlas", "--user", "dan")
    run_json(capsys, *db, "space", "add", "Atlas", "eve", "--role", "writer", "--user", "dan")
    run_json(capsys, *db, "space", "accept", "Atlas", "--user", "eve")
    plan = run_json(capsys, *db, "import", str(out), "--space", "Atlas", "--dry-run", "--user", "eve")
    assert plan["memories"] == 2
    code, said_plan, _ = run(capsys, *db, "import", str(out), "--space", "Atlas", "--dry-run", "--user", "eve")
    assert code == 0 and said_plan == "Would import 2 memories of 1 space.\n"
    assert run_json(capsys, *db, "list", "--user", "dan")["memories"] == []  # a dry run writes nothing
    run_json(capsys, *db, "import", str(out), "--space", "Atlas", "--user", "eve")
    got = run_json(capsys, *db, "get", ids["first"], "--history", "--user", "dan")
    assert got["title"] == "Launch day" and got["created_by"] == "eve" and got["space"] != ids["space"]
    assert [(h["by"], h["reason"]) for h in got["history"]] == [("eve", "named")]
    assert [r["id"] for r in got["relationships"]] == [ids["link"]]
    shown = run_json(capsys, *db, "relationships", "show", ids["link"], "--user", "dan")
    assert shown["strength"] == 0.9 and [h["by"] for h in shown["history"]] == ["eve"]
    found = run_json(capsys, *db, "search", "Zoe launch", "--user", "dan")["results"]
    assert found[0]["memory"]["id"] == ids["second"] and found[0]["memory"]["created_by"] == "eve"
    assert run_json(capsys, *db, "list", "--user", "eve", "--space", "personal")["memories"] == []


def test_a_file_cannot_name_the_author(capsys: pytest.CaptureFixture[str], tmp_path: Path, store_url: str) -> None:
    """Ben's own export, edited to say Ann stored and changed it, comes into Team as stored by Ben."""
    cli_team(capsys)
    mine = run_json(capsys, "add", "The budget is 40k", "--user", "ben")
    run_json(capsys, "update", mine["id"], "--title", "Budget", "--user", "ben")
    run_json(capsys, "prefs", "set", "search.default_limit", "5", "--user", "ben")
    out = tmp_path / "ben.jsonl"
    run(capsys, "export", "-o", str(out), "--user", "ben")
    forged = []
    for record in lines(out):
        if record.get("kind") == "memory":
            record["memory"]["created_by"] = "ann"
            record["history"] = [{**h, "by": "ann"} for h in record["history"]]
        forged.append(json.dumps(record))
    out.write_text("\n".join(forged) + "\n")
    run_json(capsys, "rm", mine["id"], "--permanent", "--user", "ben")  # an id is in one of Ben's spaces
    plan = run_json(capsys, "import", str(out), "--space", "Team", "--user", "ben")
    assert plan["left_out"] == {"preferences": 1}
    got = run_json(capsys, "get", mine["id"], "--history", "--user", "ann")
    assert got["created_by"] == "ben" and [h["by"] for h in got["history"]] == ["ben"]
    assert '"~' not in json.dumps(json.loads(space_rows(store_url))["preferences"])  # a space has none


def test_refusals_name_the_fix_and_change_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store_url: str
) -> None:
    ids = filled_team(capsys)
    out = tmp_path / "team.jsonl"
    run(capsys, "export", "--space", "Team", "-o", str(out), "--user", "ann")
    run_json(capsys, "space", "create", "Other", "--user", "ann")
    personal = tmp_path / "ann.jsonl"
    run(capsys, "export", "-o", str(personal), "--user", "ann")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(out.read_text().splitlines()[0] + '\n{"kind": "memory", "user_id": "~0123456789abcdef"}\n')
    before = space_rows(store_url)
    refused = [
        (["import", str(out), "--space", "Team", "--user", "cat"], "You are a reader in space Team"),
        (["import", str(out), "--space", "Team", "--user", "dan"], "Unknown space 'Team'"),
        (["import", str(out), "--space", ids["space"], "--user", "dan"], "Unknown space"),
        (["import", str(out), "--space", "~0123456789abcdef", "--user", "ann"], "List yours with `remember space"),
        (["import", str(out), "--space", "x" * 10_000, "--user", "ann"], "Unknown space"),
        (["import", str(out), "--space", "", "--user", "ann"], "Name a space"),
        (["import", str(out)], "export of shared space"),
        (["import", str(out), "--space", "Team", "--user", "ann"], "--on-conflict"),
        (["import", str(out), "--space", "Other", "--user", "ann"], "in your space 'Team' already"),
        (["import", str(personal), "--space", "Other", "--user", "ann"], "in your personal space already"),
        (["import", str(bad), "--space", "Other", "--user", "ann"], "Line 2 cannot be read"),
        (["export", "--space", "Team", "-o", str(tmp_path / "no.jsonl"), "--user", "dan"], "Unknown space 'Team'"),
        (["export", "--space", "Team", "--all-users", "-o", str(tmp_path / "no.jsonl")], "not both"),
        (["export", "--all-users", "-o", str(tmp_path / "no.jsonl")], "export --space NAME"),
    ]
    for argv, message in refused:
        code, _, err = run(capsys, *argv)
        assert code == 1 and message in err, (argv, err)
        assert len(err) < 2_000
    assert space_rows(store_url) == before
    assert not (tmp_path / "no.jsonl").exists() or "memory" not in (tmp_path / "no.jsonl").read_text()


def test_markdown_of_a_space_names_who_stored_each_note(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, other_url: str
) -> None:
    ids = filled_team(capsys)
    folder = tmp_path / "notes"
    run(capsys, "export", "--space", "Team", "--format", "markdown", str(folder), "--user", "ann")
    notes = {p.name: p.read_text() for p in folder.glob("*.md")}
    assert len(notes) == 2 and all("\ncreated_by: ben\n" in text for text in notes.values())
    db = ("--db", other_url)
    run_json(capsys, *db, "space", "create", "Atlas", "--user", "eve")
    report = run_json(capsys, *db, "import", "--from", "basic-memory", str(folder), "--space", "Atlas", "--user", "eve")
    assert report["created"] == 2 and not report["unmapped"]
    got = run_json(capsys, *db, "get", ids["first"], "--user", "eve")
    assert got["created_by"] == "eve" and not got["structured_content"] and got["title"] == "Launch day"
    assert [r["type"] for r in got["relationships"]] == ["led_by"]


def test_notes_of_a_space_read_into_another_of_ones_spaces_get_ids_of_their_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ids = filled_team(capsys)
    folder = tmp_path / "notes"
    run(capsys, "export", "--space", "Team", "--format", "markdown", str(folder), "--user", "ann")
    report = run_json(capsys, "import", "--from", "basic-memory", str(folder), "--user", "ann")
    assert report["created"] == 2
    got = run_json(capsys, "get", ids["first"], "--user", "ann")
    assert got["space"] == ids["space"] and got["created_by"] == "ben"  # the shared one, as it was
    mine = run_json(capsys, "list", "--space", "personal", "--user", "ann")["memories"]
    copies = [m for m in mine if m["title"] == "Launch day"]
    assert len(copies) == 1 and copies[0]["id"] not in (ids["first"], ids["second"]) and "created_by" not in copies[0]
