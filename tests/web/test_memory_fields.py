"""Names, not ids, and fields in their template's order, at 1280 and 390 px: the memories list names a
memory's template, a memory's page shows its template fields in the template's order under their labels,
lists as chips (never JSON), and the edit form edits a list as chips."""

from __future__ import annotations

import re
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


def test_when_where_and_references_are_edited(site: Site, sized: Any) -> None:
    user = site.user("context")
    me = Caller(user)
    memory_id = site.services.memories.create(
        me, {"content": "Dinner with Ana at the harbour", "title": "Dinner", "context": {"source": "diary"}}
    ).id
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/memory/{memory_id}")
    happened = sized.get_by_label("Happened (a date, or date and time: 2026-02-10T18:30)")
    happened.fill("the day before")
    sized.get_by_label("Latitude").fill("95")
    sized.get_by_role("button", name="Save changes").click()
    expect(sized.locator(".control", has=happened).locator(".field-error")).not_to_be_empty()
    expect(sized.locator(".control", has=sized.get_by_label("Latitude")).locator(".field-error")).to_contain_text(
        "lat must be a number from -90 to 90"
    )
    assert site.services.memories.get(me, memory_id, record_access=False).version == 1  # nothing stored
    happened.fill("2026-02-10T18:30:00+00:00")
    sized.get_by_label("Latitude").fill("38.7")
    sized.get_by_label("Longitude").fill("-9.1")
    sized.get_by_label("Place (address)").fill("Cais do Sodré, Lisbon")
    participants = sized.get_by_label("Participants", exact=True)
    participants.fill("Ana")
    participants.press("Enter")
    references = sized.get_by_label("References (links, ids, citations)")
    references.fill("https://example.org/menu")
    sized.get_by_role("button", name="Save changes").click()
    fields = sized.get_by_role("region", name="Fields", exact=True)
    expect(fields.get_by_role("row", name=re.compile("^References"))).to_contain_text("https://example.org/menu")
    after = site.services.memories.get(me, memory_id, record_access=False)
    assert after.context is not None and after.context["source"] == "diary"
    assert after.context["participants"] == ["Ana"] and after.occurred_at.isoformat().startswith("2026-02-10T18:30")
    assert after.location == {"address": "Cais do Sodré, Lisbon", "lat": 38.7, "lon": -9.1}
    assert after.references == ("https://example.org/menu",)
    assert sideways(sized) == 0
