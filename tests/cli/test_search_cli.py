"""`remember search`, `similar`, `context` and `reindex`, in-process and with the real model."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from support import run, run_json


@pytest.fixture
def ids(capsys: pytest.CaptureFixture[str]) -> list[str]:
    notes = [
        "Sarah Chen is a product manager at Google.",
        "Had sushi at Nobu on Friday.",
        "My dog Rex loves the beach.",
    ]
    return [run_json(capsys, "add", n)["id"] for n in notes]


def test_search(capsys: pytest.CaptureFixture[str], ids: list[str]) -> None:
    found = run_json(capsys, "search", "who works at Google")
    assert found["results"][0]["memory"]["id"] == ids[0]
    code, out, _ = run(capsys, "search", "pets", "--alpha", "1", "--explain")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("plan: alpha 1.0, 50 candidates a side")
    assert lines[1] == "  keyword: off" and lines[2].startswith("  vector: exact (ran: exact")
    assert "My dog Rex" in lines[4] and "cosine" in out
    explained = run_json(capsys, "search", "sushi", "--explain", "--filter", '{"type": "note"}')
    assert explained["plan"]["keyword"]["terms"]["find"] == ["sushi"]
    assert explained["plan"]["keyword"]["filter"].startswith("checked on every match:")
    assert "plan" not in run_json(capsys, "search", "sushi")
    only = run_json(capsys, "search", "anything", "--filter", '{"content": {"contains": "sushi"}}', "--min-score", "-1")
    assert [r["memory"]["id"] for r in only["results"]] == [ids[1]]


def test_an_off_topic_search_finds_nothing_unless_asked(capsys: pytest.CaptureFixture[str], ids: list[str]) -> None:
    assert run(capsys, "search", "tracer bullets") == (0, "No memories found.\n", "")
    every = run_json(capsys, "search", "tracer bullets", "--min-score", "-1")["results"]
    assert sorted(r["memory"]["id"] for r in every) == sorted(ids)
    assert run(capsys, "context", "tracer bullets")[1] == "No memories found.\n"
    assert len(run_json(capsys, "context", "tracer bullets", "--min-score", "-1")["sources"]) == 3


def test_similar(capsys: pytest.CaptureFixture[str], ids: list[str]) -> None:
    assert run_json(capsys, "similar", "--text", "animals", "--limit", "1")["results"][0]["memory"]["id"] == ids[2]
    near = run_json(capsys, "similar", ids[1])
    assert ids[1] not in [r["memory"]["id"] for r in near["results"]]


def test_reindex_draws_progress_frames_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, ids: list[str]
) -> None:
    code, out, err = run(capsys, "reindex")
    assert code == 0 and "Reindexed 3 memories." in out and err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "reindex")
    assert code == 0 and "Reindexed 3 memories." in out and "\r" in err and "3/3" in err
    assert run_json(capsys, "reindex") == {"reindexed": 3}
    assert run_json(capsys, "search", "Nobu")["results"][0]["memory"]["id"] == ids[1]


def test_context_packs_the_answering_memories_with_sources(
    capsys: pytest.CaptureFixture[str], ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, "context", "Where did I have sushi?")
    assert code == 0 and out.startswith("[1] ") and "Had sushi at Nobu on Friday." in out.splitlines()[0]
    monkeypatch.setattr(sys, "stdin", io.StringIO("Who works at Google?"))
    packed = run_json(capsys, "context", "-", "--token-budget", "100", "--filter", '{"tags": {"contains": "none"}}')
    assert packed == {"question": "Who works at Google?", "context": "", "tokens": 0, "sources": []}
    packed = run_json(capsys, "context", "Who works at Google?", "--alpha", "0")
    assert packed["sources"][0]["memory_id"] == ids[0] and packed["sources"][0]["number"] == 1
    assert run(capsys, "context", "Who works at Google?", "--filter", '{"type": "book"}')[1] == "No memories found.\n"


def test_context_shows_the_fields_of_a_templated_memory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, ids: list[str]
) -> None:
    wine = tmp_path / "wine.json"
    wine.write_text(json.dumps({"name": "Wine tasting", "fields": [
        {"name": "wine", "type": "string", "required": True}, {"name": "score", "type": "number"}]}))  # fmt: skip
    run_json(capsys, "template", "create", "-f", str(wine))
    fields = ("--field", "wine=Barca Velha", "--field", "score=96")
    run_json(capsys, "add", "Tasted at Ana's place", "--template", "Wine tasting", *fields)
    code, out, _ = run(capsys, "context", "what score did I give Barca Velha")
    assert code == 0 and out.startswith("[1] ")
    first = out.split("\n[2]")[0].rstrip("\n")
    assert first.endswith("Barca Velha: Tasted at Ana's place\nWine: Barca Velha\nScore: 96")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", ""], "QUERY must be a non-empty text"),
        (["search", "x", "--alpha", "3"], "alpha must be a number from 0 to 1"),
        (["search", "x", "--min-score", "2"], "--min-score must be a number from -1 to 1"),
        (["search", "x", "--filter", "{nope"], "--filter must be JSON"),
        (["search", "x", "--filter", '{"colour": 1}'], "Unknown filter field"),
        (["similar"], "Give a memory's ID or --text TEXT"),
        (["similar", "nope"], "No memory with id 'nope'"),
        (["context", ""], "QUESTION must be a non-empty text"),
        (["context", "x", "--token-budget", "5"], "--token-budget must be a whole number from 100 to 32000"),
        (["context", "x", "--alpha", "-1"], "alpha must be a number from 0 to 1"),
        (["context", "x", "--filter", "[1]"], "filter"),
    ],
)
def test_errors(capsys: pytest.CaptureFixture[str], ids: list[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err
