"""`remember list`, `template list` and `token list` as people read them: a header, aligned columns, the date
that the listing is ordered (and filtered) by, and counts in words."""

from __future__ import annotations

import re

import pytest

from support import run, run_json


def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out.splitlines()


def columns(header: str) -> list[int]:
    """Where each column of a header starts (columns are apart by two spaces or more)."""
    return [0, *(m.end() for m in re.finditer(r"  +", header))]


def test_memories_are_listed_under_a_header_in_aligned_columns(capsys: pytest.CaptureFixture[str]) -> None:
    sarah = run_json(capsys, "add", "Sarah leads the platform team", "--title", "Sarah", "--tag", "work",
                     "--no-suggestion")  # fmt: skip
    ana = run_json(capsys, "add", "Ana likes jazz", "--type", "person", "--when", "2025-05-01", "--no-suggestion")
    lines = listed(capsys, "list")
    assert lines[0].split() == ["ID", "CREATED", "TYPE", "TITLE", "OR", "TEXT"]
    starts = columns(lines[0])
    for line in lines[1:3]:
        assert [line[s - 2 : s] for s in starts[1:]] == ["  "] * 3 and line[starts[1]] == "2"
    created = sarah["created_at"][:10]
    assert lines[1].startswith(f"{ana['id']}  {created}  person  Ana likes jazz")
    assert lines[2].startswith(f"{sarah['id']}  {created}  note    Sarah  [work]")
    assert lines[3] == "-- 1-2 of 2 memories"


def test_sorted_by_when_it_happened_the_date_is_when_it_happened(capsys: pytest.CaptureFixture[str]) -> None:
    run_json(capsys, "add", "Ana likes jazz", "--when", "2025-05-01", "--no-suggestion")
    lines = listed(capsys, "list", "--sort", "occurred_at")
    assert lines[0].split()[:3] == ["ID", "HAPPENED", "TYPE"] and "  2025-05-01  " in lines[1]
    assert listed(capsys, "list", "--sort", "weight")[0].split()[:4] == ["ID", "CREATED", "WEIGHT", "TYPE"]


def test_counts_are_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert listed(capsys, "list") == ["No memories."]
    made = run_json(capsys, "add", "x", "--tag", "x", "--no-suggestion")
    assert listed(capsys, "list")[-1] == "-- 1-1 of 1 memory"
    run_json(capsys, "add", "y", "--no-suggestion")
    assert listed(capsys, "list", "--limit", "1")[-1] == "-- 1-1 of 2 memories; next: --offset 1"
    assert listed(capsys, "list", "--offset", "5") == [
        "-- none of 2 memories at --offset 5; the last starts at --offset 1"
    ]
    run_json(capsys, "rm", made["id"])
    assert "  x  [x]  (deleted)" in listed(capsys, "list", "--deleted", "only")[1]


def test_templates_are_listed_with_when_each_was_last_used(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", "--template", "idea", "--field", "title=Solar kettle")
    lines = listed(capsys, "template", "list", "--sort", "recent", "--limit", "2")
    assert lines[0].split() == ["ID", "NAME", "CATEGORY", "ORIGIN", "USED", "LAST", "USED"]
    assert lines[1].split() == ["builtin:idea", "Idea", "creative", "built-in", "1", made["created_at"][:10]]
    assert lines[2].endswith("  0     never")
    assert lines[-1].startswith("-- 1-2 of 15 templates; next: --offset 2")
    assert listed(capsys, "template", "list", "--mine") == ["No templates."]


def test_tokens_are_listed_under_a_header(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "token", "create", "--name", "laptop", "--trust-level", "0.5")
    lines = listed(capsys, "token", "list")
    assert lines[0].split() == ["ID", "USER", "TRUST", "SPACES", "MADE", "STATE", "NAME"]
    assert lines[1].split() == [made["id"], "local", "0.5", "all", made["created_at"][:10], "active", "laptop"]
