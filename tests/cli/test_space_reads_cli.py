"""The command line in shared spaces on both backends: what names a memory's space, and how a space that is not
yours is answered."""

from __future__ import annotations

import json

import pytest

from remember.store import open_store
from support import run, run_json

TABLES = ("spaces", "space_members", "memories", "memory_history", "relationships", "relationship_history")


@pytest.fixture(autouse=True)
def _database(store_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("REMEMBER_DATABASE_URL", store_url)
    return store_url


def rows(url: str) -> str:
    """Every row a space call could change, to show a refused one changed nothing."""
    store = open_store(url)
    try:
        with store.sql.reading() as s:
            return json.dumps({t: sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES})
    finally:
        store.close()


def team(capsys: pytest.CaptureFixture[str]) -> str:
    """Ann's space Team: Ben writes, Cat reads; Dan is no member."""
    key: str = run_json(capsys, "space", "create", "Team", "--user", "ann")[0]["space"]
    run_json(capsys, "space", "add", "Team", "ben", "--role", "writer", "--user", "ann")
    run_json(capsys, "space", "add", "Team", "cat", "--role", "reader", "--user", "ann")
    return key


def test_list_search_and_get_name_the_space_of_a_shared_memory(capsys: pytest.CaptureFixture[str]) -> None:
    key = team(capsys)
    shared = run_json(capsys, "add", "Atlas ships on Friday", "--space", "Team", "--user", "ben")
    own = run_json(capsys, "add", "Atlas is a book on the shelf", "--user", "cat")
    assert shared["space"] == key and "space" not in own
    results = run_json(capsys, "search", "Atlas", "--user", "cat")["results"]
    found = {h["memory"]["id"]: h["memory"].get("space") for h in results}
    assert found == {shared["id"]: key, own["id"]: None}
    listed = {m["id"]: m.get("space") for m in run_json(capsys, "list", "--user", "cat")["memories"]}
    assert listed == found
    _, out, _ = run(capsys, "search", "Atlas", "--user", "cat")
    lines = {line.split()[1]: line for line in out.splitlines()}
    assert "[Team]" in lines[shared["id"]] and "[personal]" in lines[own["id"]]
    _, out, _ = run(capsys, "list", "--user", "cat")
    assert "SPACE" in out.splitlines()[0]
    assert any(shared["id"] in line and "  Team  " in line for line in out.splitlines())
    _, out, _ = run(capsys, "get", shared["id"], "--user", "cat")
    assert f"space:      Team ({key})" in out and "stored by:  ben" in out
    _, out, _ = run(capsys, "search", "Atlas", "--space", "personal", "--user", "cat")
    assert "[" not in out and shared["id"] not in out  # one's own space alone: nothing to tell apart


def test_a_space_not_yours_is_unknown_and_the_cli_says_how_to_list_yours(
    capsys: pytest.CaptureFixture[str], store_url: str
) -> None:
    key = team(capsys)
    run_json(capsys, "add", "Atlas ships on Friday", "--space", key, "--user", "ben")
    before = rows(store_url)
    for argv in (["list", "--space", "Team"], ["search", "Atlas", "--space", key], ["add", "x", "--space", key],
                 ["list", "--space", "~0123456789abcdef"], ["list", "--space", "x" * 5000]):  # fmt: skip
        code, out, err = run(capsys, *argv, "--user", "dan")
        assert code == 1 and out == "", argv
        assert "Unknown space" in err and "List yours with `remember space list`." in err, err
        assert "action list" not in err and len(err) < 600
    assert rows(store_url) == before
