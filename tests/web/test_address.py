"""A search, its filters and its page live in the address, at 1280 and 390 px: reload, Back and a link
opened in another browser show the same results, with the form filled in as it was."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site, sideways

BOOK = "builtin:book_review"


def books(site: Site, user: str) -> None:
    for title, rating in (("Dune", 5), ("Emma", 4), ("Ulysses", 2), ("Walden", 3)):
        fields = {"title": title, "author": "Someone", "rating": rating, "genre": "classic"}
        site.services.memories.create(Caller(user), {"template_id": BOOK, "structured_content": fields})


def query_of(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).fragment.partition("?")[2])


def test_a_filtered_search_survives_reload_back_and_a_shared_link(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("address")
    books(site, user)
    site.log_in(sized, user)
    rows = sized.locator("table.memories tbody tr")
    expect(rows).to_have_count(4)
    sized.get_by_label("Search", exact=True).fill("classic")
    filters = sized.locator("details.filter-builder")
    if sized.viewport_size["width"] < 800:  # folded on a phone until opened
        expect(filters).not_to_have_attribute("open", "")
        filters.get_by_text("Filters", exact=True).click()
    sized.get_by_label("Template", exact=True).select_option(BOOK)
    sized.get_by_label("Rating: condition").select_option("gte")
    sized.get_by_label("Rating: value").fill("4")
    sized.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(2)
    query = query_of(sized)
    assert query["q"] == ["classic"]
    assert json.loads(query["filters"][0]) == {"template_id": BOOK, "structured_content.rating": {"gte": 4}}
    address = sized.url

    sized.reload()
    expect(rows).to_have_count(2)
    expect(sized.get_by_label("Search", exact=True)).to_have_value("classic")
    expect(sized.get_by_label("Template", exact=True)).to_have_value(BOOK)
    expect(sized.get_by_label("Rating: value")).to_have_value("4")

    site.shot_at_width(sized, "memories", phone_only=True)
    sized.go_back()  # to the list before the search
    expect(rows).to_have_count(4)
    expect(filters).to_have_attribute("open", "")  # as the person left it
    expect(sized.get_by_label("Search", exact=True)).to_have_value("")
    expect(sized.get_by_label("Template", exact=True)).to_have_value("")
    sized.go_forward()
    expect(rows).to_have_count(2)
    assert sideways(sized) == 0

    other = browser.new_context(viewport=sized.viewport_size)  # the link, shared with another browser
    try:
        shared = other.new_page()
        site.open_as(shared, site.session(user), address.split("/", 3)[3])
        expect(shared.locator("table.memories tbody tr")).to_have_count(2)
        expect(shared.get_by_role("link", name="Dune")).to_be_visible()
        expect(shared.get_by_label("Rating: value")).to_have_value("4")
    finally:
        other.close()


def test_the_page_of_the_list_is_in_the_address(site: Site, sized: Any) -> None:
    user = site.user("pages")
    for n in range(45):
        site.services.memories.create(Caller(user), {"content": f"numbered note {n:02d}", "title": f"Note {n:02d}"})
    site.log_in(sized, user)
    rows = sized.locator("table.memories tbody tr")
    expect(rows.first).to_contain_text("Note 44")
    sized.get_by_role("button", name="Next page").click()
    expect(rows.first).to_contain_text("Note 24")
    sized.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(5)
    sized.reload()
    expect(rows).to_have_count(5)
    expect(sized.get_by_text("Page 3", exact=True)).to_be_visible()
    sized.go_back()
    expect(rows.first).to_contain_text("Note 24")
    sized.get_by_role("button", name="Previous page").click()
    expect(rows.first).to_contain_text("Note 44")
    expect(sized.get_by_role("button", name="Previous page")).to_be_disabled()
    assert "after" not in query_of(sized)


def test_a_search_pages_by_offset_in_the_address(site: Site, sized: Any) -> None:
    user = site.user("offsets")
    for n in range(25):
        site.services.memories.create(Caller(user), {"content": f"a walnut note {n:02d}", "title": f"Walnut {n:02d}"})
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/memories?q=walnut&alpha=0")
    expect(sized.locator("table.memories th", has_text="Score")).to_have_count(1)  # the search answered
    rows = sized.locator("table.memories tbody tr")
    expect(rows).to_have_count(20)
    expect(sized.get_by_label("Auto alpha")).not_to_be_checked()
    sized.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(5)
    assert query_of(sized)["offset"] == ["20"]
    sized.reload()
    expect(rows).to_have_count(5)


def test_the_templates_search_and_its_page_are_in_the_address(site: Site, sized: Any) -> None:
    user = site.user("tpl-address")
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/templates")
    sized.get_by_label("Search by name").fill("review")
    rows = sized.locator("table.templates tbody tr")
    expect(rows).to_have_count(3)  # Book, Movie or Show, Restaurant
    expect(sized).to_have_url(f"{site.url}/#/templates?search=review")
    sized.get_by_label("Show").select_option("builtin")
    expect(sized).to_have_url(f"{site.url}/#/templates?search=review&origin=builtin")
    sized.reload()
    expect(rows).to_have_count(3)
    expect(sized.get_by_label("Search by name")).to_have_value("review")
    expect(sized.get_by_label("Show")).to_have_value("builtin")
    sized.go_back()  # before the origin was chosen; the typing made no entries of its own
    expect(sized.get_by_label("Show")).to_have_value("all")
    expect(sized.get_by_label("Search by name")).to_have_value("review")
    sized.goto(f"{site.url}/#/templates?offset=5")
    expect(sized.get_by_text(re.compile(r"^6\D+\d+ of \d+$"))).to_be_visible()


def test_the_page_of_the_trash_is_in_the_address(site: Site, sized: Any) -> None:
    user = site.user("trash-pages")
    me = Caller(user)
    for n in range(25):
        made = site.services.memories.create(me, {"content": f"old note {n:02d}", "title": f"Old {n:02d}"})
        site.services.memories.delete(me, made.id)
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/trash")
    rows = sized.locator("main tbody tr")
    expect(rows).to_have_count(20)
    sized.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(5)
    assert "after" in query_of(sized)
    sized.reload()
    expect(rows).to_have_count(5)
    sized.go_back()
    expect(rows).to_have_count(20)
    expect(sized.get_by_role("button", name="Previous page")).to_be_disabled()


def test_words_or_meaning_is_a_plain_choice_kept_with_the_number(site: Site, sized: Any) -> None:
    site.log_in(sized, site.user("match-by"))
    expect(sized.get_by_label("Both (a blend chosen each time)")).to_be_checked()
    sized.get_by_label("Search", exact=True).fill("walnut")
    sized.get_by_label("Words", exact=True).check()
    sized.get_by_role("button", name="Search").click()
    expect(sized).to_have_url(re.compile(r"alpha=0(&|$)"))
    sized.reload()
    expect(sized.get_by_label("Words", exact=True)).to_be_checked()
    expect(sized.get_by_label("Auto alpha")).not_to_be_checked()  # the number, under the filters, says the same
    sized.get_by_label("Meaning", exact=True).check()
    expect(sized.get_by_label("Alpha: 0 = by keywords, 1 = by meaning")).to_have_value("1")
    sized.goto(f"{site.url}/#/memories?q=walnut&alpha=0.4")  # a blend: no plain word for it
    expect(sized.get_by_label("Auto alpha")).not_to_be_checked()
    for plain in ("Both (a blend chosen each time)", "Words", "Meaning"):
        expect(sized.get_by_label(plain, exact=True)).not_to_be_checked()
