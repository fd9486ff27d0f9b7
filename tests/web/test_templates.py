"""The templates pages in a real browser: the list, one template, the editor with live checks."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site

VALID = "name: Wine tasting\nfields:\n  - name: wine\n    type: string\n    required: true\n"
BROKEN = "name: Wine tasting\nfields:\n  - name: wine\n    type: strnig\n"


def _definition(page: Any, *, as_json: bool = False) -> Any:
    """The editor's text view (the form is the first), in JSON if asked."""
    page.get_by_label("YAML or JSON text").check()
    if as_json:
        page.get_by_label("JSON", exact=True).check()
    return page.get_by_label("Definition (YAML or JSON)")


def test_a_new_template_shows_its_live_errors_until_fixed_then_is_saved_and_listed(site: Site, page: Any) -> None:
    user = site.user("carla")
    site.log_in(page, user)
    page.goto(f"{site.url}/#/templates")
    page.get_by_role("link", name="New template").click()
    expect(page.get_by_role("heading", name="New template")).to_be_visible()
    save = page.get_by_role("button", name="Create template")
    definition = _definition(page)
    definition.fill(BROKEN.removesuffix("strnig\n"))
    definition.press("End")
    definition.press_sequentially("strnig", delay=20)
    problems = page.get_by_role("region", name="Definition problems")
    expect(definition).to_have_value(BROKEN.removesuffix("\n"))
    expect(problems).to_contain_text("wine: unknown type 'strnig'")
    expect(problems).to_contain_text("1 problem; fix each one below")
    expect(save).to_be_disabled()
    for _ in "nig":
        definition.press("Backspace")
    definition.press_sequentially("ing", delay=20)
    expect(problems).not_to_contain_text("strnig")
    expect(problems).to_contain_text("The definition is valid")
    expect(save).to_be_enabled()
    save.click()
    expect(page.get_by_role("heading", name="Wine tasting")).to_be_visible()
    expect(page.locator("main .ok")).to_contain_text("Created Wine tasting")
    page.get_by_role("link", name="All templates").click()
    page.get_by_label("Search by name").fill("wine")
    expect(page.get_by_role("link", name="Wine tasting")).to_be_visible()
    expect(page.get_by_role("row", name=re.compile("Wine tasting"))).to_contain_text("Yours")


def test_the_preview_checks_what_is_typed_in_it_against_the_draft(site: Site, page: Any) -> None:
    site.log_in(page, site.user("dan"))
    page.goto(f"{site.url}/#/template-new")
    _definition(page).fill(VALID + "  - name: score\n    type: integer\n    validation: {min: 1, max: 10}\n")
    expect(page.get_by_role("region", name="Definition problems")).to_contain_text("The definition is valid")
    preview = page.get_by_role("region", name="Preview")
    preview.get_by_label("Score").fill("11")
    expect(preview).to_contain_text("score must be at most 10")
    preview.get_by_label("Score").fill("9")
    expect(preview).not_to_contain_text("score must be at most 10")


def test_a_template_that_extends_another_shows_where_each_field_comes_from(site: Site, page: Any) -> None:
    user = site.user("erin")
    parent = site.services.templates.create(Caller(user), {"name": "Drink", "fields": [
        {"name": "name", "type": "string", "required": True}, {"name": "rating", "type": "integer"}]}).id  # fmt: skip
    child = site.services.templates.create(Caller(user), {"name": "Cocktail", "parent_template_id": parent, "fields": [
        {"name": "base_spirit", "type": "string"}, {"name": "rating", "type": "number"}]}).id  # fmt: skip
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template/{child}")
    expect(page.get_by_role("heading", name="Cocktail")).to_be_visible()
    chain = page.get_by_role("list", name="Inheritance chain, the root first")
    expect(chain.get_by_role("listitem")).to_have_text(
        [re.compile("^Drink"), re.compile("^Cocktail \\(this template\\)")]
    )
    expect(page.get_by_role("row", name=re.compile("^name "))).to_contain_text("inherited from Drink")
    expect(page.get_by_role("row", name=re.compile("^rating "))).to_contain_text("overrides Drink")
    expect(page.get_by_role("row", name=re.compile("^base_spirit "))).to_contain_text("this template")
    expect(page.get_by_label("JSON Schema")).to_contain_text('"base_spirit"')


