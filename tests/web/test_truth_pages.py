"""Truth over time in the dashboard, in a real browser: what has ended is left out until asked for, then
greyed with a link to what replaced it; a memory's page says when it is true and shows its values over time."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from web_support import Site

PERSON = {"template_id": "builtin:person"}


def test_ended_memories_are_greyed_and_link_to_their_successor(site: Site, page: Any) -> None:
    user = site.user("mover")
    memories = site.services.memories
    paris = memories.create(Caller(user), {"content": "I live in Paris", "context": {"timestamp": "2019-01-01"}})
    draft = {"content": "I moved to Berlin", "context": {"timestamp": "2024-03-01"}, "supersedes": [paris.id]}
    berlin = memories.store_new(Caller(user), draft).memory
    site.log_in(page, user)
    rows = page.get_by_role("table").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("I moved to Berlin")
    page.get_by_label("Also what has ended").check()
    page.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(2)
    ended = rows.filter(has_text="I live in Paris")
    expect(ended).to_have_class("superseded")
    site.shot(page, "memories-ended")
    ended.get_by_role("link", name="replaced →").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("I moved to Berlin")
    page.goto(page.url.replace(berlin.id, paris.id))
    expect(page.get_by_role("note")).to_contain_text("No longer true since")
    page.get_by_role("link", name="the memory that superseded it").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("I moved to Berlin")


def test_a_memorys_page_shows_its_values_over_time(site: Site, page: Any) -> None:
    user = site.user("timeline")
    fields = {"name": "Ana", "relationship": "colleague", "company": "Google"}
    memories = site.services.memories
    ana = memories.create(
        Caller(user), {**PERSON, "structured_content": fields, "context": {"timestamp": "2024-01-10"}}
    )
    moved = {**fields, "company": "Meta"}
    memories.create(Caller(user), {**PERSON, "structured_content": moved, "context": {"timestamp": "2025-06-01"}})
    site.log_in(page, user)
    page.get_by_role("link", name="Ana", exact=True).click()
    over_time = page.get_by_role("table", name="Values over time")
    expect(over_time).to_contain_text("Google")
    expect(over_time).to_contain_text("Meta")
    expect(over_time.locator("tbody tr").first).to_have_class("superseded")
    site.shot(page, "memory-over-time")
    assert ana.id in page.url
