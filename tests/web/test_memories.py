"""The memories pages in a real browser: search with a structured filter, page through the list,
edit with a validation error then a fix, delete then restore, and other users' memories out of reach."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
from playwright.sync_api import expect

from http_support import logical_fingerprint
from remember.caller import Caller
from remember.service.relationships import RelationshipDraft
from web_support import Site, axe_problems

BOOK = "builtin:book_review"


def book(site: Site, user: str, title: str, rating: int) -> str:
    fields = {"title": title, "author": "Someone", "rating": rating, "genre": "classic"}
    return site.services.memories.create(Caller(user), {"template_id": BOOK, "structured_content": fields}).id


def test_search_with_a_structured_filter_finds_exactly_the_right_memories(site: Site, page: Any) -> None:
    user = site.user("reader")
    for title, rating in (("Dune", 5), ("Emma", 4), ("Ulysses", 2), ("Walden", 3)):
        book(site, user, title, rating)
    site.services.memories.create(Caller(user), {"content": "A classic car show on Sunday", "title": "Car show"})
    site.services.memories.create(Caller(site.user("other")), {"template_id": BOOK, "structured_content": {
        "title": "Not yours", "author": "X", "rating": 5, "genre": "classic"}})  # fmt: skip
    site.log_in(page, user)
    page.get_by_label("Search").fill("classic")
    page.get_by_label("Auto alpha").uncheck()  # the slider's value is sent
    page.get_by_label("Alpha: 0 = by keywords, 1 = by meaning").fill("0")
    page.get_by_label("Template", exact=True).select_option(BOOK)
    page.get_by_label("Rating: condition").select_option("gte")
    page.get_by_label("Rating: value").fill("4")
    expression = page.get_by_label("Filter expression")
    expect(expression).to_contain_text('"structured_content.rating"')
    built = json.loads(expression.inner_text())
    assert built == {"template_id": BOOK, "structured_content.rating": {"gte": 4}}
    page.get_by_role("button", name="Search").click()
    rows = page.get_by_role("table").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(page.get_by_role("link", name="Dune")).to_be_visible()
    expect(page.get_by_role("link", name="Emma")).to_be_visible()
    site.shot(page, "memories")
    page.get_by_label("Search").fill("")  # no query: the filtered list, newest first
    page.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Emma")


def test_the_list_pages_forward_and_back(site: Site, page: Any) -> None:
    user = site.user("pager")
    for n in range(45):
        site.services.memories.create(Caller(user), {"content": f"numbered note {n:02d}", "title": f"Note {n:02d}"})
    site.log_in(page, user)
    rows = page.get_by_role("table").locator("tbody tr")
    expect(rows).to_have_count(20)
    expect(rows.first).to_contain_text("Note 44")
    expect(page.get_by_role("button", name="Previous page")).to_be_disabled()
    page.get_by_role("button", name="Next page").click()
    expect(rows.first).to_contain_text("Note 24")
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(5)
    expect(rows.last).to_contain_text("Note 00")
    expect(page.get_by_role("button", name="Next page")).to_be_disabled()
    page.get_by_role("button", name="Previous page").click()
    expect(rows.first).to_contain_text("Note 24")


def test_an_edit_with_a_validation_error_stores_nothing_until_fixed(site: Site, page: Any) -> None:
    user = site.user("editor")
    memory_id = book(site, user, "Dune", 5)
    other = site.services.memories.create(Caller(user), {"content": "Frank Herbert wrote it", "title": "Herbert"})
    site.services.relationships.create(Caller(user), RelationshipDraft([memory_id, other.id], "written_by"))
    site.services.memories.update(Caller(user), memory_id, {"tags": ["scifi"]}, reason="tagged")
    before = site.services.memories.get(Caller(user), memory_id, record_access=False)
    site.log_in(page, user)
    page.goto(f"{site.url}/#/memory/{memory_id}")
    expect(page.get_by_role("heading", name="Dune", level=1)).to_be_visible()
    expect(page.get_by_role("group", name=re.compile("Relationship graph: 1 related"))).to_be_visible()
    expect(page.get_by_role("table", name="Related memories")).to_contain_text("written_by")
    expect(page.get_by_role("table", name="Differences")).to_contain_text("scifi")
    page.get_by_label("Weight (0 to 1)").fill("7")
    page.get_by_label("Rating", exact=True).fill("9")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("alert")).to_contain_text("weight must be a number from 0 to 1")
    weight_box = page.locator(".control", has=page.get_by_label("Weight (0 to 1)"))
    expect(weight_box.locator(".field-error")).to_contain_text("weight must be a number from 0 to 1")
    expect(page.get_by_label("Weight (0 to 1)")).to_have_attribute("aria-invalid", "true")
    assert site.services.memories.get(Caller(user), memory_id, record_access=False) == before
    page.get_by_label("Weight (0 to 1)").fill("0.9")
    page.get_by_role("button", name="Save changes").click()
    rating_box = page.locator(".control", has=page.get_by_label("Rating", exact=True))
    expect(rating_box.locator(".field-error")).to_contain_text("Rate from 1 to 5")
    assert site.services.memories.get(Caller(user), memory_id, record_access=False) == before
    page.get_by_label("Rating", exact=True).fill("4")
    page.get_by_label("Reason for the change (kept in the history)").fill("re-read it")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("cell", name="re-read it")).to_be_visible()
    after = site.services.memories.get(Caller(user), memory_id, record_access=False)
    assert (after.weight, after.structured_content["rating"], after.version) == (0.9, 4, before.version + 1)
    site.shot(page, "memory")


def test_delete_then_restore_from_the_trash(site: Site, page: Any) -> None:
    user = site.user("tidy")
    memory_id = site.services.memories.create(Caller(user), {"content": "Buy oat milk", "title": "Oat milk"}).id
    site.log_in(page, user)
    page.goto(f"{site.url}/#/memory/{memory_id}")
    page.get_by_role("button", name="Move to the trash").click()
    expect(page.get_by_role("heading", name="Trash")).to_be_visible()
    expect(page.get_by_role("link", name="Oat milk")).to_be_visible()
    assert site.services.memories.get(Caller(user), memory_id, record_access=False).is_deleted
    site.shot(page, "trash")
    page.get_by_role("button", name="Restore Oat milk").click()
    expect(page.get_by_role("status").filter(has_text="Restored “Oat milk”")).to_be_visible()
    expect(page.get_by_text("The trash is empty.")).to_be_visible()
    assert not site.services.memories.get(Caller(user), memory_id, record_access=False).is_deleted


def test_another_users_memory_is_unreachable_by_its_address(site: Site, page: Any) -> None:
    owner, intruder = site.user("owner"), site.user("intruder")
    theirs = site.services.memories.create(Caller(owner), {"content": "Owner's private note", "title": "Private"}).id
    before = logical_fingerprint(site.store, [owner])
    site.log_in(page, intruder)
    page.goto(f"{site.url}/#/memory/{theirs}")
    expect(page.get_by_role("heading", name="Memory not found")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text(f"No memory with id '{theirs}'")
    expect(page.get_by_text("Owner's private note")).to_have_count(0)
    headers = {"Authorization": f"Bearer {site.token(intruder)}", "X-Remember-Request": "1"}
    for method, path, body in (
        ("GET", f"/api/memories/{theirs}", None),
        ("PATCH", f"/api/memories/{theirs}", {"version": 1, "changes": {"title": "Mine now"}}),
        ("DELETE", f"/api/memories/{theirs}", None),
        ("POST", f"/api/memories/{theirs}/restore", None),
        ("GET", f"/api/memories/{theirs}/related", None),
    ):
        answer = httpx2.request(method, f"{site.url}{path}", headers=headers, json=body)
        assert answer.status_code == 404, (method, path, answer.text)
    assert logical_fingerprint(site.store, [owner]) == before


def test_hostile_text_in_a_memory_is_shown_as_text(site: Site, page: Any) -> None:
    user = site.user("xss")
    hostile = '<img src=x onerror="window.hacked = 1"><script>window.hacked = 2</script>'
    memory_id = site.services.memories.create(
        Caller(user), {"content": hostile, "title": hostile, "tags": ["<b>t</b>"]}
    ).id
    site.log_in(page, user)
    expect(page.get_by_role("link", name=hostile)).to_be_visible()
    page.goto(f"{site.url}/#/memory/{memory_id}")
    expect(page.get_by_role("heading", name=hostile, level=1)).to_be_visible()
    expect(page.get_by_text("<b>t</b>", exact=True).first).to_be_visible()
    assert page.evaluate("window.hacked") is None
    assert page.locator("main img, main script").count() == 0


def test_the_memories_pages_have_no_serious_accessibility_problem(site: Site, browser: Any) -> None:
    user = site.user("a11y-memories")
    memory_id = book(site, user, "Dune", 5)
    other = site.services.memories.create(Caller(user), {"content": "Frank Herbert", "title": "Herbert"})
    site.services.relationships.create(Caller(user), RelationshipDraft([memory_id, other.id], "written_by"))
    site.services.memories.update(Caller(user), memory_id, {"tags": ["scifi"]})
    site.services.memories.delete(Caller(user), other.id)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    checked = context.new_page()
    try:
        site.log_in(checked, user)
        checked.get_by_label("Template", exact=True).select_option(BOOK)
        expect(checked.get_by_label("Rating: condition")).to_be_visible()
        problems = {"memories": axe_problems(checked)}
        checked.goto(f"{site.url}/#/memory/{memory_id}")
        expect(checked.get_by_role("button", name="Save changes")).to_be_visible()
        checked.get_by_label("Weight (0 to 1)").fill("7")
        checked.get_by_role("button", name="Save changes").click()
        expect(checked.locator(".field-error:not(:empty)")).to_have_count(1)
        problems["memory"] = axe_problems(checked)
        checked.goto(f"{site.url}/#/trash")
        expect(checked.get_by_role("button", name="Restore Herbert")).to_be_visible()
        problems["trash"] = axe_problems(checked)
    finally:
        context.close()
    assert problems == {"memories": [], "memory": [], "trash": []}


def test_counts_are_said_with_the_right_plural(site: Site, page: Any) -> None:
    user = site.user("counted")
    memory_id = site.services.memories.create(Caller(user), {"content": "Buy oat milk", "title": "Oat milk"}).id
    site.services.memories.get(Caller(user), memory_id)  # read once
    site.log_in(page, user)
    expect(page.locator("#status")).to_have_text("1 memory shown, page 1.")
    page.goto(f"{site.url}/#/memory/{memory_id}")
    expect(page.locator("#status")).to_have_text("0 related memories.")
    expect(page.get_by_role("row", name="Read")).to_contain_text(re.compile(r"^Read\s*1 time$"))
