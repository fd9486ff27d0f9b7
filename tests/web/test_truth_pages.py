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


def test_the_edit_form_ends_a_memory_and_makes_it_true_again(site: Site, page: Any) -> None:
    user = site.user("ender")
    memories = site.services.memories
    job = memories.create(Caller(user), {"content": "I work at Acme", "context": {"timestamp": "2020-01-01"}})
    site.log_in(page, user)
    page.goto(f"{site.url}/#/memory/{job.id}")
    expect(page.get_by_role("heading", level=1)).to_have_text("I work at Acme")
    until = page.get_by_label("No longer true from (a date; empty: still true)")
    expect(page.get_by_role("button", name="True again (remove its end)")).to_have_count(0)  # it has no end

    until.fill("2019-06-30")  # before it began: refused, next to the control, nothing stored
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("alert")).to_contain_text("must be after valid_from")
    box = page.locator(".control", has=until)
    expect(box.locator(".field-error")).to_contain_text("a memory ends after it begins")
    expect(until).to_have_attribute("aria-invalid", "true")
    assert memories.get(Caller(user), job.id, record_access=False) == job

    until.fill("2025-01-31")
    page.get_by_label("Reason for the change (kept in the history)").fill("left Acme")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("note")).to_contain_text("No longer true since")
    ended = memories.get(Caller(user), job.id, record_access=False)
    assert ended.valid_until is not None and ended.valid_until.date().isoformat() == "2025-01-31"
    assert ended.version == 2 and not ended.is_deleted  # ended, kept
    site.shot(page, "memory-ended")
    page.goto(f"{site.url}/#/memories")
    expect(page.get_by_text("No memories")).to_be_visible()

    page.goto(f"{site.url}/#/memory/{job.id}")
    page.get_by_role("button", name="True again (remove its end)").click()
    expect(page.get_by_label("No longer true from (a date; empty: still true)")).to_have_value("")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("button", name="True again (remove its end)")).to_have_count(0)
    expect(page.get_by_role("note")).to_have_count(0)
    back = memories.get(Caller(user), job.id, record_access=False)
    assert back.valid_until is None and back.version == 3
    page.goto(f"{site.url}/#/memories")
    expect(page.get_by_role("table").locator("tbody tr")).to_have_count(1)
