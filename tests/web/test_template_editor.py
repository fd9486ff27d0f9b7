"""The template editor's form in a real browser, at 1280 and 390 px: fields as rows (types, a required mark,
options, a kind, validation, a show_if condition, a formula) added and moved with buttons, the engine's
messages beside their row with nothing saved, a live preview of the memory form, and the YAML/JSON text
as a second view that keeps the edits and gives the same template; a template written as YAML reopens as
YAML; an edit makes a new version."""

from __future__ import annotations

import re
from typing import Any

import yaml
from playwright.sync_api import expect

from remember.caller import Caller
from remember.templates import parse_template
from web_support import Site, axe_problems_at, sideways


def row(page: Any, number: int) -> Any:
    return page.get_by_role("group", name=re.compile(f"^Field {number}:"))


def attributes(page: Any) -> Any:
    return page.get_by_role("group", name="Template", exact=True)


def add_field(page: Any, name: str, kind: str) -> Any:
    page.get_by_role("button", name="Add a field").click()
    count = page.locator("fieldset.field-row").count()
    added = row(page, count)
    expect(added.get_by_label("Name", exact=True)).to_be_focused()
    added.get_by_label("Name", exact=True).fill(name)
    added.get_by_label("Type", exact=True).select_option(kind)
    return row(page, count)


def problems(page: Any) -> Any:
    return page.get_by_role("region", name="Definition problems")


def own_templates(site: Site, user: str) -> list[Any]:
    return list(site.services.templates.list_templates(Caller(user), include_default=False)[0])


def wine_tasting(page: Any) -> None:
    """Six fields made in the form, one of each sort: required, options, kind and bounds, show_if, formula;
    then one moved up with the keyboard."""
    expect(page.get_by_role("heading", name="New template")).to_be_visible()
    expect(problems(page)).to_contain_text("The definition is valid: 1 field")
    attributes(page).get_by_label("Name", exact=True).fill("Wine tasting")
    attributes(page).get_by_label("Category", exact=True).fill("food")
    first = row(page, 1)
    first.get_by_label("Name", exact=True).fill("wine")
    expect(first.get_by_label("Required")).to_be_checked()
    style = add_field(page, "style", "enum")
    style.get_by_label("Options", exact=True).fill("red, white")
    style.get_by_label("Options", exact=True).press("Enter")
    expect(style.get_by_role("list", name="Options: the list").get_by_role("listitem")).to_have_count(2)
    score = add_field(page, "score", "integer")
    score.get_by_label("Minimum").fill("1")
    score.get_by_label("Maximum").fill("10")
    score.get_by_label("Kind of value (for prefill)").select_option("rating")
    notes = add_field(page, "grape_notes", "text")
    notes.get_by_label("Show if").fill("style == 'red'")
    add_field(page, "price", "number")
    glass = add_field(page, "price_per_glass", "computed")
    expect(glass.get_by_label("Required")).to_be_hidden()
    glass.get_by_label("Formula").fill("price / 5")
    # Reordering: score goes up above style, with the keyboard.
    row(page, 3).get_by_role("button", name="Move score up").press("Enter")
    expect(row(page, 2)).to_have_accessible_name(re.compile("score"))
    expect(row(page, 2).get_by_role("button", name="Move score up")).to_be_focused()
    expect(problems(page)).to_contain_text("The definition is valid: 6 fields")


