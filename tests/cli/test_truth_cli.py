"""Truth over time on the command line: the same person again, a successor, an end, and reads as of a date."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import run, run_json

ANA = ("--template", "person", "--field", "relationship=colleague")


def out_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


def test_get_shows_a_fields_values_over_time(capsys: pytest.CaptureFixture[str]) -> None:
    made = run_json(capsys, "add", *ANA, "--field", "name=Ana", "--field", "company=Google", "--when", "2024-01-10")
    said = out_of(capsys, "add", *ANA, "--field", "name=ANA", "--field", "company=Meta", "--when", "2025-06-01")
    assert f"same thing: updated {made['id'][:8]} (same name): company: Google → Meta\n" in said
    shown = out_of(capsys, "get", made["id"][:8])
    assert "over time:\n  company: Google → Meta on 2025-06-01\n" in shown
    then = run_json(capsys, "list", "--as-of", "2025-01-01")["memories"]
    assert [m["structured_content"]["company"] for m in then] == ["Google"]


def test_a_successor_and_an_end(capsys: pytest.CaptureFixture[str]) -> None:
    paris = run_json(capsys, "add", "I live in Paris", "--when", "2019-01-01", "--no-suggestion")["id"]
    berlin = run_json(capsys, "add", "I moved to Berlin", "--when", "2024-03-01", "--supersedes", paris[:8])["id"]
    assert [m["id"] for m in run_json(capsys, "list")["memories"]] == [berlin]
    assert [m["id"] for m in run_json(capsys, "list", "--as-of", "2020-01-01")["memories"]] == [paris]
    assert len(run_json(capsys, "list", "--include-superseded")["memories"]) == 2
    shown = out_of(capsys, "get", paris)
    assert "ended:      2024-03-01T00:00:00.000000Z\n" in shown and f"successor:  {berlin}\n" in shown
    hits = run_json(capsys, "search", "where do I live", "--as-of", "2020-06-01")["results"]
    assert [h["memory"]["id"] for h in hits] == [paris]
    run_json(capsys, "update", berlin, "--valid-until", "2025-01-01", "--reason", "moved on")
    assert run_json(capsys, "list")["memories"] == []
    run_json(capsys, "update", berlin, "--reopen")
    assert [m["id"] for m in run_json(capsys, "list")["memories"]] == [berlin]


def test_bad_spans_and_unknown_successors_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "add", "Backwards", "--when", "2024-05-01", "--valid-until", "2024-01-01")
    assert code != 0 and "after --valid-from" in err  # in the words of the command line, now that add takes it
    code, _, err = run(capsys, "add", "Before", "--valid-from", "2024-05-01", "--valid-until", "2024-02-01")
    assert code != 0 and "--valid-until (2024-02-01T00:00:00.000000Z) must be after --valid-from" in err
    made = run_json(capsys, "add", "Worked at Acme", "--when", "2024-03-01", "--valid-from", "2023-09-01")
    assert made["valid_from"] == "2023-09-01T00:00:00.000000Z"
    run(capsys, "rm", made["id"], "--permanent")
    code, _, err = run(capsys, "add", "Orphan", "--supersedes", "00000000-0000-0000-0000-000000000000")
    assert code != 0
    assert run_json(capsys, "list", "--include-superseded")["memories"] == []


def test_add_names_a_memory_it_may_update(capsys: pytest.CaptureFixture[str]) -> None:
    rent = run_json(capsys, "add", "My rent is $1,200 a month.", "--when", "2024-01-01", "--no-suggestion")["id"]
    said = out_of(capsys, "add", "My rent is $1,350 a month.", "--no-suggestion")
    assert f"may update: {rent[:8]} (" in said and "amount $1200 → $1350" in said


def test_a_relationship_ends_reopens_and_is_walked_as_of_a_date(capsys: pytest.CaptureFixture[str]) -> None:
    ana = run_json(capsys, "add", "Ana is an engineer", "--when", "2019-01-01", "--no-suggestion")["id"]
    acme = run_json(capsys, "add", "Acme makes rockets", "--when", "2019-01-01", "--no-suggestion")["id"]
    rel = run_json(capsys, "relate", ana, acme, "--type", "works_at", "--valid-until", "2024-12-31")
    assert rel["valid_until"] == "2024-12-31T00:00:00.000000Z"
    assert run_json(capsys, "related", ana) == []
    then = run_json(capsys, "related", ana, "--as-of", "2023-01-01")
    assert [r["memory"]["id"] for r in then] == [acme]
    code, _, err = run(capsys, "relationships", "update", rel["id"], "--reopen", "--valid-until", "2025-01-01")
    assert code != 0 and "not both" in err
    reopened = run_json(capsys, "relationships", "update", rel["id"][:8], "--reopen", "--reason", "back")
    assert reopened["valid_until"] is None and reopened["version"] == 2
    assert [r["memory"]["id"] for r in run_json(capsys, "related", ana)] == [acme]
    hits = run_json(capsys, "similar", "--text", "rockets", "--as-of", "2018-01-01")["results"]
    assert hits == []  # nothing was true yet


def test_a_template_s_identity_is_set_and_its_memories_re_keyed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    definition = tmp_path / "pal.yaml"
    definition.write_text(
        "name: Pal\nfields:\n  - {name: name, type: string, required: true}\n  - {name: city, type: string}\n"
    )
    template = run_json(capsys, "template", "create", "-f", str(definition))["id"]
    first = run_json(capsys, "add", "--template", template, "--field", "name=Li", "--field", "city=Oslo")["id"]
    code, _, err = run(capsys, "template", "update", template, "--identity", "nickname")
    assert code != 0 and "'nickname', which is not a field" in err
    out = out_of(capsys, "template", "update", template, "--identity", "name")
    assert "re-checked 1 memory" in out
    again = run_json(capsys, "add", "--template", template, "--field", "name=LI", "--field", "city=Bergen")
    assert again["id"] == first and again["structured_content"]["city"] == "Bergen"
