"""TemplateService.check and .replace: a whole definition checked without storing, or stored as a new version."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, Conflict, NotFound, TemplateError, ValidationFailed
from remember.service import Services

ALICE = "alice"
RUN: dict[str, Any] = {"name": "Run", "fields": [{"name": "km", "type": "number", "required": True}]}


def test_check_stores_nothing_and_reports_a_taken_name_with_the_other_problems(services: Services) -> None:
    services.templates.create(Caller(ALICE), RUN)
    before = services.store.templates.of_user(ALICE)
    with pytest.raises(TemplateError) as caught:
        services.templates.check(Caller(ALICE), {"name": "run", "fields": [{"name": "x", "type": "nope"}]})
    assert [e.code for e in caught.value.errors] == ["conflict", "unknown_type"]
    assert services.templates.check(Caller(ALICE), {**RUN, "name": "Ride"}).name == "Ride"
    assert services.store.templates.of_user(ALICE) == before


def test_replace_keeps_the_id_bumps_the_version_rechecks_memories_and_says_what_changed(services: Services) -> None:
    made = services.templates.create(Caller(ALICE), RUN).id
    services.memories.create(Caller(ALICE), {"template_id": made, "structured_content": {"km": 5}})
    new = {**RUN, "id": "tpl_other", "fields": [*RUN["fields"], {"name": "route", "type": "string", "required": True}]}
    view, rechecked, changes = services.templates.replace(Caller(ALICE), made, new, base_version="1.0")
    assert (view.id, view.definition.version, rechecked) == (made, "1.1", 1)
    assert changes["added_fields"] == ["route"]
    memory = services.memories.list(Caller(ALICE), filters={"template_id": made}).items[0]
    assert memory.template_compliance is False and memory.template_version == "1.0"
    assert [v.version for v in services.store.templates.versions(ALICE, made)] == ["1.0", "1.1"]
    view, _, _ = services.templates.replace(Caller(ALICE), made, {**new, "version": "2.0"})
    assert view.definition.version == "2.0"


def test_replace_is_refused_for_built_ins_others_stale_versions_and_broken_children(services: Services) -> None:
    with pytest.raises(AccessDenied, match="built-in template and cannot be changed"):
        services.templates.replace(Caller(ALICE), "builtin:book_review", RUN)
    theirs = services.templates.create(Caller("bob"), RUN).id
    with pytest.raises(NotFound):
        services.templates.replace(Caller(ALICE), theirs, RUN)
    made = services.templates.create(Caller(ALICE), RUN).id
    with pytest.raises(Conflict, match="load it again"):
        services.templates.replace(Caller(ALICE), made, RUN, base_version="0.9")
    child = {"name": "Trail", "parent_template_id": made, "fields": [{"name": "pace", "type": "computed",
             "formula": "km * 2"}]}  # fmt: skip
    services.templates.create(Caller(ALICE), child)
    with pytest.raises(TemplateError, match="would break template"):
        services.templates.replace(
            Caller(ALICE), made, {"name": "Run", "fields": [{"name": "miles", "type": "number"}]}
        )
    with pytest.raises(ValidationFailed, match="must be an object"):
        services.templates.replace(Caller(ALICE), made, ["not", "a", "definition"])
    assert services.templates.get(Caller(ALICE), made).definition.version == "1.0"
    assert services.templates.get(Caller("bob"), theirs).definition.version == "1.0"