def test_a_template_made_in_the_form_is_the_one_its_text_gives(site: Site, sized: Any, browser: Any) -> None:
    page = sized
    user = site.user("form")
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template-new")
    wine_tasting(page)
    # The preview is the memory form: required marked, show_if applied as it is typed.
    preview = page.get_by_role("region", name="Preview")
    expect(preview.get_by_label("Wine (required)")).to_be_visible()
    expect(preview.get_by_label("Price per glass")).to_have_count(0)  # computed: no control
    expect(preview.get_by_label("Grape notes")).to_be_hidden()
    preview.get_by_label("Style").select_option("red")
    expect(preview.get_by_label("Grape notes")).to_be_visible()
    preview.get_by_label("Score").fill("11")
    expect(preview).to_contain_text("score must be at most 10")
    assert sideways(page) == 0
    page.evaluate("window.scrollTo(0, 0)")
    site.shot_at_width(page, "template-editor-form")
    # The text view: the same definition as YAML; an edit there is kept back in the form.
    page.get_by_label("YAML or JSON text").check()
    text = page.get_by_label("Definition (YAML or JSON)")
    expect(text).to_have_value(re.compile("^name: Wine tasting\n"))
    written = text.input_value()
    assert [f["name"] for f in yaml.safe_load(written)["fields"]] == [
        "wine", "score", "style", "grape_notes", "price", "price_per_glass"]  # fmt: skip
    assert "description: What it is for\n" in written
    text.fill(written.replace("description: What it is for\n", "description: Notes from tastings\n"))
    assert sideways(page) == 0
    site.shot_at_width(page, "template-editor-text")
    page.get_by_label("Form", exact=True).check()
    expect(attributes(page).get_by_label("Description")).to_have_value("Notes from tastings")
    expect(row(page, 4).get_by_label("Show if")).to_have_value("style == 'red'")
    page.get_by_label("YAML or JSON text").check()
    expect(text).to_have_value(re.compile("description: Notes from tastings"))
    as_text = text.input_value()
    page.get_by_label("Form", exact=True).check()

    def drawn(opened: Any) -> None:  # the address again: a new template's form, its preview drawn
        expect(opened.get_by_role("group", name="A new memory's fields")).to_be_visible()

    assert axe_problems_at(browser, page, drawn) == []
    page.get_by_role("button", name="Create template").click()
    expect(page.get_by_role("heading", name="Wine tasting", level=1)).to_be_visible()
    [made] = own_templates(site, user)
    from_text = parse_template(yaml.safe_load(as_text))
    assert {**made.definition.as_dict(), "id": ""} == {**from_text.as_dict(), "id": ""}


