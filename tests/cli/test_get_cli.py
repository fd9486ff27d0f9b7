"""`remember get`: the memory with its template's fields, its relationships and a history a person can read."""

from __future__ import annotations

import pytest

from support import run, run_json

BOOK = ("--template", "book_review", "--field", "title=Dune", "--field", "author=Frank Herbert", "--field", "rating=5")


def shown(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, "get", *argv)
    assert code == 0, err
    return out


def test_relationships_are_shown_with_the_other_members(capsys: pytest.CaptureFixture[str]) -> None:
    sarah = run_json(capsys, "add", "Sarah leads the platform team", "--title", "Sarah", "--no-suggestion")["id"]
    tom = run_json(capsys, "add", "Tom joined the team", "--title", "Tom", "--no-suggestion")["id"]
    rel = run_json(capsys, "relate", sarah, tom, "--type", "manages", "--observation", "Sarah manages Tom")["id"]
    out = shown(capsys, sarah[:8])
    assert f"relationships:\n  manages: {tom[:8]} Tom  (strength 0.5, relationship {rel[:8]})\n" in out
    assert "    Sarah manages Tom\n" in out
    linked = run_json(capsys, "get", tom)["relationships"]
    assert linked == [{"id": rel, "type": "manages", "observation": "Sarah manages Tom", "others": [sarah],
                       "strength": 0.5}]  # fmt: skip
    assert "relationships:" not in shown(capsys, run_json(capsys, "add", "alone", "--no-suggestion")["id"])


def test_the_history_says_what_each_change_did(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "Sarah leads", "--tag", "work", "--no-suggestion")["id"]
    run_json(capsys, "update", made, "--weight", "0.9", "--tag", "lead", "--reason", "promoted")
    run_json(capsys, "rm", made)
    run_json(capsys, "restore", made)
    out = shown(capsys, made, "--history")
    history = out[out.index("history, newest first:") :].splitlines()
    assert [line.split("UTC  ")[-1] for line in history[1:4:]] == [
        "restored from the trash", "moved to the trash", "changed: promoted",
    ]  # fmt: skip
    assert history[1].startswith("  v3 -> v4  ") and history[3].startswith("  v1 -> v2  ")
    assert history[4:] == ["      tags: work -> work, lead", "      weight: 0.5 -> 0.9"]
    assert "{" not in out and "deleted_at" not in out
    assert run_json(capsys, "get", made, "--history")["history"][0]["action"] == "restore"


def test_a_memory_never_changed_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "x", "--no-suggestion")["id"]
    assert shown(capsys, made, "--history").endswith("\nhistory: no changes since it was stored\n")
    assert "history" not in shown(capsys, made)


def test_a_templated_memory_shows_its_fields(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", *BOOK)["id"]
    run_json(capsys, "update", made, "--field", "rating=4")
    out = shown(capsys, made, "--history")
    assert "template:   builtin:book_review\n" in out
    assert "\nfields:\n  Title: Dune\n  Author: Frank Herbert\n  Rating: 4\n" in out
    assert out.count("Frank Herbert") == 1 + 2  # the fields once (its text is them), and the text's change
    assert "      structured_content.rating: 5 -> 4" in out


def test_a_templated_memory_with_its_own_text_shows_both(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "Finished Dune on the train, loved it", *BOOK)["id"]
    out = shown(capsys, made)
    assert "\nfields:\n  Title: Dune\n" in out and "\n\nFinished Dune on the train, loved it\n" in out
