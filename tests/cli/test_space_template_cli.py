"""`remember template … --space`: a shared space's templates on the command line, for two users of one database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import run, run_json

WINE = {"name": "Wine Tasting", "fields": [{"name": "wine", "type": "string", "required": True},
                                           {"name": "score", "type": "number"}]}  # fmt: skip


def _team(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[str, str, Path]:
    """Ann's space Team (Ben writes, Cat reads), its template Wine Tasting, and the file it was made from."""
    key: str = run_json(capsys, "space", "create", "Team", "--user", "ann")[0]["space"]
    run_json(capsys, "space", "add", "Team", "ben", "--role", "writer", "--user", "ann")
    run_json(capsys, "space", "add", "Team", "cat", "--role", "reader", "--user", "ann")
    for user in ("ben", "cat"):
        run_json(capsys, "space", "accept", key, "--user", user)
    definition = tmp_path / "wine.json"
    definition.write_text(json.dumps(WINE))
    made = run_json(capsys, "template", "create", "-f", str(definition), "--space", "Team", "--user", "ann")
    assert made["space"] == key
    return key, made["id"], definition


def test_members_list_show_and_use_a_spaces_template(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key, template, _ = _team(capsys, tmp_path)
    listed = run_json(capsys, "template", "list", "--mine", "--user", "cat")
    assert [(t["id"], t["space"]) for t in listed["templates"]] == [(template, key)]
    assert run_json(capsys, "template", "list", "--mine", "--space", "personal", "--user", "cat")["templates"] == []
    code, out, _ = run(capsys, "template", "list", "--mine", "--user", "ben")
    assert code == 0 and "space Team" in out
    code, out, _ = run(capsys, "template", "show", "Wine Tasting", "--space", "Team", "--user", "cat")
    assert code == 0 and f"Wine Tasting ({template}), version 1.0, in space Team" in out
    assert run_json(capsys, "template", "show", template, "--user", "cat")["space"] == key
    run_json(capsys, "add", "--template", "Wine Tasting", "--space", "Team", "--field", "wine=Rioja", "--user", "ben")
    run_json(capsys, "add", "--template", template, "--field", "wine=Malbec", "--user", "ben")  # to its space
    shared = run_json(capsys, "list", "--space", key, "--user", "cat")["memories"]
    assert sorted(m["structured_content"]["wine"] for m in shared) == ["Malbec", "Rioja"]
    assert run_json(capsys, "list", "--space", "personal", "--user", "ben")["memories"] == []
    figures = run_json(capsys, "template", "analytics", template, "--user", "cat")
    assert figures["memory_count"] == 2


def test_only_its_admins_change_it_and_others_are_told_why(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, template, definition = _team(capsys, tmp_path)
    before = run_json(capsys, "template", "show", template, "--user", "ann")
    for user, role in (("ben", "writer"), ("cat", "reader")):
        for argv in (("template", "create", "-f", str(definition), "--space", "Team"),
                     ("template", "update", template, "--description", "mine"),
                     ("template", "update", "Wine Tasting", "--space", "Team", "--description", "mine"),
                     ("template", "rm", template),
                     ("template", "copy", "builtin:book_review", "--space", "Team")):  # fmt: skip
            code, _, err = run(capsys, *argv, "--user", user)
            assert code == 1 and f"You are a {role} in space Team: only its admins" in err, (user, argv)
    for argv in (("template", "create", "-f", str(definition), "--space", "Team"),
                 ("template", "show", "Wine Tasting", "--space", "Team")):  # fmt: skip
        code, _, err = run(capsys, *argv, "--user", "dan")
        assert code == 1 and "Unknown space 'Team'" in err
    for argv in (("template", "show", template), ("template", "rm", template), ("template", "update", template,
                 "--description", "mine"), ("add", "--template", template, "--field", "wine=x")):  # fmt: skip
        code, _, err = run(capsys, *argv, "--user", "dan")
        assert code == 1 and f"No template with id, name or slug {template!r}" in err, argv
    code, _, err = run(capsys, "add", "--template", template, "--field", "wine=x", "--user", "cat")
    assert code == 1 and "You are a reader in space Team" in err
    code, _, err = run(
        capsys, "add", "--template", template, "--space", "personal", "--field", "wine=x", "--user", "ben"
    )
    assert code == 1 and "belongs to space Team" in err
    assert run_json(capsys, "template", "show", template, "--user", "ann") == before
    updated = run_json(capsys, "template", "update", "Wine Tasting", "--space", "Team", "--description", "Team wines",
                       "--user", "ann")  # fmt: skip
    assert updated["template"]["description"] == "Team wines"
    assert run_json(capsys, "template", "rm", template, "--user", "ann")["template_id"] == template


def test_a_personal_template_is_copied_into_the_space_to_be_used_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key, _, definition = _team(capsys, tmp_path)
    own = run_json(capsys, "template", "create", "-f", str(definition), "--user", "ann")
    assert "space" not in own
    code, _, err = run(capsys, "add", "--template", own["id"], "--space", "Team", "--field", "wine=x", "--user", "ann")
    assert code == 1 and "one of your personal templates" in err and "remember template copy --space" in err
    copied = run_json(capsys, "template", "copy", own["id"], "--space", "Team", "--name", "Ann's Wine", "--user", "ann")
    assert copied["space"] == key and copied["derived_from"] == own["id"]
    run_json(capsys, "add", "--template", "Ann's Wine", "--space", "Team", "--field", "wine=Barolo", "--user", "ben")


def test_a_text_for_a_space_is_offered_its_templates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, _, definition = _team(capsys, tmp_path)
    cellar = {**WINE, "name": "Cellar Note", "auto_apply": True, "trigger_keywords": ["cellar note"]}
    definition.write_text(json.dumps(cellar))
    made = run_json(capsys, "template", "create", "-f", str(definition), "--space", "Team", "--user", "ann")
    text = "cellar note: opened the 2012 Barolo tonight"
    offered = run_json(capsys, "suggest", text, "--space", "Team", "--user", "ben")["suggestions"]
    assert made["id"] in {s["template_id"] for s in offered}
    assert made["id"] not in {
        s["template_id"] for s in run_json(capsys, "suggest", text, "--user", "ben")["suggestions"]
    }
    code, _, err = run(capsys, "suggest", text, "--space", "Team", "--user", "cat")
    assert code == 1 and "You are a reader in space Team" in err
    code, _, err = run(capsys, "suggest", text, "--space", "Team", "--user", "dan")
    assert code == 1 and "Unknown space 'Team'" in err


def test_templates_are_learned_from_a_spaces_memories_by_its_admins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key, _, _ = _team(capsys, tmp_path)
    learned = run_json(capsys, "template", "infer", "--space", "Team", "--user", "ann")
    assert learned["proposals"] == [] and learned["field_additions"] == []  # no untemplated memories yet
    code, _, err = run(capsys, "template", "infer", "--space", key, "--user", "ben")
    assert code == 1 and "You are a writer in space Team: only its admins" in err
    code, _, err = run(capsys, "template", "infer", "--space", "Team", "--user", "dan")
    assert code == 1 and "Unknown space 'Team'" in err and "remember space list" in err
