"""`remember import --from FORMAT` and `remember export --format markdown|server-memory`, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remember.cli.db_commands import EXPORT_FORMATS, FORMATS
from remember.service.import_export.peers import FORMATS as READABLE
from remember.service.import_export.peers.exporting import EXPORT_FORMATS as WRITABLE
from support import run, run_json

DATA = Path(__file__).resolve().parents[1] / "import_export" / "data"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'm.db'}"


def test_the_grammar_names_every_format() -> None:
    assert (FORMATS, EXPORT_FORMATS) == (READABLE, WRITABLE)


def test_dry_run_then_import_then_again(capsys: pytest.CaptureFixture[str], db: str) -> None:
    source = str(DATA / "mem0_get_all.json")
    code, out, _ = run(capsys, "--db", db, "import", "--from", "mem0", "--dry-run", source)
    assert code == 0
    assert out.splitlines()[0] == "Would create 3 memories from 3 read (mem0)."
    assert "  + [note] : Is planning a trip to Tokyo next month" in out
    assert "Not mapped: hash (3 records)." in out
    assert run_json(capsys, "--db", db, "list")["total"] == 0
    report = run_json(capsys, "--db", db, "import", "--from", "mem0", source)
    assert (report["created"], report["dry_run"]) == (3, False)
    code, out, _ = run(capsys, "--db", db, "import", "--from", "mem0", source)
    assert out.splitlines()[:2] == ["Created 0 memories from 3 read (mem0).", "Already stored (not created again): 3."]


def test_links_and_skipped_records_are_reported(capsys: pytest.CaptureFixture[str], db: str) -> None:
    code, out, _ = run(capsys, "--db", db, "import", "--from", "basic-memory", str(DATA / "basic-memory"))
    assert code == 0
    assert "Links: 3 not imported: an end is not among the imported memories." in out
    assert "Skipped 1 record:\n  broken.md: its frontmatter is not YAML" in out


def test_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path) -> None:
    code, _, err = run(capsys, "--db", db, "import", "--from", "server-memory", str(tmp_path / "none.jsonl"))
    assert code == 1 and "there is no such file. Nothing was imported." in err
    code, _, err = run(capsys, "--db", db, "import", "--from", "server-memory", "-")
    assert code == 1 and "not stdin" in err
    code, _, err = run(capsys, "--db", db, "import", "--dry-run", str(tmp_path / "x.jsonl"))
    assert code == 1 and f"Cannot open {tmp_path / 'x.jsonl'}: No such file or directory." in err
    with pytest.raises(SystemExit):
        run(capsys, "--db", db, "import", "--from", "evernote", "x")
    assert "invalid choice: 'evernote'" in capsys.readouterr().err


def test_export_markdown_and_server_memory(capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path) -> None:
    run_json(capsys, "--db", db, "add", "Sarah is a PM at Google", "--title", "Sarah", "--tag", "people")
    code, _, err = run(capsys, "--db", db, "export", "--format", "markdown", str(tmp_path / "notes"))
    assert code == 0 and "Exported 1 memory (markdown)" in err
    [note] = (tmp_path / "notes").iterdir()
    assert note.read_text().startswith("---\ntitle: Sarah\ntype: note\ntags:\n- people\n")
    graph = tmp_path / "graph.jsonl"
    assert run(capsys, "--db", db, "export", "--format", "server-memory", str(graph))[0] == 0
    entity = {"type": "entity", "name": "Sarah", "entityType": "note", "observations": ["Sarah is a PM at Google"]}
    assert json.loads(graph.read_text()) == entity
    code, _, err = run(capsys, "--db", db, "export", "--format", "server-memory", str(graph))
    assert code == 1 and "exists already" in err
    code, _, err = run(capsys, "--db", db, "export", "--format", "markdown")
    assert code == 1 and "needs the folder" in err


def test_an_import_draws_a_progress_bar(
    capsys: pytest.CaptureFixture[str], db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remember.cli import output
    from remember.service.import_export.peers import importer

    drawn: list[str] = []
    monkeypatch.setattr(importer, "PART", 2)
    monkeypatch.setattr(output, "progress", drawn.append)  # the real one draws only on a terminal
    run_json(capsys, "--db", db, "import", "--from", "mem0", str(DATA / "mem0_get_all.json"))
    assert drawn == [f"[{'#' * 20}{'.' * 10}] 2/3 memories", f"[{'#' * 30}] 3/3 memories"]