def test_a_mistake_is_shown_beside_its_row_in_the_engines_words_and_nothing_is_saved(site: Site, sized: Any) -> None:
    page = sized
    user = site.user("oops")
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template-new")
    save = page.get_by_role("button", name="Create template")
    expect(save).to_be_enabled()
    score = add_field(page, "score", "integer")
    score.get_by_label("Minimum").fill("10")
    score.get_by_label("Maximum").fill("1")
    bad = add_field(page, "Bad Name", "string")
    expect(score.locator(".row-problems")).to_contain_text("min (10) is greater than max (1)")
    expect(bad.locator(".row-problems")).to_contain_text("field name 'Bad Name' is invalid")
    expect(problems(page)).to_contain_text("2 problems; fix each one below")
    expect(problems(page)).to_contain_text("2 problems shown beside their fields")
    expect(score.get_by_label("Name", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(save).to_be_disabled()
    page.get_by_label("Name", exact=True).last.press("Enter")  # not a way round the disabled button
    assert sideways(page) == 0
    page.evaluate("window.scrollTo(0, 0)")  # the preview keeps its place as the page scrolls
    site.shot_at_width(page, "template-editor-problem")
    assert own_templates(site, user) == []
    bad.get_by_role("button", name="Remove Bad Name").click()
    score.get_by_label("Maximum").fill("20")
    expect(problems(page)).to_contain_text("The definition is valid: 2 fields")
    expect(score.locator(".row-problems")).to_be_empty()
    expect(save).to_be_enabled()


def test_a_template_written_in_yaml_reopens_as_yaml_and_an_edit_makes_a_new_version(site: Site, sized: Any) -> None:
    page = sized
    user = site.user("yaml")
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template-new")
    page.get_by_label("YAML or JSON text").check()
    text = page.get_by_label("Definition (YAML or JSON)")
    text.fill("# my reading log\nname: Reading log\nfields:\n  - name: book\n    required: true\n")
    expect(problems(page)).to_contain_text("The definition is valid: 1 field")
    page.get_by_role("button", name="Create template").click()
    expect(page.get_by_role("heading", name="Reading log", level=1)).to_be_visible()
    page.get_by_role("link", name="Edit").click()
    expect(page.get_by_label("YAML", exact=True)).to_be_checked()
    expect(text).to_have_value(re.compile("^name: Reading log\nversion: '1.0'\nfields:\n- name: book\n"))
    page.get_by_label("Form", exact=True).check()
    pages = add_field(page, "pages", "integer")
    pages.get_by_label("Minimum").fill("1")
    page.get_by_label("YAML or JSON text").check()
    expect(text).to_have_value(re.compile("- name: pages\n  type: integer\n  validation:\n    min: 1\n"))
    save = page.get_by_role("button", name="Save a new version")
    expect(save).to_be_enabled()
    save.click()
    expect(page.locator("main .ok")).to_contain_text("Saved version 1.1: added pages")
    [made] = own_templates(site, user)
    assert made.definition.version == "1.1"
    assert [f.name for f in made.definition.fields] == ["book", "pages"]
    # JSON stays JSON.
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("JSON", exact=True).check()
    expect(text).to_have_value(re.compile('^\\{\n  "name": "Reading log"'))
    save.click()
    expect(page.locator("main .ok")).to_contain_text("Saved version 1.2")
    page.get_by_role("link", name="Edit").click()
    expect(page.get_by_label("JSON", exact=True)).to_be_checked()
    expect(text).to_have_value(re.compile('^\\{\n  "name": "Reading log"'))
    assert sideways(page) == 0


def test_what_the_form_does_not_edit_is_kept_and_unreadable_text_stays_in_the_text_view(site: Site, page: Any) -> None:
    user = site.user("keep")
    original = {
        "name": "Trip", "description": "Journeys", "examples": ["Back from Oslo"], "trigger_keywords": ["trip"],
        "weight": 0.7, "identity": ["place"],
        "fields": [
            {"name": "place", "type": "string", "required": True, "kind": "destination"},
            {"name": "stops", "type": "array", "item_type": "object", "fields": [
                {"name": "town", "type": "string"}, {"name": "nights", "type": "integer"}]},
            {"name": "cost", "type": "number", "default_value": 0,
             "validation": {"min": 0, "error_message": "No refunds"}},
        ],
    }  # fmt: skip
    made = site.services.templates.create(Caller(user), original)
    site.log_in(page, user)
    page.goto(f"{site.url}/#/template-edit/{made.id}")
    expect(row(page, 2)).to_contain_text("2 nested fields: edit them in the text view.")
    expect(row(page, 3).get_by_label("Default")).to_have_value("0")
    expect(attributes(page).get_by_label("place")).to_be_checked()
    attributes(page).get_by_label("Description").fill("Journeys, long and short")
    save = page.get_by_role("button", name="Save a new version")
    expect(save).to_be_enabled()
    save.click()
    expect(page.locator("main .ok")).to_contain_text("Saved version 1.1: changed description")
    kept = site.services.templates.get(Caller(user), made.id).definition
    before = made.definition.as_dict()
    assert {**kept.as_dict(), "version": "", "description": ""} == {**before, "version": "", "description": ""}
    # Text that cannot be read is not taken into the form: the view stays, with the reason.
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("YAML or JSON text").check()
    page.get_by_label("Definition (YAML or JSON)").fill("name: [Trip")
    page.get_by_label("Form", exact=True).check()
    expect(problems(page)).to_contain_text("The definition is not valid YAML or JSON")
    expect(page.get_by_label("YAML or JSON text")).to_be_checked()
    expect(page.get_by_label("Definition (YAML or JSON)")).to_have_value("name: [Trip")
