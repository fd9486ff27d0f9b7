"""Every page at 1280 and 390 px: nothing scrolls sideways, the console stays clean (the icon is found),
axe-core finds no serious problem, in light and dark; on a phone the navigation folds behind a Menu
button and tables become lists; `/` goes to the search."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from remember.caller import Caller
from remember.service.relationships import RelationshipDraft
from web_support import Site, axe_problems_at, sideways

BOOK = "builtin:book_review"
PAGES = [
    "home", "memories", "memory/{memory}", "memory-new", "trash", "templates", "template/{template}", "template-new",
    "template-edit/{template}", "analytics", "analytics/{template}", "graph", "settings/preferences", "settings/tokens",
    "settings/import", "settings/export",
]  # fmt: skip


def furnished(site: Site) -> tuple[str, dict[str, str]]:
    """A user with something on every page: books, a relationship, the trash, a template of their own."""
    user = site.user("layout")
    me = Caller(user)
    fields: dict[str, Any] = {
        "title": "The Left Hand of Darkness, a very long title indeed", "author": "Ursula K. Le Guin", "rating": 5,
        "favorite_quotes": ["Light is the left hand of darkness"], "genre": "science fiction",
    }  # fmt: skip
    book = site.services.memories.create(me, {"template_id": BOOK, "structured_content": fields, "tags": ["sf"]})
    other = site.services.memories.create(me, {"content": "Ursula K. Le Guin wrote it", "title": "Le Guin"})
    site.services.relationships.create(me, RelationshipDraft([book.id, other.id], "written_by"))
    gone = site.services.memories.create(me, {"content": "An old note", "title": "Old"})
    site.services.memories.delete(me, gone.id)
    template = site.services.templates.create(
        me, {"name": "Wine tasting", "fields": [{"name": "wine", "type": "string", "required": True}]}
    )
    return user, {"memory": book.id, "template": template.id}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_scrolls_sideways_and_each_is_accessible(site: Site, sized: Any, browser: Any, scheme: str) -> None:
    user, ids = furnished(site)
    sized.emulate_media(color_scheme=scheme)
    site.log_in(sized, user)
    wide: dict[str, int] = {}
    problems: dict[str, list[str]] = {}
    for name in PAGES:
        address = name.format(**ids)
        sized.goto(f"{site.url}/#/{address}")
        expect(sized.locator("main h1")).to_be_visible()
        sized.wait_for_load_state("networkidle")
        wide[name] = sideways(sized)

        def ready(checked: Any) -> None:
            checked.emulate_media(color_scheme=scheme)
            expect(checked.locator("main h1")).to_be_visible()
            checked.wait_for_load_state("networkidle")

        problems[name] = axe_problems_at(browser, sized, ready)
    assert wide == dict.fromkeys(PAGES, 0)
    assert problems == {name: [] for name in PAGES}


def test_on_a_phone_the_navigation_folds_and_tables_become_lists(site: Site, browser: Any) -> None:
    user, _ = furnished(site)
    context = browser.new_context(viewport={"width": 390, "height": 860}, is_mobile=True)
    try:
        phone = context.new_page()
        site.log_in(phone, user)
        templates = phone.get_by_role("link", name="Templates")
        menu = phone.get_by_role("button", name="Menu")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(templates).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
        templates.click()
        expect(phone.get_by_role("heading", name="Templates", level=1)).to_be_visible()
        expect(templates).to_be_hidden()  # folded again once a page is chosen
        row = phone.locator("table.templates tbody tr").first
        expect(row).to_have_css("display", "block")
        expect(row.locator("td").nth(1)).to_have_attribute("data-label", "Origin")
        assert row.bounding_box()["width"] <= 390
    finally:
        context.close()


def test_on_a_desktop_the_navigation_is_always_shown(site: Site, page: Any) -> None:
    site.log_in(page, site.user("desk"))
    expect(page.get_by_role("link", name="Templates")).to_be_visible()
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    expect(page.locator("table.memories tbody tr, main p.muted").first).to_be_visible()


def test_the_icon_is_served(site: Site) -> None:
    for path in ("/static/favicon.svg", "/favicon.ico"):
        answer = httpx2.get(f"{site.url}{path}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml"), path
        assert "<svg" in answer.text


def test_slash_goes_to_the_search_from_any_page(site: Site, page: Any) -> None:
    site.log_in(page, site.user("keys"))
    page.goto(f"{site.url}/#/settings/tokens")
    expect(page.get_by_role("heading", name="Settings", level=1)).to_be_visible()
    page.wait_for_load_state("networkidle")  # the page has finished loading: its own focus is set
    page.keyboard.press("/")
    expect(page.get_by_label("Search", exact=True)).to_be_focused()
    page.keyboard.type("dune")
    expect(page.get_by_label("Search", exact=True)).to_have_value("dune")  # typed into the box, not a shortcut
    page.goto(f"{site.url}/#/templates")
    expect(page.get_by_role("heading", name="Templates", level=1)).to_be_visible()
    page.keyboard.press("/")
    expect(page.get_by_label("Search by name")).to_be_focused()