def test_after_a_required_field_is_added_a_memory_of_v1_is_shown_not_compliant(site: Site, page: Any) -> None:
    user = site.user("finn")
    parent = site.services.templates.create(
        Caller(user), {"name": "Exercise", "fields": [{"name": "minutes", "type": "integer"}]}
    )
    made = site.services.templates.create(
        Caller(user), {"name": "Run", "parent_template_id": parent.id, "fields": [{"name": "km", "type": "number"}]}
    ).id
    site.services.memories.create(
        Caller(user), {"template_id": made, "structured_content": {"km": 5}, "title": "Park run"}
    )
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template/{made}")
    expect(page.locator("p.compliance")).to_have_text("1 compliant, 0 not compliant with version 1.0.")
    page.get_by_role("link", name="Edit").click()
    definition = _definition(page, as_json=True)
    expect(definition).to_have_value(re.compile('"km"'))
    text = definition.input_value().replace(
        '"fields": [', '"fields": [\n    {"name": "route", "type": "string", "required": true},'
    )
    definition.fill(text)
    save = page.get_by_role("button", name="Save a new version")
    expect(save).to_be_enabled()
    save.click()
    expect(page.locator("main .ok")).to_contain_text("Saved version 1.1: added route; 1 memory re-checked")
    expect(page.locator("p.compliance")).to_have_text("0 compliant, 1 not compliant with version 1.1.")
    row = page.get_by_role("table", name="Memories made with this template").get_by_role(
        "row", name=re.compile("Park run")
    )
    expect(row).to_contain_text("1.0")
    expect(row).to_contain_text("No")
    expect(row).to_contain_text("route: route is required")
    versions = page.get_by_role("row", name=re.compile("^1\\.1 "))
    expect(versions).to_contain_text("added route")
    site.shot(page, "template")


def test_a_built_in_cannot_be_edited_and_offers_a_copy(site: Site, page: Any) -> None:
    site.log_in(page, site.user("gus"))
    page.goto(f"{site.url}/#/templates")
    expect(page.get_by_role("link", name="Book Review")).to_be_visible()
    site.shot(page, "templates")
    page.goto(f"{site.url}/#/template/builtin:book_review")
    expect(page.get_by_role("heading", name="Book Review")).to_be_visible()
    expect(page.get_by_role("link", name="Edit")).to_have_count(0)
    page.goto(f"{site.url}/#/template-edit/builtin:book_review")
    expect(page.get_by_role("alert")).to_contain_text("is a built-in template and cannot be changed; copy it")
    expect(page.get_by_label("Definition (YAML or JSON)")).to_have_count(0)
    page.get_by_role("button", name="Copy it to edit").click()
    expect(page.get_by_role("heading", name="Edit Book Review (copy)")).to_be_visible()


def test_another_users_template_is_unreachable_by_url(site: Site, page: Any) -> None:
    owner = site.user("hana")
    theirs = site.services.templates.create(
        Caller(owner), {"name": "Diary", "fields": [{"name": "mood", "type": "string"}]}
    )
    site.log_in(page, site.user("ivan"))
    for address in (f"#/template/{theirs.id}", f"#/template-edit/{theirs.id}"):
        page.goto(f"{site.url}/{address}")
        expect(page.get_by_role("alert")).to_contain_text(f"No template with id '{theirs.id}'")
        expect(page.get_by_text("mood")).to_have_count(0)


def test_deleting_a_template_keeps_its_memories_and_leaves_the_list(site: Site, page: Any) -> None:
    user = site.user("jo")
    made = site.services.templates.create(
        Caller(user), {"name": "Gig", "fields": [{"name": "band", "type": "string"}]}
    ).id
    memory = site.services.memories.create(Caller(user), {"template_id": made, "structured_content": {"band": "Low"}})
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template/{made}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    expect(page.get_by_role("heading", name="Templates")).to_be_visible()
    expect(page.locator("main .ok")).to_have_text("Template deleted; its memories were kept with their fields.")
    page.get_by_label("Show").select_option("mine")
    expect(page.get_by_text("No templates match.")).to_be_visible()
    kept = site.services.memories.get(Caller(user), memory.id, record_access=False)
    assert kept.deleted_at is None and kept.structured_content == {"band": "Low"}
