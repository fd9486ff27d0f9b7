"""A field's kind survives storage: create, get, versions, export and import, and every description of a template."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from remember.caller import Caller
from remember.cli import template_commands
from remember.errors import TemplateError
from remember.mcp import catalog
from remember.schemas.templates import TemplateDetailOut
from remember.service import Services
from remember.service.import_export.jsonl import export_records, import_records
from remember.store import open_store
from remember.web.api import template_views

ALICE = "alice"
MET: dict[str, Any] = {
    "name": "Someone I met",
    "fields": [
        {"name": "who_i_met", "kind": "person", "required": True},
        {"name": "when_it_happened", "type": "date", "kind": "past_date"},
        {"name": "bill_total", "type": "number", "kind": "money"},
        {"name": "notes", "type": "text"},
    ],
}


def kinds(fields: Any) -> dict[str, str | None]:
    return {f["name"]: f.get("kind") for f in fields}


def test_kinds_survive_create_get_update_export_and_import(
    services: Services, tmp_path: Path, embedder: Any, clock: Any
) -> None:
    created = services.templates.create(Caller(ALICE), MET)
    expected = {"who_i_met": "person", "when_it_happened": "past_date", "bill_total": "money", "notes": None}
    assert kinds(services.templates.get(Caller(ALICE), created.id).definition.as_dict()["fields"]) == expected

    with pytest.raises(TemplateError) as refused:
        services.templates.update(Caller(ALICE), created.id, {"update_fields": [{"name": "notes", "kind": "rating"}]})
    assert [(e.field, e.code) for e in refused.value.errors] == [("notes", "kind")]
    services.templates.update(
        Caller(ALICE), created.id, {"update_fields": [{"name": "bill_total", "kind": "rating"}], "add_fields": [
            {"name": "venue", "kind": "venue"}]}
    )  # fmt: skip
    _, versions = services.templates.versions(Caller(ALICE), created.id)
    assert [kinds(v.definition["fields"]).get("bill_total") for v in versions] == ["money", "rating"]
    updated = {**expected, "bill_total": "rating", "venue": "venue"}

    target = Services.over(open_store(str(tmp_path / "target.db")), clock, embedder)
    import_records(target.store, target.indexer, export_records(services.store))
    moved = target.templates.get(Caller(ALICE), created.id)
    assert kinds(moved.definition.as_dict()["fields"]) == updated
    assert kinds(TemplateDetailOut.of(moved).resolved_fields) == updated
    assert TemplateDetailOut.of(moved).json_schema["properties"]["who_i_met"]["x-remember-kind"] == "person"


def test_the_kind_is_shown_where_fields_are_described(services: Services, capsys: pytest.CaptureFixture[str]) -> None:
    created = services.templates.create(Caller(ALICE), MET)
    prompt = catalog.prompt(services, Caller(ALICE), catalog.prompt_name(created.id), None)
    assert prompt is not None
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "- who_i_met (text, required), kind person" in text
    assert "- notes (text, optional)\n" in text + "\n"
    resource = catalog.definition_text(services.templates.get(Caller(ALICE), created.id))
    assert kinds(json.loads(resource)["resolved_fields"])["bill_total"] == "money"
    view, chain = services.templates.ancestry(Caller(ALICE), created.id)
    shown = {f["name"]: f["summary"] for f in template_views.detail(view, chain)["inheritance"]["fields"]}
    assert shown["when_it_happened"] == "date, optional, kind past_date" and shown["notes"] == "text, optional"
    template_commands.show(services, Caller(ALICE), argparse.Namespace(json=False, template=created.id))
    assert re.search(r"bill_total +number, optional, kind money\n", capsys.readouterr().out)
