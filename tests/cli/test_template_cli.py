"""`remember template ...` and `remember add --template`, in-process."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from support import run, run_json

BOOK_YAML = """\
name: Book Review
description: Books I've read
fields:
  - {name: title, type: string, required: true}
  - {name: author, type: string, required: true}
  - {name: rating, type: number, required: true, validation: {min: 1, max: 5}}
trigger_keywords: [finished reading]
"""


@pytest.fixture
def book(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    path = tmp_path / "book.yaml"
    path.write_text(BOOK_YAML)
    return str(run_json(capsys, "template", "create", "-f", str(path))["id"])


def test_create_from_yaml_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, book: str) -> None:
    assert book.startswith("tpl_book_review_")
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"name": "Wine", "fields": [{"name": "label", "type": "string"}]}))
    assert run_json(capsys, "template", "create", "-f", str(path))["name"] == "Wine"


def test_create_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(BOOK_YAML))
    assert run_json(capsys, "template", "create", "-f", "-")["name"] == "Book Review"


def test_add_with_template_fields_by_name(capsys: pytest.CaptureFixture[str], book: str) -> None:
    memory = run_json(
        capsys, "add", "--template", "book review", "--field", "title=Dune", "--field", "author=Frank Herbert",
        "--field", "rating=5",
    )  # fmt: skip
    assert memory["template_id"] == book
    assert memory["structured_content"] == {"title": "Dune", "author": "Frank Herbert", "rating": 5}
    found = run_json(capsys, "list", "--filter", json.dumps({"structured_content.rating": {"gte": 4}}))
    assert found["total"] == 1


def test_list_show_schema_copy_analytics(capsys: pytest.CaptureFixture[str], book: str) -> None:
    mine = run_json(capsys, "template", "list", "--mine")
    assert [t["id"] for t in mine["templates"]] == [book]
    assert run_json(capsys, "template", "list", "--builtin")["total"] == 15
    shown = run_json(capsys, "template", "show", book)
    assert [f["name"] for f in shown["resolved_fields"]] == ["title", "author", "rating"]
    code, out, _ = run(capsys, "template", "schema", "Book Review")
    assert code == 0 and json.loads(out)["properties"]["rating"]["maximum"] == 5
    copy = run_json(capsys, "template", "copy", "builtin:task", "--name", "My Task")
    assert copy["derived_from"] == "builtin:task"
    run_json(capsys, "add", "--template", book, "--field", "title=A", "--field", "author=B", "--field", "rating=4")
    stats = run_json(capsys, "template", "analytics", book)
    assert stats["usage_count"] == 1
    code, out, _ = run(capsys, "template", "analytics", book)
    assert "used 1 time," in out


def test_update_rechecks_and_rm(capsys: pytest.CaptureFixture[str], book: str) -> None:
    run_json(capsys, "add", "--template", book, "--field", "title=A", "--field", "author=B", "--field", "rating=4")
    updated = run_json(
        capsys, "template", "update", book, "--add-field", '{"name": "isbn", "type": "string", "required": true}'
    )
    assert (updated["template"]["version"], updated["rechecked_memories"]) == ("1.1", 1)
    assert run_json(capsys, "list", "--filter", '{"template_compliance": false}')["total"] == 1
    removed = run_json(capsys, "template", "rm", book, "--with-memories")
    assert removed["trashed_memories"] == 1
    assert run_json(capsys, "list")["total"] == 0


def test_validate_exit_status(capsys: pytest.CaptureFixture[str], book: str) -> None:
    code, out, _ = run(
        capsys, "template", "validate", book, "--field", "title=A", "--field", "author=B", "--field", "rating=3"
    )
    assert code == 0 and "Valid" in out
    code, _, err = run(capsys, "template", "validate", book, "--field", "rating=9")
    assert code == 1
    assert "rating: rating must be at most 5" in err and "author: author is required" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["template", "show", "nope"], "No template with id, name or slug 'nope'"),
        (["template", "rm", "builtin:task"], "built-in template and cannot be deleted"),
        (["template", "update", "builtin:task", "--name", "x"], "built-in template"),
        (["template", "create", "-f", "/nonexistent.yaml"], "Cannot read /nonexistent.yaml"),
        (["template", "update", "Book Review", "--add-field", "{not json"], "--add-field must be JSON"),
        (["template", "update", "Book Review", "--remove-field", "ghost"], "ghost"),
        (["add", "--template", "Book Review", "--field", "title=X"], "author is required"),
        (["add", "--template", "Book Review", "--field", "noequals"], "NAME=VALUE"),
        (["add", "x", "--field", "a=1"], "--field needs --template"),
        (["add"], "TEXT is required: the text to remember (or a --template and its fields)"),
    ],
)
def test_errors(capsys: pytest.CaptureFixture[str], book: str, argv: list[str], message: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert message in err


def test_bad_definition_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    for text, message in [
        ("name: [unclosed", "not valid YAML"),
        ("- just a list", "must hold one template"),
        ("name: X\nfields: [{name: x, type: computed, formula: '9**9**9'}]", "x"),
    ]:
        bad.write_text(text)
        code, _, err = run(capsys, "template", "create", "-f", str(bad))
        assert code == 1 and message in err, err


def test_show_describes_item_types_and_conditions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "template", "show", "builtin:person")
    assert code == 0
    assert "children_names" in out and "list of texts" in out and "only when has_children == true" in out


def test_template_infer_proposes_and_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.infer import mix

    for text, _ in mix(per_kind=5):
        run_json(capsys, "add", text, "--no-suggestion")
    found = run_json(capsys, "template", "infer")
    assert len(found["proposals"]) >= 4 and found["memories_read"] == 45
    code, out, _ = run(capsys, "template", "infer")
    assert code == 0 and "covers" in out and "remember template infer --accept ID" in out
    workout = next(p for p in found["proposals"] if any("kg" in e for e in p["examples"]))
    listed = run_json(capsys, "list", "--limit", "100")
    assert all(m["template_id"] is None for m in listed["memories"])  # nothing changed without the accept
    done = run_json(capsys, "template", "infer", "--accept", workout["id"], "--apply")
    assert done["created_template_id"] and len(done["applied"]) + len(done["skipped"]) == workout["covers"]
    code, _, err = run(capsys, "template", "infer", "--apply")
    assert code == 1 and "--accept" in err


@pytest.mark.parametrize("given", ["book_review", "Book Review", "book review", "BOOK-REVIEW", "builtin:book"])
def test_a_template_is_named_forgivingly(capsys: pytest.CaptureFixture[str], given: str) -> None:
    fields = ("--field", "title=Dune", "--field", "author=Frank Herbert", "--field", "rating=5")
    made = run_json(capsys, "add", "--template", given, *fields)
    assert made["template_id"] == "builtin:book_review"
    assert run_json(capsys, "template", "show", given)["id"] == "builtin:book_review"


def test_a_misspelt_template_is_answered_with_the_close_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "add", "--template", "bok_reveiw", "--field", "title=Dune")
    assert (code, out) == (1, "")
    assert "No template with id, name or slug 'bok_reveiw'. Did you mean 'Book Review' (builtin:book_review)?" in err
    assert run_json(capsys, "list")["total"] == 0
