"""`remember export`, `import`, `db copy` and `db upgrade`, in-process on real files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import open_store
from support import run, run_json


@pytest.fixture
def source(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'source.db'}"
    run_json(capsys, "--db", url, "add", "Sarah is a PM at Google", "--tag", "people")
    run_json(capsys, "--db", url, "--user", "bob", "add", "Bob's note")
    run_json(capsys, "--db", url, "prefs", "set", "search.default_limit", "30")
    return url


def test_export_then_import(capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str) -> None:
    dump = tmp_path / "dump.jsonl"
    code, _, err = run(capsys, "--db", source, "export", "--all-users", "-o", str(dump))
    assert code == 0 and "Exported" in err
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert lines[0]["format"] == "remember-export"
    assert {r["user_id"] for r in lines[1:]} == {"local", "bob"}
    target = f"sqlite:///{tmp_path / 'target.db'}"
    imported = run_json(capsys, "--db", target, "import", str(dump))
    assert imported == {"users": {"bob": 1, "local": 1}, "memories": 2, "on_conflict": "refuse", "stored_already": {}}
    assert run_json(capsys, "--db", target, "list", "--tag", "people")["total"] == 1
    assert run_json(capsys, "--db", target, "prefs", "get", "search")["search"]["default_limit"] == 30
    code, _, err = run(capsys, "--db", target, "import", str(dump))
    assert code == 1 and "The file holds records that are stored already (user bob: 1 memory (" in err
    assert "Nothing was imported. Choose with --on-conflict: skip keeps what is stored" in err


def test_import_draws_a_bar_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: str
) -> None:
    dump = tmp_path / "dump.jsonl"
    run(capsys, "--db", source, "export", "--all-users", "-o", str(dump))
    code, _, err = run(capsys, "--db", f"sqlite:///{tmp_path / 'quiet.db'}", "import", str(dump))
    assert code == 0 and "\r" not in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(capsys, "--db", f"sqlite:///{tmp_path / 'shown.db'}", "import", str(dump))
    assert code == 0 and "\r" in err and "] 2/2 memories" in err and "[" + "#" * 30 + "]" in err


def test_export_of_one_user_to_stdout(capsys: pytest.CaptureFixture[str], source: str) -> None:
    code, out, _ = run(capsys, "--db", source, "--user", "bob", "export")
    assert code == 0
    users = {json.loads(line).get("user_id") for line in out.splitlines()[1:]}
    assert users == {"bob"}


def test_db_copy_and_upgrade(capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str) -> None:
    target = f"sqlite:///{tmp_path / 'copy.db'}"
    assert run_json(capsys, "db", "copy", source, target)["memories"] == 2
    assert run_json(capsys, "--db", target, "--user", "bob", "list")["total"] == 1
    assert run_json(capsys, "--db", target, "db", "upgrade") == {"applied": []}
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    assert "0001_initial" in run_json(capsys, "--db", fresh, "db", "upgrade")["applied"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["not json"], "Line 1 is not JSON"),
        (['{"format": "other"}'], "not a remember export"),
        (['{"format": "remember-export"}', '{"kind": "memory", "user_id": "x"}'], "Line 2 cannot be read"),
    ],
)
def test_bad_imports_say_which_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lines: list[str], message: str
) -> None:
    dump = tmp_path / "bad.jsonl"
    dump.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "import", str(dump))
    assert code == 1 and message in err
    assert run_json(capsys, "list")["total"] == 0


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "import", "/nonexistent/dump.jsonl")
    assert code == 1 and "Cannot open /nonexistent/dump.jsonl" in err


def _dump_of_notes(capsys: pytest.CaptureFixture[str], tmp_path: Path, embedder: MiniLMEmbedder, thing: str) -> Path:
    """An export of 1,000 notes of the local user ("Note 517: <thing> number 517 of the week")."""
    source = Services.over(open_store(str(tmp_path / "big.db"), vector_index_min=None), embedder=embedder)
    source.memories.create_many(
        Caller("local"), [{"content": f"Note {i}: {thing} number {i} of the week"} for i in range(1_000)]
    )
    source.close()
    dump = tmp_path / "big.jsonl"
    run(capsys, "--db", str(tmp_path / "big.db"), "export", "-o", str(dump))
    return dump


def test_an_import_past_the_index_thresholds_builds_the_search_indexes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """A user imported past REMEMBER_VECTOR_INDEX_MIN finds their index built, not built by their first search;
    `remember reindex` builds it again from the new vectors."""
    dump = _dump_of_notes(capsys, tmp_path, embedder, "errand")
    monkeypatch.setenv("REMEMBER_VECTOR_INDEX_MIN", "1000")
    monkeypatch.setenv("REMEMBER_KEYWORD_INDEX_MIN", "1000")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    target = tmp_path / "target.db"
    code, _, err = run(capsys, "--db", str(target), "import", str(dump))
    assert code == 0 and "indexing vectors of local [" + "#" * 30 + "] 1000/1000" in err
    assert "indexing keywords of local [" + "#" * 30 + "] 1000/1000" in err
    (first,) = Path(str(target) + ".vectors").glob("*.usearch")
    (keywords,) = Path(str(target) + ".keywords").iterdir()
    found = run_json(capsys, "--db", str(target), "search", "errand number 517", "--alpha", "0")
    # the note, and the one after it, which holds it as its context
    assert any(r["memory"]["content"].startswith("Note 517:") for r in found["results"][:2])
    assert Path(str(target) + ".keywords").iterdir().__next__() == keywords  # answered from the index built
    hits = run_json(capsys, "--db", str(target), "search", "errand number 517", "--alpha", "1")
    # The notes differ by their number alone: 517 is among the nearest few (511 is a hair nearer).
    assert any(r["memory"]["content"].startswith("Note 517:") for r in hits["results"][:3])
    code, _, err = run(capsys, "--db", str(target), "reindex")
    assert code == 0 and "indexing vectors of local" in err
    (second,) = Path(str(target) + ".vectors").glob("*.usearch")
    assert second != first  # built again from the new vectors, the old file gone
    monkeypatch.setenv("REMEMBER_VECTOR_INDEX_MIN", "off")
    monkeypatch.setenv("REMEMBER_KEYWORD_INDEX_MIN", "off")
    small = tmp_path / "exact.db"
    assert run_json(capsys, "--db", str(small), "import", str(dump))["memories"] == 1_000
    assert not Path(str(small) + ".vectors").exists() and not Path(str(small) + ".keywords").exists()


@pytest.mark.postgres
def test_an_import_into_postgres_builds_the_keyword_index_under_the_home(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    postgres_url: str,
    embedder: MiniLMEmbedder,
) -> None:
    home = tmp_path / "home"  # REMEMBER_HOME (conftest)
    dump = _dump_of_notes(capsys, tmp_path, embedder, "parcel")
    monkeypatch.setenv("REMEMBER_KEYWORD_INDEX_MIN", "1000")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(capsys, "--db", postgres_url, "import", str(dump))
    assert code == 0 and "indexing keywords of local [" + "#" * 30 + "] 1000/1000" in err
    (folder,) = (home / "keywords").glob("*/*")
    found = run_json(capsys, "--db", postgres_url, "search", "parcel number 517", "--alpha", "0")
    assert any(r["memory"]["content"].startswith("Note 517:") for r in found["results"][:2])
    assert list((home / "keywords").glob("*/*")) == [folder]  # answered from the index built
