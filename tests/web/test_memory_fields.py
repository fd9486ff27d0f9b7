"""Names, not ids, and fields in their template's order, at 1280 and 390 px: the memories list names a
memory's template, a memory's page shows its template fields in the template's order under their labels,
lists as chips (never JSON), and the edit form edits a list as chips."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site, axe_problems_at, sideways

BOOK = "builtin:book_review"
QUOTES = ["Fear is the mind-killer.", "The spice must flow."]


def dune(site: Site, user: str) -> str:
    fields: dict[str, Any] = {  # given out of the template's order
        "would_recommend": True, "favorite_quotes": QUOTES, "rating": 5, "genre": "science fiction",
        "author": "Frank Herbert", "title": "Dune", "recommend_to": "anyone patient",
    }  # fmt: skip
    return site.services.memories.create(Caller(user), {"template_id": BOOK, "structured_content": fields}).id


def test_the_list_names_the_template(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("names")
    dune(site, user)
    site.services.memories.create(Caller(user), {"content": "A note without a template", "title": "Plain"})
    site.log_in(sized, user)
    dune_row = sized.locator("tbody tr", has=sized.get_by_role("link", name="Dune"))
    expect(dune_row).to_contain_text("Book Review")
    expect(sized.locator("main")).not_to_contain_text("builtin:book_review")
    assert sideways(sized) == 0
    assert axe_problems_at(browser, sized, lambda p: expect(p.get_by_role("link", name="Dune")).to_be_visible()) == []


def test_a_memory_shows_its_fields_in_the_templates_order_with_lists_as_chips(
    site: Site, sized: Any, browser: Any
) -> None:
    user = site.user("order")
    memory_id = dune(site, user)
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/memory/{memory_id}")
    section = sized.get_by_role("region", name="Book Review fields")
    labels = ["Title", "Author", "Rating", "Genre", "Favorite quotes", "Would recommend", "Recommend to"]
    expect(section.locator("th")).to_have_text(labels)
    quotes = section.get_by_role("row", name="Favorite quotes").get_by_role("listitem")
    expect(quotes).to_have_text(QUOTES)
    expect(section).not_to_contain_text('["')
    expect(section.get_by_role("row", name="Would recommend")).to_contain_text("yes")
    expect(sized.get_by_role("row", name="Template Book Review")).to_be_visible()
    expect(sized.get_by_role("group", name="Book Review fields")).to_be_visible()
    site.shot_at_width(sized, "memory", phone_only=True)
    assert sideways(sized) == 0
    ready = lambda p: expect(p.get_by_role("button", name="Save changes")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []


def test_the_edit_form_edits_a_list_as_chips(site: Site, sized: Any) -> None:
    user = site.user("chips")
    memory_id = dune(site, user)
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/memory/{memory_id}")
    chips = sized.get_by_role("list", name="Favorite quotes: the list").get_by_role("listitem")
    expect(chips).to_have_count(2)
    sized.get_by_role("button", name=f"Remove {QUOTES[0]} from Favorite quotes").click()
    box = sized.get_by_label("Favorite quotes", exact=True)
    box.fill("He who controls the spice controls the universe.")
    box.press("Enter")
    expect(chips).to_have_count(2)
    box.fill("Walk without rhythm")  # still in the box when saved: kept too
    sized.get_by_role("button", name="Save changes").click()
    expect(sized.get_by_role("region", name="Book Review fields").get_by_role("listitem")).to_have_count(3)
    stored = site.services.memories.get(Caller(user), memory_id, record_access=False).structured_content
    assert stored is not None
    assert stored["favorite_quotes"] == [
        QUOTES[1],
        "He who controls the spice controls the universe.",
        "Walk without rhythm",
    ]
    assert sideways(sized) == 0
