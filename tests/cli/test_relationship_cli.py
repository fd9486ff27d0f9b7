"""`remember relate`, `related` and `relationships search|show|update|delete`, in-process."""

from __future__ import annotations

import pytest

from support import run, run_json


@pytest.fixture
def ids(capsys: pytest.CaptureFixture[str]) -> list[str]:
    notes = ["Sarah leads the platform team.", "Tom joined Sarah's team.", "Priya mentors Tom."]
    return [run_json(capsys, "add", n)["id"] for n in notes]


def test_relate_search_update_show_delete(capsys: pytest.CaptureFixture[str], ids: list[str]) -> None:
    made = run_json(capsys, "relate", ids[0], ids[1], "--type", "manages", "--observation", "Sarah manages Tom",
                    "--strength", "0.9", "--tag", "work")  # fmt: skip
    assert (made["memory_ids"], made["strength"], made["tags"]) == (ids[:2], 0.9, ["work"])
    run_json(capsys, "relate", ids[1], ids[2], "--type", "mentored_by", "--observation", "Priya mentors Tom")
    found = run_json(capsys, "relationships", "search", "managing", "--alpha", "0")
    assert found["results"][0]["id"] == made["id"]
    assert run_json(capsys, "relationships", "search", "--memory", ids[2])["total"] == 1
    assert run(capsys, "relationships", "search", "tracer bullets")[1] == "No relationships found.\n"
    assert len(run_json(capsys, "relationships", "search", "tracer bullets", "--min-score", "-1")["results"]) == 2
    code, out, _ = run(capsys, "relationships", "search", "--type", "manages")
    assert code == 0 and made["id"] in out and "Sarah manages Tom" in out
    chain = run_json(capsys, "related", ids[0], "--depth", "2")
    assert [(r["memory"]["id"], r["depth"]) for r in chain] == [(ids[1], 1), (ids[2], 2)]
    updated = run_json(capsys, "relationships", "update", made["id"], "--strength", "0.4", "--reason", "less so")
    assert (updated["version"], updated["strength"]) == (2, 0.4)
    shown = run_json(capsys, "relationships", "show", made["id"])
    assert [h["reason"] for h in shown["history"]] == ["less so"]
    assert run_json(capsys, "relationships", "delete", made["id"])["deleted"] is True
    code, _, err = run(capsys, "relationships", "show", made["id"])
    assert code == 1 and "No relationship with id" in err
    assert run_json(capsys, "get", ids[0])["id"] == ids[0]  # the memories stay


def test_bad_input_says_what_to_fix(capsys: pytest.CaptureFixture[str], ids: list[str]) -> None:
    code, _, err = run(capsys, "relate", ids[0], "--type", "alone")
    assert code == 1 and "Give at least two memory IDs to link." in err
    code, _, err = run(capsys, "relate", ids[0], "nope", "--type", "x")
    assert code == 1 and "No memory with id 'nope'" in err
    code, _, err = run(capsys, "related", ids[0], "--depth", "9")
    assert code == 1 and "depth must be a whole number from 1 to 3" in err
    assert run_json(capsys, "relationships", "search")["results"] == []
