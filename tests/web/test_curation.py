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
