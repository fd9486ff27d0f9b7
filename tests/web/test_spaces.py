"""Shared spaces in Chromium at 1280 and 390 px: the header's space choice narrows the lists, the home page and
the graph, lives in the address (reload and links keep it) and decides where a new memory goes; a shared
memory names its space and who stored and changed it, and a reader sees it read-only with the reason; the
spaces page creates a space, manages its members and shows each refusal beside its form. No console error, no
sideways scroll, axe without serious problems."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from remember.service.relationships import RelationshipDraft
from web_support import Site, axe_problems_at, sideways


def shared(site: Site, admin: str, **members: str) -> str:
    """A space named Team administered by ``admin`` with ``members`` (user: role), holding two related memories."""
    spaces = site.services.spaces
    key = spaces.create(Caller(admin), "Team").space.key
    for user, role in members.items():
        spaces.add_member(Caller(admin), key, user, role)
        spaces.accept(Caller(user), key)
    acting = spaces.writing(Caller(admin), key)
    launch = site.services.memories.create(acting, {"content": "The launch moved to Friday", "title": "Launch day"})
    party = site.services.memories.create(acting, {"content": "Launch party at the office", "title": "Launch party"})
    site.services.relationships.create(acting, RelationshipDraft([launch.id, party.id], "part_of"))
    return key


def space_choice(page: Any) -> Any:
    return page.get_by_label("Space", exact=True)


def rows(page: Any) -> Any:
    return page.locator("table.memories tbody tr")


def test_the_space_chosen_narrows_every_page_and_stays_in_the_address(site: Site, sized: Any, browser: Any) -> None:
    page, ann = sized, site.user("ann")
    key = shared(site, ann)
    site.services.memories.create(Caller(ann), {"content": "My garden plans", "title": "Garden"})
    site.log_in(page, ann)
    expect(rows(page)).to_have_count(3)
    expect(page.locator("table.memories thead")).to_contain_text("Space")
    expect(rows(page).filter(has_text="Garden")).to_contain_text("Personal")
    expect(rows(page).filter(has_text="Launch day")).to_contain_text("Team")
    expect(space_choice(page).locator("option")).to_have_text(["All my spaces", "Personal", "Team (admin)"])
    assert sideways(page) == 0
    site.shot_at_width(page, "spaces-memories")
    assert axe_problems_at(browser, page, lambda p: expect(rows(p)).to_have_count(3)) == []

    space_choice(page).select_option(label="Team (admin)")
    expect(page).to_have_url(re.compile(f"space={re.escape(key)}"))
    expect(rows(page)).to_have_count(2)
    expect(page.locator("table.memories thead")).not_to_contain_text("Space")
    page.reload()
    expect(rows(page)).to_have_count(2)
    expect(space_choice(page)).to_have_value(key)

    page.get_by_role("link", name="New memory").click()  # goes to the space chosen
    expect(page.get_by_text("It goes to space Team.")).to_be_visible()
    page.get_by_label("Text", exact=True).fill("The demo is on Thursday")
    page.get_by_label("Title", exact=True).fill("Demo")
    page.get_by_role("button", name="Store the memory").click()
    expect(page.get_by_role("heading", name="Demo", exact=True)).to_be_visible()
    fields = page.locator("table.fields").first
    expect(fields.locator("tr", has_text="Space")).to_contain_text("Team")
    expect(fields.locator("tr", has_text="Stored by")).to_contain_text(ann)
    acting = site.services.spaces.writing(Caller(ann), key)
    assert "Demo" in {m.title for m in site.services.memories.list(acting, limit=10).items}

    if page.viewport_size["width"] < 800:
        page.get_by_role("button", name="Menu").click()
    page.get_by_role("link", name="Home").click()  # the navigation keeps the space
    expect(page).to_have_url(re.compile(f"#/home\\?space={re.escape(key)}"))
    expect(page.locator("ul.recent").first.locator("li")).to_have_count(3)
    expect(page.locator("ul.recent").first).not_to_contain_text("Garden")

    if page.viewport_size["width"] < 800:
        page.get_by_role("button", name="Menu").click()
    page.get_by_role("link", name="Graph").click()
    expect(page.locator(".graph-summary")).to_have_text("2 memories, 1 relationship.")
    space_choice(page).select_option("personal")
    expect(page.get_by_text("No relationships match.")).to_be_visible()
    assert sideways(page) == 0


def test_a_reader_sees_a_shared_memory_read_only_with_who_did_what(site: Site, sized: Any, browser: Any) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key = shared(site, ann, **{bob: "reader"})
    acting = site.services.spaces.writing(Caller(ann), key)
    launch = site.services.memories.list(acting, limit=10).items[-1]
    site.services.memories.change(acting, launch.id, {"title": "Launch on Friday"}, reason="moved")
    site.open_as(page, site.session(bob), f"#/memories?space={key}")
    expect(rows(page)).to_have_count(2)
    expect(page.get_by_role("link", name="New memory")).to_be_hidden()  # a reader is not offered New
    rows(page).get_by_role("link", name="Launch on Friday").click()
    expect(page.get_by_role("note")).to_contain_text("You are a reader in space Team")
    fields = page.locator("table.fields").first
    expect(fields.locator("tr", has_text="Stored by")).to_contain_text(ann)
    changes = page.get_by_role("region", name="History").locator("table").first
    expect(changes.locator("thead")).to_contain_text("By")
    expect(changes.locator("tbody tr").first).to_contain_text(ann)
    expect(page.get_by_role("heading", name="Edit")).to_have_count(0)
    expect(page.get_by_role("button", name="Move to the trash")).to_have_count(0)
    assert sideways(page) == 0
    site.shot_at_width(page, "spaces-reader")
    ready = lambda p: expect(p.get_by_role("note")).to_contain_text("reader")  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []
    page.goto(f"{site.url}/#/memory-new?space={key}")  # by its address: refused with the reason
    expect(page.get_by_role("note")).to_contain_text("You are a reader in space Team")
    expect(page.get_by_role("button", name="Store the memory")).to_have_count(0)


def test_the_spaces_page_creates_a_space_and_manages_its_members(site: Site, sized: Any, browser: Any) -> None:
    page, ann = sized, site.user("ann")
    site.open_as(page, site.session(ann), "#/spaces")
    expect(page.get_by_text("You belong to no shared space yet.")).to_be_visible()
    page.get_by_label("Name", exact=True).fill("Family")
    page.get_by_role("button", name="Create").click()
    family = page.get_by_role("region", name="Family")
    expect(family.get_by_role("table", name="Members of Family")).to_contain_text(ann)
    expect(space_choice(page).locator("option")).to_have_text(["All my spaces", "Personal", "Family (admin)"])
    adding = family.locator("form.space-add")
    adding.get_by_label("User id").fill("not a user!")
    adding.get_by_role("button", name="Invite").click()
    expect(adding.get_by_role("alert")).to_contain_text("is not a user id")
    adding.get_by_label("User id").fill("cid")
    adding.get_by_label("Role", exact=True).select_option("writer")
    adding.get_by_role("button", name="Invite").click()
    expect(page.locator(".space-status")).to_contain_text("Invited cid as writer; they join when they accept.")
    members = family.get_by_role("table", name="Members of Family")
    expect(members.locator("tbody tr", has_text="cid")).to_contain_text("writer (invited)")
    key = site.services.spaces.list(Caller(ann))[0].space.key
    site.services.spaces.accept(Caller("cid"), key)
    page.reload()
    expect(members.locator("tbody tr")).to_have_count(2)
    expect(members.locator("tbody tr", has_text="cid")).not_to_contain_text("invited")
    own = members.locator("tbody tr", has_text=ann)
    own.get_by_label(f"Role of {ann}").select_option("reader")
    own.get_by_role("button", name="Set role").click()
    expect(own.get_by_role("alert")).to_contain_text("The last admin of space Family cannot be demoted")
    cid = members.locator("tbody tr", has_text="cid")
    cid.get_by_label("Role of cid").select_option("admin")
    cid.get_by_role("button", name="Set role").click()
    expect(page.locator(".space-status")).to_contain_text("cid is now admin.")
    assert sideways(page) == 0
    site.shot_at_width(page, "spaces")
    ready = lambda p: expect(p.get_by_role("table", name="Members of Family")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []
    members.locator("tbody tr", has_text="cid").get_by_role("button", name="Remove cid").click()
    expect(page.locator(".space-status")).to_contain_text("Removed cid.")
    family.get_by_role("button", name="Leave Family").click()
    expect(family.get_by_role("alert")).to_contain_text("The last admin of space Family cannot leave")
    assert [(m.user, m.role) for m in site.store.spaces.members(key)] == [(ann, "admin")]


def test_an_admin_on_a_lower_trust_session_is_told_managing_needs_full_trust(site: Site, page: Any) -> None:
    ann = site.user("ann")
    key = shared(site, ann)
    site.open_as(page, site.session(ann, trust_level=0.5), f"#/space/{key}")
    expect(page.get_by_role("heading", name="Space Team")).to_be_visible()
    expect(page.get_by_role("note")).to_contain_text("needs a full-trust session")
    expect(page.locator("form.space-add")).to_have_count(0)
    site.open_as(page, site.session(site.user("eve")), f"#/space/{key}")  # not a member: no such space
    expect(page.get_by_role("alert")).to_contain_text("Unknown space")


def test_an_invitation_is_accepted_or_declined_on_the_spaces_page(site: Site, sized: Any, browser: Any) -> None:
    page, ann, cid = sized, site.user("ann"), site.user("cid")
    team = site.services.spaces.create(Caller(ann), "Team").space.key
    site.services.spaces.add_member(Caller(ann), team, cid, "writer")
    other = site.services.spaces.create(Caller(ann), "Book club").space.key
    site.services.spaces.add_member(Caller(ann), other, cid, "reader")
    site.open_as(page, site.session(cid), "#/spaces")
    offers = page.get_by_role("region", name="Invitations")
    expect(offers.locator("li")).to_have_count(2)
    expect(offers).to_contain_text(f"{ann} invites you as writer")
    expect(space_choice(page).locator("option")).to_have_text(["All my spaces", "Personal"])
    ready = lambda p: expect(p.get_by_role("region", name="Invitations")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []
    offers.get_by_role("button", name="Accept the invitation to Team").click()
    expect(page.locator(".space-status")).to_contain_text("Joined space Team as writer.")
    expect(space_choice(page).locator("option")).to_have_text(["All my spaces", "Personal", "Team (writer)"])
    offers = page.get_by_role("region", name="Invitations")
    offers.get_by_role("button", name="Decline the invitation to Book club").click()
    expect(page.locator(".space-status")).to_contain_text("Declined the invitation to Book club.")
    expect(page.get_by_role("region", name="Invitations")).to_have_count(0)
    assert sideways(page) == 0
    assert [v.space.key for v in site.services.spaces.list(Caller(cid))] == [team]
    assert site.services.spaces.invitations(Caller(cid)) == []
