"""A new memory from the browser, at 1280 and 390 px: free text with tags, or a template suggested from the
text as it is typed, its form filled from the text, required fields marked, show_if applied live, the
engine's messages beside each field; nothing stored until it is valid; `n` opens the form from any page."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site, axe_problems_at, sideways

BOOK = "builtin:book_review"
TEXT = "Finished reading Dune by Frank Herbert, rated it 5 stars, a great science fiction novel"


def stored(site: Site, user: str) -> list[Any]:
    return list(site.services.memories.list(Caller(user), limit=50).items)


def test_n_opens_a_new_free_text_memory_with_tags(site: Site, sized: Any) -> None:
    user = site.user("free")
    site.log_in(sized, user)
    expect(sized.get_by_role("heading", name="Memories", level=1)).to_be_visible()
    sized.keyboard.press("n")
    expect(sized.get_by_role("heading", name="New memory", level=1)).to_be_visible()
    sized.get_by_role("button", name="Store the memory").click()
    expect(sized.get_by_role("alert")).to_contain_text("content")
    assert stored(site, user) == []
    sized.get_by_label("Text", exact=True).fill("Call the plumber about the kitchen tap")
    sized.get_by_label("Title", exact=True).fill("Plumber")
    tags = sized.get_by_label("Tags", exact=True)
    tags.fill("home, errands")
    tags.press("Enter")
    expect(sized.get_by_role("list", name="Tags: the list").get_by_role("listitem")).to_have_count(2)
    assert sideways(sized) == 0
    sized.get_by_role("button", name="Store the memory").click()
    expect(sized.get_by_role("heading", name="Plumber", level=1)).to_be_visible()
    [memory] = stored(site, user)
    assert (memory.content, memory.tags) == ("Call the plumber about the kitchen tap", ("home", "errands"))


def test_a_suggested_template_is_filled_checked_live_and_stored(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("book")
    site.log_in(sized, user)
    sized.get_by_role("link", name="New memory").click()
    sized.get_by_label("Text", exact=True).fill(TEXT)
    sized.get_by_role("button", name=re.compile(r"^Use Book Review")).click()
    fields = sized.get_by_role("group", name="Book Review fields")
    expect(fields).to_be_visible()
    expect(sized.get_by_label("Template", exact=True)).to_have_value(BOOK)
    expect(sized.get_by_label("Author (required)")).to_have_value("Frank Herbert")  # read from the text
    expect(sized.get_by_label("Title (required)")).to_have_attribute("aria-required", "true")
    recommend_to = sized.get_by_label("Recommend to", exact=True)
    expect(recommend_to).to_be_hidden()  # show_if: would_recommend == true
    sized.get_by_label("Would recommend", exact=True).select_option("true")
    expect(recommend_to).to_be_visible()
    rating = sized.get_by_label("Rating (required)")
    rating.fill("9")
    rating_box = sized.locator(".control", has=rating)
    expect(rating_box.locator(".field-error")).to_have_text("Rate from 1 to 5")
    expect(rating).to_have_attribute("aria-invalid", "true")
    sized.get_by_label("Title (required)").fill("Dune")
    sized.get_by_role("button", name="Store the memory").click()
    expect(sized.get_by_role("alert")).to_contain_text("Rate from 1 to 5")
    site.shot_at_width(sized, "memory-new")
    assert stored(site, user) == []
    assert sideways(sized) == 0
    ready = lambda p: expect(p.get_by_role("heading", name="New memory")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []
    rating.fill("5")
    expect(rating_box.locator(".field-error")).to_have_text("")
    recommend_to.fill("anyone patient")
    quotes = sized.get_by_label("Favorite quotes", exact=True)
    quotes.fill("Fear is the mind-killer.")
    quotes.press("Enter")
    sized.get_by_role("button", name="Store the memory").click()
    expect(sized.get_by_role("heading", name="Dune", level=1)).to_be_visible()
    expect(sized.get_by_role("region", name="Book Review fields")).to_contain_text("Fear is the mind-killer.")
    [memory] = stored(site, user)
    assert memory.template_id == BOOK and memory.structured_content is not None
    assert {k: memory.structured_content.get(k) for k in ("title", "author", "rating", "recommend_to")} == {
        "title": "Dune", "author": "Frank Herbert", "rating": 5, "recommend_to": "anyone patient"
    }  # fmt: skip
    assert memory.structured_content["favorite_quotes"] == ["Fear is the mind-killer."]


def test_the_new_memory_form_is_accessible(site: Site, sized: Any, browser: Any) -> None:
    site.log_in(sized, site.user("a11y-new"))
    sized.goto(f"{site.url}/#/memory-new")
    ready = lambda p: expect(p.get_by_role("button", name="Store the memory")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []


def test_a_memory_is_related_to_others_found_by_search(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("relate")
    me = Caller(user)
    dune = site.services.memories.create(me, {"content": "Dune, the novel about the desert planet", "title": "Dune"})
    herbert = site.services.memories.create(
        me, {"content": "Frank Herbert, author of the desert novel", "title": "Herbert"}
    )
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/memory/{dune.id}")
    sized.get_by_label("Find memories to link").fill("Herbert")
    sized.get_by_label("Herbert", exact=True).check()
    sized.get_by_label("How they relate (type)").fill("written_by")
    sized.get_by_label("Observation").fill("Herbert wrote it in 1965")
    sized.get_by_label("Strength (0 to 1)").fill("0.9")
    assert sideways(sized) == 0
    ready = lambda p: expect(p.get_by_role("button", name="Link them")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []
    sized.get_by_role("button", name="Link them").click()
    expect(sized.get_by_role("table", name="Related memories")).to_contain_text("written_by")
    [link] = site.services.relationships.links(me, [dune.id])[dune.id]
    assert (set(link.memory_ids), link.observation, link.strength) == (
        {dune.id, herbert.id},
        "Herbert wrote it in 1965",
        0.9,
    )
