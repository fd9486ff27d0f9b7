"""Curation in the browser at 1280 and 390 px: a selection of memories tagged then trashed at once, and a
memory erased for good from the trash after a confirmation naming what is lost."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from remember.service.relationships import RelationshipDraft
from web_support import Site, axe_problems_at, sideways


def test_a_selection_is_tagged_then_trashed(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("bulk")
    me = Caller(user)
    ids = {t: site.services.memories.create(me, {"content": f"{t} in the garden", "title": t}).id
           for t in ("Roses", "Tulips", "Weeds")}  # fmt: skip
    site.log_in(sized, user)
    add = sized.get_by_role("button", name="Add the tag")
    expect(add).to_be_disabled()
    sized.get_by_label("Select Roses").check()
    sized.get_by_label("Select Tulips").check()
    expect(sized.get_by_role("region", name="Selected memories")).to_contain_text("2 memories selected.")
    sized.get_by_label("Tag", exact=True).fill("flowers")
    add.click()
    expect(sized.locator(".ok")).to_have_text("Tagged 2 memories “flowers”.")
    tags = {t: site.services.memories.get(me, i, record_access=False).tags for t, i in ids.items()}
    assert tags == {"Roses": ("flowers",), "Tulips": ("flowers",), "Weeds": ()}
    assert sideways(sized) == 0
    ready = lambda p: expect(p.get_by_label("Select Weeds")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []
    sized.get_by_label("Select Weeds").check()
    sized.get_by_role("button", name="Move to the trash").click()
    expect(sized.get_by_role("link", name="Weeds")).to_have_count(0)
    expect(sized.get_by_role("link", name="Roses")).to_be_visible()
    assert site.services.memories.get(me, ids["Weeds"], record_access=False).is_deleted


def test_delete_forever_names_what_is_lost_and_asks_first(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("erase")
    me = Caller(user)
    doomed = site.services.memories.create(me, {"content": "Buy oat milk", "title": "Oat milk"})
    other = site.services.memories.create(me, {"content": "The shop on the corner", "title": "Shop"})
    site.services.relationships.create(me, RelationshipDraft([doomed.id, other.id], "bought_at"))
    site.services.memories.update(me, doomed.id, {"tags": ["shopping"]})
    site.services.memories.delete(me, doomed.id)
    site.log_in(sized, user)
    sized.goto(f"{site.url}/#/trash")
    sized.get_by_role("button", name="Delete forever: Oat milk").click()
    asked = sized.get_by_role("group", name="Erase Oat milk for good?")
    expect(asked).to_contain_text("its history (2 changes)")
    expect(asked).to_contain_text("1 relationship")
    expect(sized.get_by_role("button", name="Keep it")).to_be_focused()
    assert sideways(sized) == 0
    site.shot_at_width(sized, "trash-erase")
    sized.get_by_role("button", name="Keep it").click()
    expect(asked).to_have_count(0)
    assert site.services.memories.get(me, doomed.id, record_access=False).is_deleted  # still there
    sized.get_by_role("button", name="Delete forever: Oat milk").click()
    ready = lambda p: expect(p.get_by_role("button", name="Delete forever: Oat milk")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []
    sized.get_by_role("button", name="Erase for good").click()
    expect(sized.get_by_role("status").filter(has_text="Erased “Oat milk” for good.")).to_be_visible()
    expect(sized.get_by_text("The trash is empty.")).to_be_visible()
    assert [m.id for m in site.services.memories.list(me, limit=10).items] == [other.id]
    assert site.services.relationships.links(me, [other.id]).get(other.id, []) == []


def test_a_template_is_applied_to_a_selection_and_each_failure_named(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("apply")
    me = Caller(user)
    idea = site.services.memories.create(me, {"content": "Idea: a solar kettle for camping", "title": "Kettle"}).id
    milk = site.services.memories.create(me, {"content": "Buy milk", "title": "Milk"}).id
    site.log_in(sized, user)
    sized.get_by_label("Select Kettle").check()
    sized.get_by_label("Select Milk").check()
    expect(sized.get_by_label("Template to apply").locator("option", has_text="Idea")).to_have_count(1)
    sized.get_by_label("Template to apply").select_option(label="Idea")
    sized.get_by_role("button", name="Apply the template").click()
    told = sized.get_by_role("alert")
    expect(told).to_contain_text("Applied Idea to 1 of 2 memories. 1 memory could not take it:")
    expect(told).to_contain_text("Milk: title: title is required")
    assert site.services.memories.get(me, idea, record_access=False).template_id == "builtin:idea"
    assert site.services.memories.get(me, milk, record_access=False).template_id is None
    assert sideways(sized) == 0
    site.shot_at_width(sized, "apply-template")
    ready = lambda p: expect(p.get_by_label("Template to apply")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []


def test_a_possible_duplicate_is_shown_and_merged_into_the_one_kept(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("merge")
    me = Caller(user)
    first = site.services.memories.create(me, {"content": "The dentist is on Elm Street", "title": "Dentist",
                                               "tags": ["health"]})  # fmt: skip
    second = site.services.memories.create(me, {"content": "The dentist is on Elm Street", "title": "Elm dentist",
                                                "tags": ["town"]})  # fmt: skip
    friend = site.services.memories.create(me, {"content": "Dr Okafor", "title": "Okafor"})
    site.services.relationships.create(me, RelationshipDraft([friend.id, first.id], "works_at"))
    site.open_as(sized, site.session(user), f"#/memory/{first.id}")
    offer = sized.get_by_role("form", name="Merge with Elm dentist")
    expect(offer).to_contain_text("Possible duplicate of Elm dentist: the same text.")
    assert sideways(sized) == 0
    site.shot_at_width(sized, "merge")
    ready = lambda p: expect(p.get_by_role("form", name="Merge with Elm dentist")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []
    offer.get_by_label("the other (Elm dentist)").check()
    offer.get_by_role("button", name="Merge").click()
    expect(sized.get_by_role("heading", level=1)).to_have_text("Elm dentist")
    expect(sized.get_by_role("status").filter(has_text="Merged: the other memory is in the trash")).to_be_visible()
    expect(sized.get_by_role("table", name="Related memories")).to_contain_text("Okafor")
    kept = site.services.memories.get(me, second.id, record_access=False)
    assert kept.tags == ("town", "health") and kept.version == 2
    assert site.services.memories.history(me, second.id)[0].action == "merge"
    assert site.services.memories.get(me, first.id, record_access=False).is_deleted
    expect(sized.get_by_role("heading", name="Possible duplicates")).to_have_count(0)
