"""`remember update`: --tag adds, --remove-tag and --clear-tags remove, --field sets a template's field; its help
says a default only where one applies."""

from __future__ import annotations

import pytest

from remember.cli import main
from support import run, run_json

BOOK = ("--template", "book_review", "--field", "title=Dune", "--field", "author=Frank Herbert", "--field", "rating=5")


def test_tags_are_added_removed_and_cleared(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "Ana likes jazz", "--tag", "music", "--tag", "People", "--no-suggestion")
    assert made["tags"] == ["music", "people"]
    assert run_json(capsys, "update", made["id"], "--tag", "jazz")["tags"] == ["music", "people", "jazz"]
    assert run_json(capsys, "update", made["id"], "--remove-tag", "MUSIC", "--tag", "ana")["tags"] == [
        "people", "jazz", "ana",
    ]  # fmt: skip
    assert run_json(capsys, "update", made["id"], "--clear-tags", "--tag", "friends")["tags"] == ["friends"]
    cleared = run_json(capsys, "update", made["id"], "--clear-tags", "--reason", "tidy")
    assert cleared["tags"] == [] and cleared["version"] == 5
    history = run_json(capsys, "get", made["id"], "--history")["history"]
    assert history[0]["previous"] == {"tags": ["friends"]} and history[0]["reason"] == "tidy"


def test_adding_a_tag_it_has_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--tag", "a", "--no-suggestion")
    assert run_json(capsys, "update", made["id"], "--tag", "A")["version"] == 1


def test_removing_a_tag_it_lacks_is_an_error_that_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--tag", "a", "--tag", "b", "--no-suggestion")
    code, out, err = run(capsys, "update", made["id"], "--remove-tag", "c", "--title", "new")
    assert (code, out) == (1, "")
    assert "remember update: error: --remove-tag: the memory has no tag 'c'; its tags are a, b." in err
    after = run_json(capsys, "get", made["id"])
    assert (after["version"], after["title"], after["tags"]) == (1, None, ["a", "b"])


def test_a_templated_memorys_fields_are_set_with_field(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", *BOOK)
    updated = run_json(capsys, "update", made["id"][:8], "--field", "rating=4", "--field", "author=F. Herbert")
    assert updated["structured_content"] == {"title": "Dune", "author": "F. Herbert", "rating": 4}
    assert "Author: F. Herbert" in updated["content"] and "Rating: 4" in updated["content"]
    code, _, err = run(capsys, "update", made["id"], "--field", "rating=9")
    assert code == 1 and "- --field rating: Rate from 1 to 5" in err
    assert run_json(capsys, "get", made["id"])["structured_content"]["rating"] == 4


def test_field_needs_a_templated_memory(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "free text", "--no-suggestion")
    code, _, err = run(capsys, "update", made["id"], "--field", "rating=4")
    assert code == 1 and "follows no template; apply one first: remember template apply TEMPLATE" in err
    code, _, err = run(capsys, "update", made["id"], "--field", "rating")
    assert code == 1 and "--field takes NAME=VALUE" in err


def test_nothing_to_update_names_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--no-suggestion")
    code, _, err = run(capsys, "update", made["id"])
    assert code == 1 and "Nothing to update: give at least one of --content, --title," in err
    assert "structured_content" not in err


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_help_says_defaults_only_where_they_apply(capsys: pytest.CaptureFixture[str]) -> None:
    update = help_of(capsys, "update")
    assert "(default: note)" not in update and "default now" not in update
    assert "--remove-tag TAG" in update and "--field NAME=VALUE" in update
    add = help_of(capsys, "add")
    assert "(default: note)" in add and "default now" in add
    assert "(default 0." not in help_of(capsys, "relationships", "update")
    assert "(default 0.5)" in help_of(capsys, "relate")
