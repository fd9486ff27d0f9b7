"""The home page at 1280 and 390 px: the memories stored last, the templates in use with their counts (each
opening its memories), and one search box that searches as you type, by words, by meaning or both."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site, axe_problems_at, sideways

BOOK = "builtin:book_review"


def test_home_shows_recent_memories_templates_in_use_and_searches_as_you_type(
    site: Site, sized: Any, browser: Any
) -> None:
    user = site.user("home")
    me = Caller(user)
    for title, author in (("Dune", "Frank Herbert"), ("Emma", "Jane Austen"), ("Walden", "Henry Thoreau")):
        fields = {"title": title, "author": author, "rating": 4}
        site.services.memories.create(me, {"template_id": BOOK, "structured_content": fields})
    site.services.memories.create(me, {"content": "Herbert's desert planet and its sandworms", "title": "Arrakis"})
    site.services.memories.create(me, {"content": "Renew the passport before June", "title": "Passport"})
    site.open_as(sized, site.session(user), "#/home")
    recent = sized.get_by_role("region", name="Stored last").get_by_role("listitem")
    expect(recent).to_have_count(5)
    expect(recent.first).to_contain_text("Passport")
    expect(recent.nth(2)).to_contain_text("Book Review")
    used = sized.get_by_role("region", name="Templates in use")
    expect(used.get_by_role("listitem")).to_have_text(["Book Review 3 memories"])
    assert sideways(sized) == 0
    site.shot_at_width(sized, "home")
    ready = lambda p: expect(p.get_by_role("link", name="Book Review")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []

    sized.get_by_label("By words").check()
    sized.get_by_label("Search your memories").press_sequentially("herbert", delay=30)  # no Enter: as you type
    found = sized.get_by_role("region", name="Search").get_by_role("listitem")
    expect(found.filter(has_text="Arrakis")).to_have_count(1)
    expect(found.filter(has_text="Dune")).to_have_count(1)
    shown = found.count()
    sized.get_by_role("link", name="All results, with filters").click()
    expect(sized.get_by_role("heading", name="Memories", level=1)).to_be_visible()
    query = parse_qs(urlsplit(sized.url).fragment.partition("?")[2])
    assert query == {"q": ["herbert"], "alpha": ["0"]}
    expect(sized.locator("table.memories tbody tr")).to_have_count(shown)  # the same search

    sized.go_back()
    sized.get_by_role("link", name="Book Review").click()
    expect(sized.locator("table.memories tbody tr")).to_have_count(3)
    filters = parse_qs(urlsplit(sized.url).fragment.partition("?")[2])["filters"]
    assert json.loads(filters[0]) == {"template_id": BOOK}


def test_a_new_user_is_shown_where_to_start(site: Site, sized: Any) -> None:
    site.open_as(sized, site.session(site.user("newcomer")), "")
    expect(sized.get_by_role("heading", name="Home", level=1)).to_be_visible()
    sized.get_by_role("link", name="Store a first memory.").click()
    expect(sized.get_by_role("heading", name="New memory", level=1)).to_be_visible()
    expect(sized.get_by_text("No memory made with a template yet.")).to_have_count(0)  # left the home page


def test_the_timeline_shows_what_happened_when_by_day(site: Site, sized: Any) -> None:
    user = site.user("timeline")
    me = Caller(user)
    happened = {
        "Moved to Lisbon": "2025-03-01T10:00:00+00:00",
        "Started a new job": "2025-06-02T09:00:00+00:00",
        "First day at the job": "2025-06-02T17:00:00+00:00",
    }
    for title, at in happened.items():
        site.services.memories.create(me, {"content": title, "title": title, "context": {"timestamp": at}})
    site.open_as(sized, site.session(user), "#/home")
    timeline = sized.get_by_role("region", name="What happened when")
    days = timeline.get_by_role("heading", level=3)
    expect(days).to_have_count(2)
    expect(days.first).to_contain_text("2025")
    expect(timeline.get_by_role("link")).to_have_text(["First day at the job", "Started a new job", "Moved to Lisbon"])
    assert sideways(sized) == 0
