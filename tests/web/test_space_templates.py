"""Templates in shared spaces in Chromium at 1280 and 390 px: the templates page lists the space chosen in the
header (all of one's spaces, each naming its space, when none is), a new template is created in the chosen space
and its page keeps the space in the address, the home page's templates in use count that space's memories, and
a writer sees a space's template read-only with the reason. No console error, no sideways scroll, axe without
serious problems."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site, axe_problems_at, sideways


def team(site: Site, admin: str, writer: str) -> tuple[str, str]:
    """Space Team (``admin``, and ``writer`` a writer) with a template Recipe and two memories made with it;
    the space's key and the template's id."""
    spaces = site.services.spaces
    key = spaces.create(Caller(admin), "Team").space.key
    spaces.add_member(Caller(admin), key, writer, "writer")
    spaces.accept(Caller(writer), key)
    recipe = {"name": "Recipe", "fields": [{"name": "dish", "type": "string", "required": True}]}
    template_id = site.services.templates.create(spaces.administering(Caller(admin), key), recipe).id
    acting = spaces.writing(Caller(writer), key)
    for dish in ("Soup", "Stew"):
        site.services.memories.create(acting, {"template_id": template_id, "structured_content": {"dish": dish}})
    return key, template_id


def own_rows(page: Any) -> Any:
    return page.locator("table.templates tbody tr")


def test_the_templates_page_follows_the_space_chosen_and_creates_there(site: Site, sized: Any, browser: Any) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key, _ = team(site, ann, bob)
    diary = {"name": "Diary", "fields": [{"name": "mood", "type": "string"}]}
    site.services.templates.create(Caller(ann), diary)
    site.open_as(page, site.session(ann), "#/templates?origin=mine")
    expect(own_rows(page)).to_have_count(2)
    expect(own_rows(page).filter(has_text="Recipe")).to_contain_text("Space Team")
    expect(own_rows(page).filter(has_text="Diary")).to_contain_text("Yours")
    assert sideways(page) == 0
    assert axe_problems_at(browser, page, lambda p: expect(own_rows(p)).to_have_count(2)) == []

    page.get_by_label("Space", exact=True).select_option(label="Team (admin)")
    expect(page).to_have_url(re.compile(f"origin=mine.*space={re.escape(key)}|space={re.escape(key)}.*origin=mine"))
    expect(own_rows(page)).to_have_count(1)
    expect(own_rows(page)).to_contain_text("Recipe")
    site.shot_at_width(page, "space-templates")

    page.get_by_role("link", name="New template").click()
    expect(page.get_by_text("It goes to space Team, for its members to use.")).to_be_visible()
    page.get_by_role("group", name="Template", exact=True).get_by_label("Name", exact=True).fill("Menu")
    page.get_by_role("button", name="Create template").click()
    expect(page.get_by_role("heading", name="Menu", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(f"#/template/[^?]+\\?space={re.escape(key)}$"))
    expect(page.locator("dl.facts")).to_contain_text("Space Team")
    expect(page.get_by_role("link", name="Edit")).to_be_visible()
    page.get_by_role("link", name="Edit", exact=True).click()  # its admin edits it in its space
    expect(page.get_by_text("It belongs to space Team, for its members to use.")).to_be_visible()
    page.get_by_role("group", name="Template", exact=True).get_by_label("Description").fill("What we serve")
    save = page.get_by_role("button", name="Save a new version")
    expect(save).to_be_enabled()
    save.click()
    expect(page.locator("main .ok")).to_contain_text("Saved version 1.1: changed description")
    expect(page).to_have_url(re.compile(f"#/template/[^?]+\\?space={re.escape(key)}$"))
    in_team = site.services.spaces.reading(Caller(ann), [key])
    views, _ = site.services.templates.list_templates(Caller(ann), include_default=False, readers=in_team)
    assert sorted(v.definition.name for v in views) == ["Menu", "Recipe"]
    assert {v.space for v in views} == {key}
    assert {v.definition.name: v.definition.description for v in views}["Menu"] == "What we serve"

    page.goto(f"{site.url}/#/home?space={key}")
    used = page.get_by_role("region", name="Templates in use")
    expect(used.get_by_role("listitem")).to_have_count(1)
    expect(used).to_contain_text("Recipe 2 memories")
    page.goto(f"{site.url}/#/home")
    expect(used.get_by_role("listitem").filter(has_text="Recipe")).to_contain_text("Recipe Team 2 memories")
    page.goto(f"{site.url}/#/home?space=personal")
    expect(used).to_contain_text("No memory made with a template yet.")


def test_a_writer_sees_a_space_template_read_only_with_the_reason(site: Site, sized: Any, browser: Any) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key, template_id = team(site, ann, bob)
    site.open_as(page, site.session(bob), f"#/template/{template_id}?space={key}")
    expect(page.get_by_role("heading", name="Recipe", exact=True)).to_be_visible()
    note = page.get_by_role("note").filter(has_text="Read-only")
    expect(note).to_contain_text("You are a writer in space Team: only its admins create, change or delete")
    expect(page.get_by_role("link", name="Edit", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Delete")).to_have_count(0)
    expect(page.get_by_text("2 compliant, 0 not compliant")).to_be_visible()
    assert sideways(page) == 0
    assert axe_problems_at(browser, page, lambda p: expect(p.get_by_role("note").first).to_be_visible()) == []
    site.shot_at_width(page, "space-template-read-only")

    page.goto(f"{site.url}/#/template-edit/{template_id}?space={key}")
    expect(page.get_by_role("note")).to_contain_text("You are a writer in space Team")
    expect(page.get_by_role("button", name="Save a new version")).to_have_count(0)
    page.goto(f"{site.url}/#/template-new?space={key}")
    expect(page.get_by_role("note")).to_contain_text("only its admins create its templates")
    expect(page.get_by_role("button", name="Create template")).to_have_count(0)
    before = site.services.templates.get(site.services.spaces.on_template(Caller(ann), template_id), template_id)
    assert before.definition.version == "1.0"


def test_the_analytics_pick_the_chosen_spaces_templates_and_keep_the_space(
    site: Site, sized: Any, browser: Any
) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key, template_id = team(site, ann, bob)
    site.open_as(page, site.session(bob), f"#/analytics?space={key}")
    expect(page.get_by_role("heading", name="Analytics", exact=True)).to_be_visible()
    expect(page.get_by_label("Totals")).to_contain_text("Made with a template2")
    picker = page.get_by_label("Template", exact=True)
    expect(picker.locator("option", has_text="Recipe")).to_have_text("Recipe — Team (2)")
    picker.select_option(template_id)
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(f"#/analytics/[^?]+\\?space={re.escape(key)}$"))
    expect(page.locator("h2.template-name")).to_contain_text("Recipe")
    assert sideways(page) == 0
    assert axe_problems_at(browser, page, lambda p: expect(p.locator("h2.template-name")).to_be_visible()) == []
    page.goto(f"{site.url}/#/analytics?space=personal")
    expect(picker.locator("option", has_text="Recipe")).to_have_count(0)
