"""`remember suggest` and `remember template apply`, in-process, on the default embedder."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from support import fingerprint, run, run_json

SUSHI = "Had great sushi at Nobu yesterday, 5 stars"


@pytest.fixture
def sushi(capsys: pytest.CaptureFixture[str]) -> str:
    return str(run_json(capsys, "add", SUSHI)["id"])


@pytest.fixture
def database(_isolated_home: Path) -> Path:
    return _isolated_home / "remember.db"


def test_suggest_names_the_template_and_the_fields_it_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "suggest", SUSHI)
    assert code == 0
    first, fields = out.splitlines()[:2]
    assert "builtin:restaurant_review" in first and "Restaurant Review" in first
    read = json.loads(fields)
    assert (read["restaurant_name"], read["rating"]) == ("Nobu", 5)
    assert "last_visited" in read  # "yesterday", as a date


def test_suggest_as_json_with_context_limit_and_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(SUSHI))
    found = run_json(capsys, "suggest", "-", "--context", '{"time_of_day": "dinner"}', "--limit", "1")
    [only] = found["suggestions"]
    assert only["template_id"] == "builtin:restaurant_review"
    assert "fits the time of day" in only["reason"]
    assert only["prefill"]["rating"] == 5


def test_suggest_says_so_when_nothing_fits(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "suggest", "The sky is blue today")[1] == "No template fits.\n"
    assert run_json(capsys, "suggest", "The sky is blue today") == {"suggestions": []}


def test_apply_reads_the_fields_from_the_memory_text(capsys: pytest.CaptureFixture[str], sushi: str) -> None:
    code, out, _ = run(capsys, "template", "apply", "Restaurant Review", sushi)
    assert code == 0 and f"{sushi} now follows builtin:restaurant_review" in out
    memory = run_json(capsys, "get", sushi, "--history")
    assert memory["content"] == SUSHI
    assert memory["template_compliance"] is True
    assert memory["structured_content"]["restaurant_name"] == "Nobu"
    assert memory["history"][-1]["reason"] == "applied template builtin:restaurant_review"
    stats = run_json(capsys, "template", "analytics", "builtin:restaurant_review")
    assert stats["usage_count"] == 1


def test_apply_with_fields_from_options_and_a_file(
    capsys: pytest.CaptureFixture[str], sushi: str, tmp_path: Path
) -> None:
    fields = tmp_path / "fields.yaml"
    fields.write_text("restaurant_name: Nobu Malibu\noccasion: celebration\n")
    memory = run_json(
        capsys, "template", "apply", "builtin:restaurant_review", sushi, "-f", str(fields), "--field", "rating=4",
        "--reason", "from the receipt",
    )  # fmt: skip
    assert memory["structured_content"]["restaurant_name"] == "Nobu Malibu"
    assert memory["structured_content"]["rating"] == 4
    assert memory["structured_content"]["occasion"] == "celebration"
    history = run_json(capsys, "get", sushi, "--history")["history"]
    assert history[-1]["reason"] == "from the receipt"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["suggest", "x", "--context", "{bad"], "--context must be JSON"),
        (["suggest", "x", "--context", "[1]"], "context"),
        (["suggest", "x", "--limit", "0"], "limit must be a whole number from 1 to 10"),
        (["suggest", "x", "--limit", "11"], "limit must be a whole number from 1 to 10"),
        (["suggest", ""], "content must not be empty"),
        (["suggest", "x" * 200_001], "content"),
        (["template", "apply", "builtin:restaurant_review", "no-such-id"], "No memory with id 'no-such-id'"),
        (["template", "apply", "no such template", "{sushi}"], "No template with id, name or slug 'no such template'"),
        (["template", "apply", "builtin:restaurant_review", "{sushi}", "--field", "rating=9"], "rating"),
        (["template", "apply", "builtin:book_review", "{sushi}"], "title is required"),
        (["template", "apply", "builtin:restaurant_review", "{sushi}", "--field", "oops"], "NAME=VALUE"),
        (["template", "apply", "builtin:restaurant_review", "{sushi}", "-f", "/nonexistent.yaml"], "Cannot read"),
        (["--user", "bob", "template", "apply", "builtin:restaurant_review", "{sushi}"], "No memory with id"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], sushi: str, database: Path, argv: list[str], message: str
) -> None:
    before = fingerprint(database)
    code, out, err = run(capsys, *(arg.replace("{sushi}", sushi) for arg in argv))
    assert code == 1 and out == ""
    assert message in err
    assert fingerprint(database) == before


def test_a_fields_file_that_is_not_an_object_is_refused(
    capsys: pytest.CaptureFixture[str], sushi: str, database: Path, tmp_path: Path
) -> None:
    fields = tmp_path / "fields.yaml"
    fields.write_text("- a list\n")
    before = fingerprint(database)
    code, _, err = run(capsys, "template", "apply", "builtin:restaurant_review", sushi, "-f", str(fields))
    assert code == 1 and "must be an object of fields" in err
    assert fingerprint(database) == before


def test_applying_another_template_replaces_the_fields_and_counts_once(
    capsys: pytest.CaptureFixture[str], sushi: str
) -> None:
    run_json(capsys, "template", "apply", "builtin:restaurant_review", sushi)
    again = run_json(capsys, "template", "apply", "builtin:restaurant_review", sushi)  # nothing changes
    assert again["version"] == 2
    stats = run_json(capsys, "template", "analytics", "builtin:restaurant_review")
    assert stats["applied_after_suggestion"] == 1

    switched = run_json(capsys, "template", "apply", "builtin:idea", sushi, "--field", "title=Sushi night")
    assert switched["template_id"] == "builtin:idea"
    assert "restaurant_name" not in switched["structured_content"]
    assert switched["structured_content"]["title"] == "Sushi night"
    assert switched["template_compliance"] is True


def test_add_shows_the_best_suggestion_and_its_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "add", "Just finished reading Piranesi by Susanna Clarke, 5 stars")
    assert code == 0
    assert "Suggested template: Book Review (builtin:book_review)" in out
    assert "title:" in out and "Piranesi" in out and "Susanna Clarke" in out
    assert "remember template apply builtin:book_review" in out
    stored = run_json(capsys, "add", SUSHI)
    assert stored["template_id"] is None  # nothing changes without the accept
    assert stored["template_suggestion"]["template_id"] == "builtin:restaurant_review"
    assert stored["template_suggestion"]["applied"] is False


def test_add_accept_suggestion_applies_it_with_the_prefill(capsys: pytest.CaptureFixture[str]) -> None:
    text = "Caught up with my old friend Tomás Rivera, now a product manager at Shopify"
    stored = run_json(capsys, "add", text, "--accept-suggestion")
    assert stored["template_id"] == "builtin:person"
    assert stored["content"] == text
    fields = stored["structured_content"]
    assert (fields["name"], fields["relationship"], fields["company"]) == ("Tomás Rivera", "friend", "Shopify")
    assert fields["job_title"] == "product manager"
    assert stored["template_suggestion"]["applied"] is True
    code, out, _ = run(capsys, "add", "Finished 'Dune' by Frank Herbert yesterday, 4 stars", "--accept-suggestion")
    assert code == 0 and "Applied template: Book Review" in out


def test_add_accept_suggestion_that_misses_a_required_field_keeps_the_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "add", "Met Daniel Okafor at the meetup, he's a staff engineer at Stripe",
                         "--accept-suggestion")  # fmt: skip
    assert code == 0
    assert "was not applied" in err and "--field relationship=..." in err
    assert "Suggested template: Person Profile" in out


def test_add_without_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    stored = run_json(capsys, "add", SUSHI, "--no-suggestion")
    assert "template_suggestion" not in stored
    code, _, err = run(capsys, "add", SUSHI, "--no-suggestion", "--accept-suggestion")
    assert code == 1 and "--no-suggestion" in err
