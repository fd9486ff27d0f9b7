"""The command line in shared spaces on both backends: what names a memory's space, and how a space that is not
yours is answered."""

from __future__ import annotations

import pytest

from support import cli_team as team
from support import run, run_json
from support import space_rows as rows


@pytest.fixture(autouse=True)
def _database(store_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("REMEMBER_DATABASE_URL", store_url)
    return store_url


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


def _linked_team(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Team's two memories (Ben's), related without naming the space; Cat's own two, related."""
    key = team(capsys)
    first = run_json(capsys, "add", "Atlas ships on Friday", "--space", "Team", "--user", "ben")["id"]
    second = run_json(capsys, "add", "Zoe leads the Atlas launch", "--space", key, "--user", "ben")["id"]
    link = run_json(capsys, "relate", first, second, "--type", "led_by", "--observation", "Atlas launch lead",
                    "--user", "ben")  # fmt: skip
    assert link["space"] == key
    mine = run_json(capsys, "add", "Atlas is a book on my shelf", "--user", "cat")["id"]
    other = run_json(capsys, "add", "The shelf is in the hall", "--user", "cat")["id"]
    own = run_json(capsys, "relate", mine[:8], other[:8], "--type", "kept_on", "--observation", "Atlas book shelf",
                   "--user", "cat")  # fmt: skip
    assert "space" not in own
    return {"space": key, "first": first, "second": second, "link": link["id"], "mine": mine, "own": own["id"]}


def test_relationship_commands_read_every_space_and_act_where_the_memories_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = _linked_team(capsys)
    found = run_json(capsys, "relationships", "search", "Atlas", "--user", "cat")["results"]
    assert {r["id"]: r.get("space") for r in found} == {ids["link"]: ids["space"], ids["own"]: None}
    newest = run_json(capsys, "relationships", "search", "--user", "cat")
    assert [r["id"] for r in newest["results"]] == [ids["own"], ids["link"]] and newest["total"] == 2
    only = run_json(capsys, "relationships", "search", "Atlas", "--space", "personal", "--user", "cat")["results"]
    assert [r["id"] for r in only] == [ids["own"]]
    of_memory = run_json(capsys, "relationships", "search", "--memory", ids["first"], "--user", "cat")["results"]
    assert [r["id"] for r in of_memory] == [ids["link"]]
    _, out, _ = run(capsys, "relationships", "search", "Atlas", "--user", "cat")
    assert "[Team]" in out
    assert [r["memory"]["id"] for r in run_json(capsys, "related", ids["first"], "--user", "cat")] == [ids["second"]]
    shown = run_json(capsys, "relationships", "show", ids["link"], "--user", "cat")
    assert shown["space"] == ids["space"] and shown["history"] == []
    changed = run_json(capsys, "relationships", "update", ids["link"], "--strength", "0.9", "--user", "ann")
    assert changed["version"] == 2
    _, out, _ = run(capsys, "relationships", "show", ids["link"], "--user", "ben")
    assert "v1 update by ann" in out
    similar = run_json(capsys, "similar", ids["first"], "--min", "-1", "--user", "cat")["results"]
    assert [h["memory"]["id"] for h in similar] == [ids["second"]]  # its own space only
    by_text = run_json(capsys, "similar", "--text", "Atlas launch", "--min", "-1", "--user", "cat")["results"]
    assert {h["memory"].get("space") for h in by_text} == {ids["space"], None}
    by_text = run_json(capsys, "similar", "--text", "Atlas", "--space", "Team", "--min", "-1", "--user", "cat")
    assert {h["memory"]["id"] for h in by_text["results"]} == {ids["first"], ids["second"]}
    run_json(capsys, "relationships", "delete", ids["link"], "--user", "ben")
    assert run_json(capsys, "relationships", "search", "--space", "Team", "--user", "cat")["results"] == []


def test_relationship_commands_refuse_what_the_caller_may_not_do_and_change_nothing(
    capsys: pytest.CaptureFixture[str], store_url: str
) -> None:
    ids = _linked_team(capsys)
    first, link = ids["first"], ids["link"]
    bens = run_json(capsys, "add", "Ben's own note", "--user", "ben")["id"]
    also = run_json(capsys, "add", "Ben's other note", "--user", "ben")["id"]
    before = rows(store_url)
    refused = [
        (["relate", first, bens, "--type", "x", "--user", "ben"], "in 2 spaces (Team, personal)"),
        (["relate", bens, first, "--type", "x", "--user", "ben"], "in 2 spaces (personal, Team)"),
        (["relate", first, ids["second"], "--type", "x", "--user", "cat"], "You are a reader in space Team"),
        (["relate", first, ids["second"], "--type", "x", "--user", "dan"], f"No memory with id {first!r}"),
        (["relate", first, ids["second"], "--type", "x", "--space", "personal", "--user", "ben"], "No memory"),
        (["relate", first, ids["second"], "--type", "x", "--space", "Team", "--user", "dan"], "Unknown space"),
        (["relate", first, "x" * 5000, "--type", "x", "--user", "ben"], "an id of 1 to 200 characters"),
        (["related", first, "--user", "dan"], f"No memory with id {first!r}"),
        (["similar", first, "--user", "dan"], "No memory"),
        (["similar", first, "--space", "Team", "--user", "cat"], "drop --space"),
        (["similar", "--text", "Atlas", "--space", "Team", "--user", "dan"], "List yours with `remember space list`"),
        (["relationships", "search", "--space", ids["space"], "--user", "dan"], "Unknown space"),
        (["relationships", "search", "--memory", first, "--space", "Team", "--user", "cat"], "drop --space"),
        (["relationships", "search", "--memory", first, "--user", "dan"], "No memory"),
        (["relationships", "show", link, "--user", "dan"], f"No relationship with id {link!r}"),
        (["relationships", "update", link, "--strength", "0.1", "--user", "cat"], "You are a reader in space Team"),
        (["relationships", "update", link, "--strength", "0.1", "--user", "dan"], "No relationship"),
        (["relationships", "update", link, "--members", f"{first},{ids['mine']}", "--user", "ben"], "No memory"),
        (["relationships", "update", link, "--members", f"{first},{bens}", "--user", "ben"], "in 2 spaces"),
        (
            ["relationships", "update", link, "--members", f"{bens},{also}", "--user", "ben"],
            "These memories are in your personal space, and the relationship in space Team",
        ),
        (["relationships", "delete", link, "--user", "cat"], "You are a reader in space Team"),
        (["relationships", "delete", link, "--user", "dan"], "No relationship"),
        (["relationships", "delete", ids["own"], "--user", "ben"], "No relationship"),
    ]
    for argv, message in refused:
        code, _, err = run(capsys, *argv)
        assert code == 1 and message in err, (argv, err)
        assert len(err) < 1_500
    assert rows(store_url) == before
    dans = run_json(capsys, "relationships", "search", "Atlas", "--user", "dan")["results"]
    assert dans == []
